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

/// The queues of one input, in one array: queue `q` is the segment `q * (2 + cap)`: its
/// head's offset, its length, then a ring of `cap` packet ids. A queue's head is one read away
/// from the input (a `VecDeque` per queue made it two, each a cache miss on large networks:
/// docs/performance.md, 2026-11-26); a queue that outgrows `cap` doubles every ring.
pub struct Voq {
    rings: Vec<u32>,
    cap: usize,
}

impl Voq {
    /// Queues of the input: one per output port.
    fn queues(&self) -> usize {
        self.rings.len() / (2 + self.cap)
    }

    fn span(&self, q: usize) -> std::ops::Range<usize> {
        q * (2 + self.cap)..(q + 1) * (2 + self.cap)
    }

    fn segment(&self, q: usize) -> &[u32] {
        &self.rings[self.span(q)]
    }

    fn segment_mut(&mut self, q: usize) -> &mut [u32] {
        let span = self.span(q);
        &mut self.rings[span]
    }

    fn front(&self, q: usize) -> Option<PacketId> {
        let seg = self.segment(q);
        (seg[1] > 0).then(|| PacketId(seg[2 + seg[0] as usize]))
    }

    /// Queue `q`'s packets, head first.
    fn iter(&self, q: usize) -> impl Iterator<Item = PacketId> + '_ {
        let seg = self.segment(q);
        (0..seg[1] as usize).map(move |k| PacketId(seg[2 + (seg[0] as usize + k) % self.cap]))
    }

    /// Doubles every ring, each queue's packets moved to its start in order.
    fn grow(&mut self) {
        let queues = self.queues();
        let cap = self.cap * 2;
        let mut rings = vec![0; queues * (2 + cap)];
        for q in 0..queues {
            let seg = &mut rings[q * (2 + cap)..(q + 1) * (2 + cap)];
            seg[1] = self.segment(q)[1];
            for (k, p) in self.iter(q).enumerate() {
                seg[2 + k] = p.0;
            }
        }
        (self.rings, self.cap) = (rings, cap);
    }
}

impl Registered for Voq {
    const ABOUT: &'static str = "Virtual output queues: a FIFO per output, so no head-of-line blocking (SRP paper §4).";
    const DOC: &'static str = "The SRP paper's switches (§4) and the thesis' (Paper II §IV): each input keeps a FIFO per output port, and every FIFO's head competes for its output.\n\n| key | default | meaning |\n|---|---|---|\n| `per_output_buffers` | `false` | Each queue of an input fed by another switch has a buffer of its own, `input_buffer_*` per output port and VC, with credits per queue upstream; the upstream switch routes one hop ahead (lookahead routing) to know which buffer a packet takes, and takes its credits when it grants the crossbar. The CBCM paper's routers (§V-A: \"VOQ with four VCs for each output port at each input buffer\"). Inputs fed by hosts keep one buffer per VC. `false`: the queues of an input share its buffer (SRP paper §4). |\n";
    const PER_OUTPUT: bool = true;
    type Settings = VoqSettings;

    fn new(_: &VoqSettings, ports: usize) -> Voq {
        // Room for 4 packets per queue until one holds more.
        Voq { rings: vec![0; ports * (2 + 4)], cap: 4 }
    }
}
impl Queueing for Voq {
    fn push(&mut self, pkt: PacketId, out: PortId, _: NodeId, _: u32) -> bool {
        if self.segment(out.idx())[1] as usize == self.cap {
            self.grow();
        }
        let cap = self.cap;
        let seg = self.segment_mut(out.idx());
        seg[2 + (seg[0] as usize + seg[1] as usize) % cap] = pkt.0;
        seg[1] += 1;
        seg[1] == 1
    }

    fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped {
        let cap = self.cap as u32;
        let seg = self.segment_mut(out.idx());
        debug_assert!(seg[1] > 0 && seg[2 + seg[0] as usize] == pkt.0, "popped a packet that is not the head");
        seg[0] = (seg[0] + 1) % cap;
        seg[1] -= 1;
        Popped::one(self.front(out.idx()))
    }

    fn head(&self, out: PortId) -> Option<PacketId> {
        (out.idx() < self.queues()).then(|| self.front(out.idx())).flatten()
    }

    fn for_each(&self, mut f: impl FnMut(PacketId)) {
        (0..self.queues()).flat_map(|q| self.iter(q)).for_each(&mut f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn rings_keep_each_queue_in_order_across_wraps_and_growth() {
        let mut v = Voq::new(&VoqSettings::default(), 3);
        let (a, b) = (PortId::new(0), PortId::new(2));
        let mut expect_a: VecDeque<u32> = VecDeque::new();
        // Queue b wraps its first ring (pops make room), then outgrows it twice while queue a
        // holds packets that must survive each move.
        for k in 0..3u32 {
            assert_eq!(v.push(PacketId(100 + k), a, NodeId(0), 1), k == 0);
            expect_a.push_back(100 + k);
        }
        let mut expect_b: VecDeque<u32> = VecDeque::new();
        for k in 0..20u32 {
            v.push(PacketId(k), b, NodeId(0), 1);
            expect_b.push_back(k);
            if k % 3 == 0 {
                let head = expect_b.pop_front().unwrap();
                assert_eq!(v.pop(PacketId(head), b).next[0].map(|p| p.0), expect_b.front().copied());
            }
        }
        assert_eq!(v.head(a), Some(PacketId(100)));
        assert_eq!(v.head(PortId::new(1)), None);
        assert_eq!(v.head(PortId::new(3)), None, "a port past the last has no queue");
        let mut all = Vec::new();
        v.for_each(|p| all.push(p.0));
        assert_eq!(all, expect_a.iter().chain(&expect_b).copied().collect::<Vec<_>>());
    }
}
