//! What a mechanism may do to the network from inside a hook.

use crate::engine::{Event, EventQueue};
use crate::ids::{NodeId, Vc};
use crate::packet::{CcHeader, Packet, PacketKind, Slab};
use crate::rng::Stream;
use crate::time::Time;
use std::collections::VecDeque;

pub struct Ctx<'a> {
    pub(crate) now: Time,
    pub(crate) events: &'a mut EventQueue,
    pub(crate) slab: &'a mut Slab,
    /// Per-NIC queues of control packets waiting for injection (they go before data).
    pub(crate) control_queues: &'a mut [VecDeque<crate::ids::PacketId>],
    pub(crate) control_bytes: u32,
    pub(crate) rng: &'a mut Stream,
    pub(crate) control_sent: &'a mut u64,
}

impl Ctx<'_> {
    pub fn now(&self) -> Time {
        self.now
    }

    /// The mechanism's own random stream.
    pub fn rng(&mut self) -> &mut Stream {
        self.rng
    }

    /// Queues a control packet of subtype `kind` from NIC `from` to NIC `to` on `vc`. Control
    /// packets are injected before data packets, in the order they were queued.
    pub fn send_control(&mut self, from: NodeId, to: NodeId, vc: Vc, kind: u8, hdr: CcHeader) {
        let pkt = Packet {
            src: from,
            dst: to,
            bytes: self.control_bytes,
            kind: PacketKind::Control(kind),
            vc,
            class: 0,
            qp: 0,
            created: self.now,
            ready: self.now,
            injected: 0,
            head_in: 0,
            tail_in: 0,
            out_port: 0,
            hdr,
        };
        let id = self.slab.alloc(pkt);
        self.control_queues[from as usize].push_back(id);
        *self.control_sent += 1;
        self.events.push(self.now, Event::NicWake { node: from });
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
