//! Virtual output queues (SRP paper §4): a FIFO per output port, so a packet waits only for its
//! own output (no head-of-line blocking inside the switch; the thesis' "VOQsw").

use super::{Queueing, Registered};
use crate::ids::{PacketId, PortId};
use crate::plugin::NoSettings;
use std::collections::VecDeque;

pub struct Voq {
    queues: Vec<VecDeque<PacketId>>,
}

impl Registered for Voq {
    const ABOUT: &'static str = "Virtual output queues: a FIFO per output, so no head-of-line blocking (SRP paper §4).";
    const DOC: &'static str = "The SRP paper's switches (§4) and the thesis' (Paper II §IV): each input keeps a FIFO per output port, and every FIFO's head competes for its output. No settings.\n";
    const PER_OUTPUT: bool = true;
    type Settings = NoSettings;

    fn new(_: &NoSettings, ports: usize) -> Voq {
        Voq { queues: vec![VecDeque::new(); ports] }
    }
}

impl Queueing for Voq {
    fn push(&mut self, pkt: PacketId, out: PortId) -> bool {
        let q = &mut self.queues[out.idx()];
        q.push_back(pkt);
        q.len() == 1
    }

    fn pop(&mut self, pkt: PacketId, out: PortId) -> (Option<PacketId>, bool) {
        let q = &mut self.queues[out.idx()];
        let popped = q.pop_front();
        debug_assert_eq!(popped, Some(pkt));
        (q.front().copied(), false)
    }

    fn head(&self, out: PortId) -> Option<PacketId> {
        self.queues.get(out.idx()).and_then(|q| q.front().copied())
    }

    fn for_each(&self, f: impl FnMut(PacketId)) {
        self.queues.iter().flatten().copied().for_each(f)
    }
}
