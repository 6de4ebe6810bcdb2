//! How an input buffer of a VC is divided into buffers of their own, and the credit counters a
//! sender (a switch output or a NIC) keeps for them: one per buffer, so a full buffer stops only
//! the packets that would take it.

use crate::ids::{NodeId, PortId};
use crate::packet::Packet;
use rustc_hash::FxHashMap;

/// Which buffer of an input VC a packet takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pooling {
    /// One buffer for every packet of the VC.
    Shared,
    /// One per output port of the switch (`[switch.voq] per_output_buffers`): the packet's
    /// port there, which the sender learns by routing one hop ahead.
    PerOutput,
    /// One per destination host (`input_queues = "voqnet"`, thesis Paper V §IV-A).
    PerDestination,
}

impl Pooling {
    /// The buffer a packet for `dst`, leaving by `out` at the switch that holds it, takes.
    #[inline]
    pub fn pool(self, out: PortId, dst: NodeId) -> u32 {
        match self {
            Pooling::Shared => 0,
            Pooling::PerOutput => out.0 as u32,
            Pooling::PerDestination => dst.0,
        }
    }
}

/// Byte counters of the buffers an input buffer is divided into, one per buffer (`Pooling`):
/// a slice where they are few (one per output port, or none where the buffer is shared); where
/// there is one per destination host, a map of those away from their resting value, so that
/// the state follows the packets in flight, not hosts times ports (a NIC's credits per
/// destination were hosts squared over the network).
#[derive(Clone, Debug)]
pub enum Counts {
    Each(Box<[u32]>),
    Sparse(Box<Sparse>),
}

/// The counters of `Counts::Sparse`: absent ones are at `rest`.
#[derive(Clone, Debug)]
pub struct Sparse {
    away: FxHashMap<u32, u32>,
    rest: u32,
}

// Out of line, so that the counters of undivided and per-port buffers, on every hop of most
// runs, stay inlined where they are used.
impl Sparse {
    #[inline(never)]
    fn get(&self, pool: usize) -> u32 {
        self.away.get(&(pool as u32)).copied().unwrap_or(self.rest)
    }

    #[inline(never)]
    fn set(&mut self, pool: usize, value: u32) {
        if value == self.rest {
            self.away.remove(&(pool as u32));
        } else {
            self.away.insert(pool as u32, value);
        }
    }
}

impl Counts {
    /// `buffers` counters at `rest`, kept as `pooling` needs (none for a shared buffer).
    pub fn new(pooling: Pooling, buffers: usize, rest: u32) -> Counts {
        match pooling {
            Pooling::Shared => Counts::Each(Box::new([])),
            Pooling::PerOutput => Counts::Each(vec![rest; buffers].into_boxed_slice()),
            Pooling::PerDestination => Counts::Sparse(Box::new(Sparse { away: FxHashMap::default(), rest })),
        }
    }

    /// Counter `pool`, if there is one.
    #[inline]
    pub fn get(&self, pool: usize) -> Option<u32> {
        match self {
            Counts::Each(each) => each.get(pool).copied(),
            Counts::Sparse(s) => Some(s.get(pool)),
        }
    }

    /// Adds `bytes` to counter `pool` (nothing if there is no such counter).
    #[inline]
    pub fn add(&mut self, pool: usize, bytes: u32) {
        self.update(pool, |c| c + bytes);
    }

    /// Takes `bytes` from counter `pool` (nothing if there is no such counter).
    #[inline]
    pub fn sub(&mut self, pool: usize, bytes: u32) {
        self.update(pool, |c| c - bytes);
    }

    #[inline]
    fn update(&mut self, pool: usize, f: impl FnOnce(u32) -> u32) {
        match self {
            Counts::Each(each) => {
                if let Some(c) = each.get_mut(pool) {
                    *c = f(*c);
                }
            }
            Counts::Sparse(s) => s.set(pool, f(s.get(pool))),
        }
    }

    /// Every counter that may be away from its resting value, with its pool: all of a slice,
    /// the map's in no set order.
    pub fn away(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        let (each, sparse) = match self {
            Counts::Each(each) => (Some(each.iter().copied().enumerate()), None),
            Counts::Sparse(s) => (None, Some(s.away.iter().map(|(&pool, &c)| (pool as usize, c)))),
        };
        each.into_iter().flatten().chain(sparse.into_iter().flatten())
    }
}

/// A sender's credits for one VC of the input buffer at the far end of its link.
#[derive(Clone, Debug)]
pub struct Credits {
    /// Free bytes of the buffer where it is not divided, inline: every credit return and every
    /// send reads it (a separate allocation was a cache miss each time on large networks).
    shared: u32,
    /// Free bytes of each buffer where it is divided.
    divided: Counts,
    pub pooling: Pooling,
    /// Bytes each buffer holds when it is empty.
    pub capacity: u32,
}

impl Credits {
    /// `buffers` buffers of `capacity` bytes divided by `pooling`.
    pub fn new(pooling: Pooling, buffers: usize, capacity: u32) -> Credits {
        Credits { shared: capacity, divided: Counts::new(pooling, buffers, capacity), pooling, capacity }
    }

    /// The counter `p` draws on (`pool_of`).
    #[inline]
    pub fn pool<H>(&self, p: &Packet<H>) -> usize {
        self.pool_of(p.dst, p.ahead.map(|(port, _)| port))
    }

    /// The counter a packet for `dst` draws on: its lookahead port `ahead` (per-output buffers),
    /// its destination, or the one buffer.
    #[inline]
    pub fn pool_of(&self, dst: NodeId, ahead: Option<PortId>) -> usize {
        match (self.pooling, ahead) {
            (Pooling::PerOutput, Some(port)) => port.idx(),
            (Pooling::PerDestination, _) => dst.idx(),
            _ => 0,
        }
    }

    /// Free bytes of buffer `pool`.
    #[inline]
    pub fn free(&self, pool: usize) -> u32 {
        match self.pooling {
            Pooling::Shared => self.shared,
            _ => self.divided.get(pool).expect("a buffer of the divided input"),
        }
    }

    /// `bytes` of buffer `pool` taken by a packet sent (or granted) towards it.
    #[inline]
    pub fn take(&mut self, pool: usize, bytes: u32) {
        match self.pooling {
            Pooling::Shared => self.shared -= bytes,
            _ => self.divided.sub(pool, bytes),
        }
    }

    /// `bytes` of buffer `pool` returned (a credit).
    #[inline]
    pub fn give(&mut self, pool: usize, bytes: u32) {
        match self.pooling {
            Pooling::Shared => self.shared += bytes,
            _ => self.divided.add(pool, bytes),
        }
    }

    /// Sets the one buffer's credits: PFC's pause (0) and open (`sim::pfc::OPEN`) states, on
    /// buffers it keeps whole (the config refuses PFC with divided ones).
    pub fn set_shared(&mut self, free: u32) {
        assert_eq!(self.pooling, Pooling::Shared, "PFC needs whole input buffers");
        self.shared = free;
    }

    /// Whether there are credits for `p`.
    #[inline]
    pub fn room<H>(&self, p: &Packet<H>) -> bool {
        self.free(self.pool(p)) >= p.bytes
    }

    /// Each buffer whose credits may not all be here, with its free bytes (every buffer, unless
    /// the input is divided per destination).
    pub fn buffers(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        (self.pooling == Pooling::Shared).then_some((0, self.shared)).into_iter().chain(self.divided.away())
    }

    /// Downstream bytes in use (credits taken and not returned). Under PFC the sender knows
    /// only whether it is paused: a paused buffer counts as full, an open one (credits above
    /// any capacity, `sim::pfc::OPEN`) as empty.
    #[inline]
    pub fn in_use(&self) -> u32 {
        match self.pooling {
            Pooling::Shared => self.capacity.saturating_sub(self.shared),
            _ => self.divided.away().map(|(_, c)| self.capacity.saturating_sub(c)).sum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_destination_counters_hold_only_the_buffers_away_from_rest() {
        let mut credits = Credits::new(Pooling::PerDestination, 65_536, 4_096);
        assert_eq!(credits.buffers().count(), 0, "none taken yet");
        credits.take(40_000, 2_048);
        credits.take(7, 4_096);
        assert_eq!((credits.free(40_000), credits.free(7), credits.free(8)), (2_048, 0, 4_096));
        assert_eq!(credits.in_use(), 6_144);
        credits.give(40_000, 2_048);
        assert_eq!(credits.buffers().collect::<Vec<_>>(), vec![(7, 0)], "a buffer given back its credits is forgotten");
    }

    #[test]
    fn an_undivided_buffer_has_one_counter_whatever_the_pool() {
        let mut credits = Credits::new(Pooling::Shared, 1, 1_000);
        credits.take(0, 300);
        assert_eq!((credits.free(0), credits.in_use()), (700, 300));
        assert_eq!(credits.buffers().collect::<Vec<_>>(), vec![(0, 700)]);
    }
}
