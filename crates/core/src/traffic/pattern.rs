//! Destination patterns.

use super::{Class, Target};
use crate::config::Pattern;
use crate::ids::NodeId;
use crate::rng::Stream;
use crate::time::Time;
use rand::RngExt;

/// The destination of a message from `src` generated at `now`.
pub fn destination(class: &Class, src: NodeId, now: Time, rng: &mut Stream) -> NodeId {
    match &class.target {
        Target::Uniform(d) => {
            // Uniform over the destinations other than the source itself.
            let own = d.binary_search(&src).ok();
            let n = d.len() - own.is_some() as usize;
            let mut i = rng.random_range(0..n);
            if let Some(o) = own {
                if i >= o {
                    i += 1;
                }
            }
            d[i]
        }
        Target::Moving { lifetime, dests } => dests[((now / lifetime) as usize).min(dests.len() - 1)],
        Target::Fixed(d) => *d,
        Target::Permutation(perm) => perm[src.idx()],
    }
}

/// The permutation of `n` hosts for permutation patterns; `NodeId::MAX` marks hosts that would
/// send to themselves (they send nothing).
pub fn permutation(pattern: Pattern, n: u32, shift: u32, rng: &mut Stream) -> Vec<NodeId> {
    let hosts: Vec<u32> = match pattern {
        Pattern::Shift => (0..n).map(|s| (s + shift % n) % n).collect(),
        Pattern::Tornado => (0..n).map(|s| (s + n.div_ceil(2) - 1) % n).collect(),
        Pattern::Bitreverse => {
            let bits = n.trailing_zeros();
            // One host (no address bits) is its own reverse.
            (0..n).map(|s| s.reverse_bits().checked_shr(32 - bits).unwrap_or(0)).collect()
        }
        Pattern::Randperm => {
            // Sattolo's algorithm: a uniformly random cyclic permutation, so no host is fixed.
            let mut v: Vec<u32> = (0..n).collect();
            for i in (1..n as usize).rev() {
                let j = rng.random_range(0..i);
                v.swap(i, j);
            }
            v
        }
        _ => unreachable!("not a permutation pattern"),
    };
    let mut p: Vec<NodeId> = hosts.into_iter().map(NodeId).collect();
    for (s, d) in p.iter_mut().enumerate() {
        if *d == NodeId::new(s) {
            *d = NodeId::MAX;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Family};

    #[test]
    fn permutations_are_bijections_without_fixed_points() {
        let mut rng = stream(3, Family::TrafficSetup, 0);
        for pat in [Pattern::Tornado, Pattern::Randperm, Pattern::Shift] {
            let p = permutation(pat, 16, 4, &mut rng);
            let mut seen = p.clone();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), 16, "{pat:?} is a bijection");
            assert!(p.iter().enumerate().all(|(s, d)| *d != NodeId::new(s)));
        }
        // Tornado on 16 nodes: s -> s + 7.
        assert_eq!(permutation(Pattern::Tornado, 16, 0, &mut rng)[0], NodeId(7));
        // Bit reverse on 16 nodes: 0b0001 -> 0b1000; 0 and 0b0110 are palindromes (send none).
        let b = permutation(Pattern::Bitreverse, 16, 0, &mut rng);
        assert_eq!(b[1], NodeId(8));
        assert_eq!(b[0], NodeId::MAX);
        assert_eq!(b[6], NodeId::MAX);
    }

    #[test]
    fn any_shift_and_a_single_host_are_fine() {
        let mut rng = stream(1, Family::TrafficSetup, 0);
        // A shift of 2^32 - 1 on 16 hosts is a shift of 15 (it overflowed before).
        assert_eq!(permutation(Pattern::Shift, 16, u32::MAX, &mut rng)[0], NodeId(15));
        // One host has no address bits (the shift by 32 overflowed): it would send to itself.
        assert_eq!(permutation(Pattern::Bitreverse, 1, 0, &mut rng), [NodeId::MAX]);
    }
}
