//! One FIFO per input buffer: a head waiting for a busy output blocks the packets behind it
//! (head-of-line blocking; the thesis' "1Q").

use super::{Popped, Queueing, Registered};
use crate::ids::{NodeId, PacketId, PortId};
use crate::plugin::NoSettings;
use std::collections::VecDeque;

pub struct Fifo {
    queue: VecDeque<PacketId>,
}

impl Registered for Fifo {
    const ABOUT: &'static str = "One FIFO: a head waiting for a busy output blocks the packets behind it.";
    const DOC: &'static str = "Head-of-line blocking, as a switch with a single queue per input. Control and low-priority VCs always queue this way (SRP paper §4). No settings.\n";
    const PER_OUTPUT: bool = false;
    type Settings = NoSettings;

    fn new(_: &NoSettings, _ports: usize) -> Fifo {
        Fifo { queue: VecDeque::new() }
    }
}

impl Queueing for Fifo {
    fn push(&mut self, pkt: PacketId, _: PortId, _: NodeId, _: u32) -> bool {
        self.queue.push_back(pkt);
        self.queue.len() == 1
    }

    fn pop(&mut self, pkt: PacketId, _: PortId) -> Popped {
        let popped = self.queue.pop_front();
        debug_assert_eq!(popped, Some(pkt));
        Popped::one(self.queue.front().copied())
    }

    fn head(&self, _: PortId) -> Option<PacketId> {
        self.queue.front().copied()
    }

    fn for_each(&self, f: impl FnMut(PacketId)) {
        self.queue.iter().copied().for_each(f)
    }
}
