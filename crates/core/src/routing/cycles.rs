//! The channel dependency graph of table routing, checked for cycles before a run.
//!
//! With credit-based flow control a packet holds its buffer while it waits for the next one, so
//! routes whose channel dependencies form a cycle can deadlock (Dally and Seitz, "Deadlock-free
//! message routing in multiprocessor interconnection networks", IEEE Trans. Computers 1987).
//! Every packet shares the data VC's routes here, so one graph covers all of them. A channel c
//! depends on d when a packet from some host to some other host leaves a switch on d right after
//! arriving on c.

use super::Table;
use crate::ids::{ChannelId, Endpoint};
use crate::topology::Topology;

/// A cycle of switch-to-switch channels, each a dependency of the one before, if any.
pub fn find(topo: &Topology, table: &Table) -> Option<Vec<ChannelId>> {
    let n = topo.channels.len();
    let mut next: Vec<Vec<ChannelId>> = vec![Vec::new(); n];
    for src in 0..topo.hosts() {
        let Endpoint::Switch(first, _) = topo.channels[topo.host_out[src] as usize].to else { continue };
        for dst in (0..topo.hosts()).filter(|&d| d != src) {
            let (mut s, mut prev) = (first, None::<ChannelId>);
            // Routes were checked to reach their destination, so this ends within the switches.
            for _ in 0..topo.switches.len() {
                let out = topo.switches[s as usize].ports[table.port(s, dst as u32) as usize].out;
                if let Some(p) = prev {
                    next[p as usize].push(out);
                }
                match topo.channels[out as usize].to {
                    Endpoint::Switch(t, _) => (s, prev) = (t, Some(out)),
                    Endpoint::Host(_) => break,
                }
            }
        }
    }
    for v in &mut next {
        v.sort_unstable();
        v.dedup();
    }
    // Depth-first search with the path on a stack; a back edge closes a cycle.
    let mut state = vec![0u8; n]; // 0 new, 1 on the path, 2 done
    for start in 0..n {
        if state[start] != 0 || next[start].is_empty() {
            continue;
        }
        state[start] = 1;
        let mut path = vec![(start as ChannelId, 0usize)];
        while let Some((c, i)) = path.last_mut() {
            let c = *c as usize;
            let Some(&d) = next[c].get(*i) else {
                state[c] = 2;
                path.pop();
                continue;
            };
            *i += 1;
            match state[d as usize] {
                1 => {
                    let from = path.iter().position(|(x, _)| *x == d).expect("d is on the path");
                    return Some(path[from..].iter().map(|(x, _)| *x).collect());
                }
                0 => {
                    state[d as usize] = 1;
                    path.push((d, 0));
                }
                _ => {}
            }
        }
    }
    None
}
