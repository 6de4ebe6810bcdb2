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

/// The queues of one input. A queue's head packet is kept in its `Ends`, so that the crossbar,
/// which reads every requesting input's heads, reads no node: on large networks that node was
/// one more wait on memory per candidate input. The packets
/// behind the head are a circular list through one pool of nodes per input, entered at its last
/// node, whose `next` is the first. An input holds few packets at a time, so the pool stays
/// small, where a ring of its own per queue gave every queue room whether it held packets or
/// not: 768 bytes per input, a third of a 65,536-host network's memory.
pub struct Voq {
    /// Per output port.
    ends: Vec<Ends>,
    nodes: Vec<Node>,
    /// The first unused node, the others following through `next`.
    free: u32,
}

#[derive(Clone, Copy)]
struct Ends {
    /// The packet at the head of the queue (`PacketId::MAX` when it is empty).
    head: PacketId,
    /// The last node of the packets behind it (`NONE` when the head is alone).
    last: u32,
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
        let Ends { head, last } = self.ends[q];
        let behind = (last != NONE).then(|| self.nodes[last as usize].next);
        let rest = std::iter::successors(behind, move |&n| (n != last).then(|| self.nodes[n as usize].next)).map(|n| self.nodes[n as usize].pkt);
        (head != PacketId::MAX).then_some(head).into_iter().chain(rest)
    }

    /// A node holding `pkt`, from the free list or a new one.
    fn node(&mut self, pkt: PacketId) -> u32 {
        let node = Node { pkt, next: NONE };
        match self.free {
            NONE => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
            n => {
                self.free = self.nodes[n as usize].next;
                self.nodes[n as usize] = node;
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
        Voq { ends: vec![Ends { head: PacketId::MAX, last: NONE }; ports], nodes: Vec::new(), free: NONE }
    }
}
impl Queueing for Voq {
    fn push(&mut self, pkt: PacketId, out: PortId, _: NodeId, _: u32) -> bool {
        if self.ends[out.idx()].head == PacketId::MAX {
            self.ends[out.idx()].head = pkt;
            return true;
        }
        let n = self.node(pkt);
        let last = self.ends[out.idx()].last;
        self.nodes[n as usize].next = match last {
            NONE => n,
            last => std::mem::replace(&mut self.nodes[last as usize].next, n),
        };
        self.ends[out.idx()].last = n;
        false
    }

    fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped {
        let ends = &mut self.ends[out.idx()];
        debug_assert!(ends.head == pkt, "popped a packet that is not the head");
        let last = ends.last;
        if last == NONE {
            ends.head = PacketId::MAX;
            return Popped::one(None);
        }
        let first = self.nodes[last as usize].next;
        let Node { pkt: next, next: after } = self.nodes[first as usize];
        ends.head = next;
        if first == last {
            ends.last = NONE;
        } else {
            self.nodes[last as usize].next = after;
        }
        self.nodes[first as usize].next = self.free;
        self.free = first;
        Popped::one(Some(next))
    }

    fn head(&self, out: PortId) -> Option<PacketId> {
        let head = self.ends.get(out.idx())?.head;
        (head != PacketId::MAX).then_some(head)
    }

    fn prefetch(&self, out: PortId) {
        if let Some(ends) = self.ends.get(out.idx()) {
            crate::hint::prefetch(ends);
        }
    }

    fn for_each(&self, mut f: impl FnMut(PacketId)) {
        (0..self.ends.len()).flat_map(|q| self.iter(q)).for_each(&mut f)
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
        assert!(v.nodes.len() <= 3 + 8, "popped nodes are reused: {} nodes for at most 10 packets", v.nodes.len());
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
