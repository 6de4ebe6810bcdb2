//! NIC state: per-destination send queues (queue pairs, SRP paper §4) served round-robin, a
//! queue of mechanism control packets that go first, and credits for the first switch's buffer.

use crate::ids::{ChannelId, ClassId, NodeId, PacketId, QpId};
use crate::time::Time;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

pub struct Message {
    pub class: ClassId,
    /// Traffic source that generated it (greedy sources make the next one when it is sent).
    pub source: u32,
    pub packets: u32,
    pub sent: u32,
    pub created: Time,
}

pub struct SendQueue {
    pub src: NodeId,
    pub dst: NodeId,
    pub messages: VecDeque<Message>,
    /// Packets handed back by the mechanism (e.g. SRP's dropped speculative packets): they go
    /// before the messages' new packets, through the same injection gate.
    pub retx: VecDeque<crate::packet::Packet>,
    /// When the current head packet became the head (its `ready` time).
    pub head_since: Time,
    /// In the NIC's round-robin ring.
    pub active: bool,
}

pub struct Nic {
    pub out: ChannelId,
    pub inp: ChannelId,
    pub credits: Vec<u32>,
    pub link_busy: bool,
    /// The packet on the injection link is a control packet (which others do not interleave).
    pub sending_control: bool,
    /// Link time taken by control packets interleaved into the current transmission.
    pub stretch: crate::time::Time,
    /// Active send queues in round-robin order: the front is served next.
    pub ring: VecDeque<QpId>,
    /// Send queue of each destination, created on first use. Looked up, never iterated, so its
    /// order cannot leak into results.
    pub qp_of: FxHashMap<NodeId, QpId>,
    /// Earliest pending wake-up, to avoid scheduling duplicates.
    pub wake_at: Option<Time>,
}

impl Nic {
    pub fn new(out: ChannelId, inp: ChannelId, credits: Vec<u32>) -> Nic {
        Nic { out, inp, credits, link_busy: false, sending_control: false, stretch: 0, ring: VecDeque::new(), qp_of: FxHashMap::default(), wake_at: None }
    }
}

/// Send queues of every NIC in one slab; emptied queues are recycled (see
/// `Mechanism::release_queue`).
#[derive(Default)]
pub struct SendQueues {
    pub slots: Vec<SendQueue>,
    pub free: Vec<QpId>,
}

impl SendQueues {
    pub fn open(&mut self, src: NodeId, dst: NodeId) -> QpId {
        match self.free.pop() {
            Some(id) => {
                let q = &mut self.slots[id as usize];
                q.src = src;
                q.dst = dst;
                id
            }
            None => {
                self.slots.push(SendQueue { src, dst, messages: VecDeque::new(), retx: VecDeque::new(), head_since: 0, active: false });
                (self.slots.len() - 1) as QpId
            }
        }
    }
}

/// Control packets waiting at each NIC.
pub type ControlQueues = Vec<VecDeque<PacketId>>;
