//! How an input buffer of a VC is divided into buffers of their own, and the credit counters a
//! sender (a switch output or a NIC) keeps for them: one per buffer, so a full buffer stops only
//! the packets that would take it.

use crate::ids::{NodeId, PortId};
use crate::packet::Packet;
use smallvec::{smallvec, SmallVec};

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

/// A sender's credits for one VC of the input buffer at the far end of its link.
#[derive(Clone, Debug)]
pub struct Credits {
    /// Free bytes of each buffer of that VC: one, kept inline, unless the buffer is divided
    /// (every credit return and every send reads it: a separate allocation was a cache miss
    /// each time on large networks, docs/performance.md, 2026-11-26).
    pub free: SmallVec<[u32; 1]>,
    pub pooling: Pooling,
    /// Bytes each buffer holds when it is empty.
    pub capacity: u32,
}

impl Credits {
    /// `buffers` buffers of `capacity` bytes divided by `pooling`.
    pub fn new(pooling: Pooling, buffers: usize, capacity: u32) -> Credits {
        Credits { free: smallvec![capacity; buffers], pooling, capacity }
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

    /// Whether there are credits for `p`.
    #[inline]
    pub fn room<H>(&self, p: &Packet<H>) -> bool {
        self.free[self.pool(p)] >= p.bytes
    }

    /// Downstream bytes in use (credits taken and not returned). Under PFC the sender knows
    /// only whether it is paused: a paused buffer counts as full, an open one (credits above
    /// any capacity, `sim::pfc::OPEN`) as empty.
    pub fn in_use(&self) -> u32 {
        self.free.iter().map(|c| self.capacity.saturating_sub(*c)).sum()
    }
}
