//! Everything that can happen at a point in time in the model, and how events at one time are
//! ordered (`engine::Ranked`): the calendar (`engine`) orders them without knowing what they are.

use crate::engine::Ranked;
use crate::ids::{ChannelId, NodeId, PacketId, PortId, SwitchId, Vc};
use crate::switch::queues::isolation::Signal;

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// Credits for `bytes` of buffer `pool` (`OutputVc::credits`) reach the upstream end of
    /// channel `ch`.
    Credit { ch: ChannelId, vc: Vc, pool: u32, bytes: u32 },
    /// A PFC frame reaches the upstream end of channel `ch`: VC `vc` stops for `quanta` (512 bit
    /// times each), or goes on (0).
    Pause { ch: ChannelId, vc: Vc, quanta: u16 },
    /// A PAUSE on channel `ch`'s VC `vc` may have run out (unless a refresh extended it).
    PauseEnd { ch: ChannelId, vc: Vc },
    /// The receiver at the far end of `ch` refreshes its PAUSE on VC `vc` if it still holds it.
    PauseRefresh { ch: ChannelId, vc: Vc },
    /// Line `line` of the input at the far end of `ch` tells its sender about its packets on
    /// `vc` (congested-flow isolation, `sim::isolation`); an allocation's destinations are
    /// `dests` in `Sim::line_dests`.
    Isolation { ch: ChannelId, vc: Vc, line: u32, signal: Signal, dests: u32 },
    /// Channel `ch` finished serializing a packet (or a deferred start is due).
    LinkFree { ch: ChannelId },
    /// The crossbar finished moving a packet's tail (`bytes` on `vc`) from input `inp` to output
    /// `out`. It names no packet: with cut-through the packet's head may already be further on,
    /// even dropped and its slot reused, while its tail is still here.
    /// `occupied` says whether the transfer held the crossbar ports (control packets cross
    /// without taking them, see `sim::switch_ops`).
    XbarDone { sw: SwitchId, inp: PortId, out: PortId, vc: Vc, bytes: u32, occupied: bool },
    /// The head of `pkt` reached the switch at the far end of `ch` one router latency ago: it
    /// has been routed and is written to its input queue now. One event covers arrival and
    /// pipeline; credits were debited by the sender, so flow control is exact, and observers
    /// of buffer occupancy see the packet one router latency after its head arrived.
    HeadArrive { ch: ChannelId, pkt: PacketId },
    /// The tail of a packet has been written into input `port`, VC `vc`, of switch `sw`, whose
    /// head left the buffer without room for another data packet. Only mechanisms with a
    /// full-buffer trigger (`Hooks::input_full`) schedule it: the buffer is full now only if no
    /// packet of it is leaving across the crossbar (`sim::switch_ops::tail_in`).
    TailIn { sw: SwitchId, port: PortId, vc: Vc },
    /// A mechanism asked (`Verdict::Recheck`) to judge `pkt` again if it is still waiting at
    /// the head of its queue in input `port` of switch `sw`. `generation` is its slab slot's
    /// (`Slab::generation`): if the packet has gone and the slot holds another since, the check
    /// is stale and does nothing (the other packet has checks of its own).
    HeadCheck { sw: SwitchId, port: PortId, pkt: PacketId, generation: u16 },
    /// The tail of `pkt` reaches its destination NIC over channel `ch`.
    Deliver { ch: ChannelId, pkt: PacketId },
    /// A NIC should retry injection (a rate limiter expired, or a control packet was queued).
    NicWake { node: NodeId },
    /// Traffic source `source` generates its next message.
    Arrival { source: u32 },
    /// A timer a mechanism set; `token` is the mechanism's own.
    Timer { token: u64 },
}

impl Ranked for Event {
    /// Among events at the same time: resources are released (credits, links, crossbar) before
    /// they are competed for, so an allocation never misses what frees at the same picosecond.
    #[inline]
    fn priority(&self) -> u8 {
        match self {
            Event::Credit { .. } | Event::Pause { .. } | Event::PauseEnd { .. } | Event::PauseRefresh { .. } | Event::Isolation { .. } => 0,
            Event::LinkFree { .. } => 1,
            Event::XbarDone { .. } => 2,
            Event::TailIn { .. } => 3,
            Event::HeadCheck { .. } => 4,
            Event::HeadArrive { .. } => 5,
            Event::Deliver { .. } => 6,
            Event::Timer { .. } => 7,
            Event::NicWake { .. } => 8,
            Event::Arrival { .. } => 9,
        }
    }

    /// The entity the event belongs to, as the deterministic tie-break after priority (switch
    /// ports are `switch << 6 | port`: at most 63 ports and the local input, see `MAX_SWITCH_PORTS`).
    #[inline]
    fn entity(&self) -> u64 {
        match *self {
            Event::Credit { ch, .. }
            | Event::Pause { ch, .. }
            | Event::PauseEnd { ch, .. }
            | Event::PauseRefresh { ch, .. }
            | Event::Isolation { ch, .. }
            | Event::LinkFree { ch } => ch.0 as u64,
            Event::XbarDone { sw, out, .. } => ((sw.0 as u64) << 6) | out.0 as u64,
            Event::TailIn { sw, port, .. } | Event::HeadCheck { sw, port, .. } => ((sw.0 as u64) << 6) | port.0 as u64,
            Event::HeadArrive { ch, .. } | Event::Deliver { ch, .. } => ch.0 as u64,
            Event::NicWake { node } => node.0 as u64,
            Event::Arrival { source } => source as u64,
            Event::Timer { token } => token,
        }
    }
}

/// The simulation's calendar of events.
pub type Events = crate::engine::EventQueue<Event>;
