//! Virtual output queues (SRP paper §4): a FIFO per output port, so a packet waits only for its
//! own output (no head-of-line blocking inside the switch; the thesis' "VOQsw").

use super::{Popped, Queueing, Registered};
use crate::ids::{NodeId, PacketId, PortId};
use crate::plugin::Settings;
use serde::{Deserialize, Serialize};

/// `[switch.voq]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VoqSettings {
    /// Each virtual output queue of an input fed by another switch has a buffer of its own
    /// (`input_buffer_*` per output port and VC), with credits per queue upstream; the upstream
    /// switch routes one hop ahead to know which buffer a packet takes. The CBCM paper's routers
    /// (§V-A: "VOQ with four VCs for each output port at each input buffer"); BookSim's `voq`.
    /// Off: the queues of an input share its buffer (SRP paper §4).
    pub per_output_buffers: bool,
}

impl Settings for VoqSettings {
    fn validate(&self) -> crate::error::ConfigResult<()> {
        Ok(())
    }
}

/// The queues of one input. A queue's head packet is kept in its ends, so that the crossbar,
/// which reads every requesting input's heads, reads no node: on large networks that node was
/// one more wait on memory per candidate input (docs/performance.md, 2026-11-27). The packets
/// behind the head are a circular list through one pool of nodes per input, entered at its last
/// node, whose `next` is the first. An input holds few packets at a time, so the pool stays
/// small, where a ring of its own per queue gave every queue room whether it held packets or
/// not: 768 bytes per input, a third of a 65,536-host network's memory.
pub struct Voq {
    /// Per output port, its queue's ends (`Node::pkt` the head packet, `Node::next` the last
    /// node behind it); after them the pool of nodes.
    slots: Vec<Node>,
    /// The first unused node, the others following through `next`.
    free: u32,
    /// How many queues (output ports) lead `slots`.
    ports: u8,
    /// Bit o set while the queue for output o holds a packet, and while it holds more than one:
    /// what its ends hold is read only then. A packet that finds its queue empty and leaves it
    /// empty (most, below saturation) writes them and never waits to read them: at 65,536
    /// hosts a tenth of a run waited on that first read (docs/performance.md, 2026-12-04).
    queued: u64,
    behind: u64,
}

#[derive(Clone, Copy)]
struct Node {
    pkt: PacketId,
    next: u32,
}

const NONE: u32 = u32::MAX;

impl Voq {
    /// Queue `q`'s packets, head first.
    fn iter(&self, q: usize) -> impl Iterator<Item = PacketId> + '_ {
        let Node { pkt: head, next: last } = self.slots[q];
        let head = (self.queued >> q & 1 == 1).then_some(head);
        let rest = (self.behind >> q & 1 == 1).then_some(last).into_iter().flat_map(move |last| {
            std::iter::successors(Some(self.slots[last as usize].next), move |&n| (n != last).then(|| self.slots[n as usize].next))
        });
        head.into_iter().chain(rest.map(|n| self.slots[n as usize].pkt))
    }

    /// A node holding `pkt`, from the free list or a new one.
    fn node(&mut self, pkt: PacketId) -> u32 {
        let node = Node { pkt, next: NONE };
        match self.free {
            NONE => {
                // The pool doubles, not the vector: doubling the ends with it gave every input
                // of a 65,536-host network room for a port's worth of nodes it never used.
                let pool = self.slots.len() - usize::from(self.ports);
                if self.slots.len() == self.slots.capacity() {
                    self.slots.reserve_exact(pool.max(4));
                }
                self.slots.push(node);
                (self.slots.len() - 1) as u32
            }
            n => {
                self.free = self.slots[n as usize].next;
                self.slots[n as usize] = node;
                n
            }
        }
    }
}

impl Registered for Voq {
    const ABOUT: &'static str = "Virtual output queues: a FIFO per output, so no head-of-line blocking (SRP paper §4).";
    const DOC: &'static str = "The SRP paper's switches (§4) and the thesis' (Paper II §IV): each input keeps a FIFO per output port, and every FIFO's head competes for its output.\n\n| key | default | meaning |\n|---|---|---|\n| `per_output_buffers` | `false` | Each queue of an input fed by another switch has a buffer of its own, `input_buffer_*` per output port and VC, with credits per queue upstream; the upstream switch routes one hop ahead (lookahead routing) to know which buffer a packet takes, and takes its credits when it grants the crossbar. The CBCM paper's routers (§V-A: \"VOQ with four VCs for each output port at each input buffer\"). Inputs fed by hosts keep one buffer per VC. `false`: the queues of an input share its buffer (SRP paper §4). |\n";
    const PER_OUTPUT: bool = true;
    type Settings = VoqSettings;

    fn new(_: &VoqSettings, ports: usize) -> Voq {
        // A bit per port in the masks (`config::MAX_SWITCH_PORTS`).
        debug_assert!(ports <= 64);
        Voq { slots: vec![Node { pkt: PacketId::MAX, next: NONE }; ports], free: NONE, ports: ports as u8, queued: 0, behind: 0 }
    }
}
impl Queueing for Voq {
    fn push(&mut self, pkt: PacketId, out: PortId, _: NodeId, _: u32) -> bool {
        let bit = out.bit();
        if self.queued & bit == 0 {
            self.queued |= bit;
            self.slots[out.idx()].pkt = pkt;
            return true;
        }
        let n = self.node(pkt);
        self.slots[n as usize].next = if self.behind & bit == 0 {
            self.behind |= bit;
            n
        } else {
            let last = self.slots[out.idx()].next;
            std::mem::replace(&mut self.slots[last as usize].next, n)
        };
        self.slots[out.idx()].next = n;
        false
    }

    fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped {
        let bit = out.bit();
        debug_assert!(self.queued & bit != 0 && self.slots[out.idx()].pkt == pkt, "popped a packet that is not the head");
        if self.behind & bit == 0 {
            self.queued &= !bit;
            return Popped::one(None);
        }
        let last = self.slots[out.idx()].next;
        let first = self.slots[last as usize].next;
        let Node { pkt: next, next: after } = self.slots[first as usize];
        self.slots[out.idx()].pkt = next;
        if first == last {
            self.behind &= !bit;
        } else {
            self.slots[last as usize].next = after;
        }
        self.slots[first as usize].next = self.free;
        self.free = first;
        Popped::one(Some(next))
    }

    fn head(&self, out: PortId) -> Option<PacketId> {
        // A port past the last has no queue, and never its bit.
        (out.idx() < 64 && self.queued & out.bit() != 0).then(|| self.slots[out.idx()].pkt)
    }

    fn for_each(&self, mut f: impl FnMut(PacketId)) {
        (0..64).filter(|q| self.queued >> q & 1 == 1).flat_map(|q| self.iter(q)).for_each(&mut f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn queues_keep_their_order_through_a_shared_pool_that_reuses_nodes() {
        let mut v = Voq::new(&VoqSettings::default(), 3);
        let (a, b) = (PortId::new(0), PortId::new(2));
        let mut expect_a: VecDeque<u32> = VecDeque::new();
        for k in 0..3u32 {
            assert_eq!(v.push(PacketId(100 + k), a, NodeId(0), 1), k == 0);
            expect_a.push_back(100 + k);
        }
        // Queue b fills and drains while queue a's packets stay; b's nodes are reused.
        let mut expect_b: VecDeque<u32> = VecDeque::new();
        for k in 0..20u32 {
            assert_eq!(v.push(PacketId(k), b, NodeId(0), 1), expect_b.is_empty());
            expect_b.push_back(k);
            if k % 3 != 2 {
                let head = expect_b.pop_front().unwrap();
                assert_eq!(v.pop(PacketId(head), b).next[0].map(|p| p.0), expect_b.front().copied());
            }
        }
        assert!(v.slots.len() <= 3 + 3 + 8, "popped nodes are reused: {} nodes for at most 10 packets", v.slots.len() - 3);
        assert_eq!(v.head(a), Some(PacketId(100)));
        assert_eq!(v.head(PortId::new(1)), None);
        assert_eq!(v.head(PortId::new(3)), None, "a port past the last has no queue");
        let mut all = Vec::new();
        v.for_each(|p| all.push(p.0));
        assert_eq!(all, expect_a.iter().chain(&expect_b).copied().collect::<Vec<_>>());
        // Emptied, a queue takes packets again.
        while let Some(head) = expect_a.pop_front() {
            v.pop(PacketId(head), a);
        }
        assert_eq!(v.head(a), None);
        assert!(v.push(PacketId(7), a, NodeId(0), 1));
        assert_eq!(v.head(a), Some(PacketId(7)));
    }
}
