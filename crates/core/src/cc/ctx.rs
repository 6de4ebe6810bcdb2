//! What a mechanism may do to the network from inside a hook.
//!
//! Acting on another entity (a switch sending a control packet, a send queue taking a packet
//! back) is deferred: the engine carries the action out right after the current event, at the
//! same time, so a hook never reaches into state the engine is in the middle of changing.

use crate::event::{Event, Events};
use crate::ids::{NodeId, PacketId, PortId, QpId, SwitchId, Vc};
use crate::packet::{Packet, PacketKind, Slab};
use crate::rng::Stream;
use crate::routing::Leg;
use crate::time::Time;
use std::collections::VecDeque;

/// The entity a hook runs at, for its random stream (`Ctx::rng`).
#[derive(Clone, Copy, Debug)]
pub enum RngAt {
    Switch(SwitchId),
    Nic(NodeId),
    /// A timer: no entity, no stream.
    Timer,
}

/// Mechanisms' random streams, one per NIC and switch that draws, made on first use from the
/// run's seed and the entity.
pub struct Streams {
    seed: u64,
    made: rustc_hash::FxHashMap<u64, Stream>,
}

impl Streams {
    pub fn new(seed: u64) -> Streams {
        Streams { seed, made: Default::default() }
    }

    fn of(&mut self, at: RngAt) -> &mut Stream {
        let id = match at {
            RngAt::Switch(s) => s.0 as u64,
            RngAt::Nic(n) => 1 << 32 | n.0 as u64,
            RngAt::Timer => panic!("a timer runs at no NIC or switch and has no random stream: draw in the hook that sets it"),
        };
        let seed = self.seed;
        self.made.entry(id).or_insert_with(|| crate::rng::stream(seed, crate::rng::Family::Mechanism, id))
    }
}

/// An action on another entity, carried out after the current event.
#[derive(Clone, Copy, Debug)]
pub enum Deferred<H> {
    /// Switch `sw` sends control packet `pkt` through its local input.
    SwitchControl { sw: SwitchId, pkt: PacketId },
    /// Send queue `qp` of `node` sends `pkt` again, before its new packets.
    Retransmit { node: NodeId, qp: QpId, pkt: Packet<H> },
    /// Send queue `qp` of `node`, if empty, is offered to `Mechanism::release_queue` again.
    OfferRelease { node: NodeId, qp: QpId },
}

/// A hook's view of the network, for a mechanism whose packets carry header `H`.
pub struct Ctx<'a, H> {
    pub(crate) now: Time,
    pub(crate) events: &'a mut Events,
    pub(crate) slab: &'a mut Slab<H>,
    /// Per-NIC queues of control packets waiting for injection (they go before data).
    pub(crate) control_queues: &'a mut [VecDeque<PacketId>],
    pub(crate) control_bytes: u32,
    /// The random streams of the NICs and switches hooks run at, and where this one runs.
    pub(crate) rngs: &'a mut Streams,
    pub(crate) at: RngAt,
    pub(crate) control_sent: &'a mut u64,
    pub(crate) deferred: &'a mut Vec<Deferred<H>>,
    pub(crate) copies: &'a mut crate::nic::Copies,
}

impl<H: Copy> Ctx<'_, H> {
    pub fn now(&self) -> Time {
        self.now
    }

    /// Hosts in the network (numbered `0..hosts`), for state kept per host.
    pub fn hosts(&self) -> usize {
        self.control_queues.len()
    }

    /// A count that grows with every action hooks take through this context (control packets,
    /// actions on other entities, timers and wake-ups): a hook that only reads leaves it as it
    /// was (`tests/hooks.rs` holds `Mechanism::GATE_ONLY_READS` to it).
    pub fn actions(&self) -> usize {
        *self.control_sent as usize + self.deferred.len() + self.events.len()
    }

    /// The random stream of the NIC or switch the hook runs at: the mechanism's, and that
    /// entity's own, so that its draws do not depend on other entities' events (a run split over
    /// threads draws the same). Timers run at no entity and have none.
    pub fn rng(&mut self) -> &mut Stream {
        self.rngs.of(self.at)
    }

    fn control_packet(&mut self, from: NodeId, to: NodeId, vc: Vc, kind: u8, hdr: H) -> PacketId {
        *self.control_sent += 1;
        self.slab.alloc(Packet {
            src: from,
            dst: to,
            bytes: self.control_bytes,
            kind: PacketKind::Control(kind),
            vc,
            class: 0,
            qp: QpId(0),
            flow: 0,
            created: self.now,
            ready: self.now,
            injected: self.now,
            head_in: 0,
            tail_in: 0,
            queued: 0,
            out_port: PortId(0),
            leg: Leg::START,
            ahead: None,
            marked: false,
            hdr,
            uid: 0,
        })
    }

    /// Queues a control packet of subtype `kind` from NIC `from` to NIC `to` on `vc`. Control
    /// packets are injected before data packets, in the order they were queued.
    pub fn send_control(&mut self, from: NodeId, to: NodeId, vc: Vc, kind: u8, hdr: H) {
        let id = self.control_packet(from, to, vc, kind, hdr);
        self.control_queues[from.idx()].push_back(id);
        self.events.push(self.now, Event::NicWake { node: from });
    }

    /// Switch `sw` sends a control packet of subtype `kind` to NIC `to` on `vc` (SRP's NACK,
    /// §6.6: "transforming the head flit of the dropped packet into a NACK"). Its `src` field
    /// is `to` (a switch has no host id); mechanisms put what they need in `hdr`.
    pub fn send_control_from_switch(&mut self, sw: SwitchId, to: NodeId, vc: Vc, kind: u8, hdr: H) {
        let pkt = self.control_packet(to, to, vc, kind, hdr);
        self.deferred.push(Deferred::SwitchControl { sw, pkt });
    }

    /// Hands `pkt` back to send queue `qp` of `node` to be sent again (with its original
    /// creation time, so its latency counts from then). The queue must not have been released.
    /// If the original may still arrive, track it first (`track_copies`).
    pub fn retransmit(&mut self, node: NodeId, qp: QpId, pkt: Packet<H>) {
        self.copies.resent(pkt.uid, pkt.dst);
        self.deferred.push(Deferred::Retransmit { node, qp, pkt });
    }

    /// Data packet `pkt`, just injected, may be resent while it can still arrive: the
    /// receiver remembers its arrival so that a second one counts as a duplicate.
    pub fn track_copies(&mut self, pkt: &Packet<H>) {
        self.copies.track(pkt.uid, pkt.dst);
    }

    /// The sender learnt the outcome of tracked packet `pkt` (its ACK or NACK).
    pub fn settle(&mut self, pkt: &Packet<H>) {
        self.copies.settle(pkt.uid, pkt.dst);
    }

    /// Send queue `qp` of `node`, which `Mechanism::release_queue` kept when it emptied (e.g.
    /// with packets still unacknowledged), is offered for release again if it is still empty.
    pub fn offer_release(&mut self, node: NodeId, qp: QpId) {
        self.deferred.push(Deferred::OfferRelease { node, qp });
    }

    /// Calls the mechanism's `on_timer(token)` at time `at`.
    pub fn set_timer(&mut self, at: Time, token: u64) {
        self.events.push(at.max(self.now), Event::Timer { token });
    }

    /// Asks NIC `node` to retry injection now (after the mechanism released a held queue).
    pub fn wake_nic(&mut self, node: NodeId) {
        self.events.push(self.now, Event::NicWake { node });
    }
}
