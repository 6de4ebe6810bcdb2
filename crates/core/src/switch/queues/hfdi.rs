//! Congested-flow isolation on VOQ switches after HFDI (thesis Paper VI §III-B and §IV, EcoCC
//! without throttling): every input keeps a cold-packet queue (CPQ) per output port, its
//! virtual output queues, and a few hot-packet queues (HPQs) with CAM lines.
//!
//! - **Detection** is exact (§III-B): a CPQ holding more than `hth_bytes` makes its output a
//!   root. A root line is created with the destinations the CPQ holds (its `dList`, at most
//!   `dlist` of them) and goes upstream at once; no HPQ is taken at the root, whose packets are
//!   isolated in their CPQ already.
//! - **Upstream**, the output that receives the line keeps it in its CAM; an input of that
//!   switch allocates an HPQ the first time a packet at the head of its CPQ for that output is
//!   for one of the line's destinations (lazy allocation), and such packets move into the HPQ at
//!   the CPQ's head (post-processing).
//! - **HPQs** use the same two thresholds: the first time above `hth_bytes` an HPQ's line goes
//!   upstream, later ones stop the sender upstream, and at `lth_bytes` it goes on. A root line
//!   never stops the sender: Stop & Go run between consecutive HPQs only (§III-B), so a root
//!   CPQ may fill its input buffer (the buffer hogging that EcoCC's throttling removes).
//! - **Deallocation**: an empty HPQ (or a root line whose CPQ has emptied) is freed and the
//!   sender upstream told.
//!
//! The CPQs and HPQs share the input buffer (Paper VI's results depend on a full VOQ hogging
//! it). EcoCC is this organization with IB CC marking at outputs whose CPQ passes HTh
//! (`cc.mechanism = "ibcc"`, per-VoQ threshold). What the thesis leaves open, and our choices:
//! a root line's destinations are those in its CPQ when it is detected; a root line is freed
//! when its CPQ empties, as an HPQ is; an output serves an input's CPQ and HPQs in turn.

use super::isolation::{Effect, Entry, HotQueues, Isolating, Line, Thresholds, MAX_HOT_QUEUES};
use super::{Popped, Queueing, Registered};
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, PacketId, PortId};
use crate::plugin::Settings;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[switch.hfdi]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HfdiSettings {
    /// HPQs (and their CAM lines) per input: 2 (thesis Paper VI §IV).
    pub hpqs: u32,
    /// HTh, the high threshold of CPQs and HPQs: 8,192 bytes, 4 packets of 2 KB (Paper VI §IV).
    pub hth_bytes: u32,
    /// LTh, the low threshold: 4,096 bytes, 2 packets (Paper VI leaves it open; its supplement
    /// asks HTh - LTh >= 2 MTUs: our choice, the largest such).
    pub lth_bytes: u32,
    /// Destinations a line can hold (its `dList`): 8 (Paper VI §IV for 64 nodes; 16 for 256,
    /// 32 for 1,024).
    pub dlist: u32,
}

impl Default for HfdiSettings {
    fn default() -> Self {
        HfdiSettings { hpqs: 2, hth_bytes: 8_192, lth_bytes: 4_096, dlist: 8 }
    }
}

impl Settings for HfdiSettings {
    fn validate(&self) -> ConfigResult<()> {
        if self.hpqs == 0 || self.hpqs > MAX_HOT_QUEUES {
            return Err(ConfigError::new("switch.hfdi.hpqs", format!("must be 1 to {MAX_HOT_QUEUES}, got {} (input_queues = \"voq\" has none)", self.hpqs)));
        }
        if self.lth_bytes >= self.hth_bytes {
            return Err(ConfigError::new("switch.hfdi.lth_bytes", format!("must be below hth_bytes ({}), got {}", self.hth_bytes, self.lth_bytes)));
        }
        if self.dlist == 0 {
            return Err(ConfigError::new("switch.hfdi.dlist", "must be at least 1: a line names the destinations it isolates"));
        }
        Ok(())
    }
}

/// HFDI's state is boxed: every input buffer of every switch holds a `Queues`, as large as the
/// largest organization, and most runs' organization (`voq`) takes 32 bytes
/// (`queues::QUEUES_BYTES`).
pub struct Hfdi {
    s: Box<State>,
}

struct State {
    dlist: usize,
    /// Per output port: its CPQ and the bytes in it.
    cpqs: Vec<VecDeque<Entry>>,
    cpq_bytes: Vec<u32>,
    /// Per output port: the root line its CPQ made, if it is a root.
    roots: Vec<Option<Line>>,
    hpqs: HotQueues,
    /// The queue (0 the CPQ, k the HPQ in slot k - 1) an output is offered first next time.
    turn: usize,
    effects: Vec<Effect>,
}

impl Registered for Hfdi {
    const ABOUT: &'static str = "VOQs (CPQs) and a few HPQs per input with CAM lines, exact root detection and Stop & Go (HFDI, thesis Paper VI; EcoCC with IB CC).";
    const DOC: &'static str = "Congested-flow isolation on VOQ switches (thesis Paper VI §III-B, HFDI; EcoCC when IB CC marks too): every input keeps a cold-packet queue (CPQ) per output port and `hpqs` hot-packet queues (HPQs) with CAM lines. A CPQ above `hth_bytes` makes its output a root: a line with the destinations the CPQ holds (at most `dlist`) goes upstream at once, and no HPQ is taken at the root. The output upstream keeps the line; an input there allocates an HPQ the first time a packet at the head of its CPQ for that output is for one of the line's destinations, and such packets move into it. An HPQ above `hth_bytes` sends its line further up the first time, stops the sender upstream the next times, and lets it go at `lth_bytes` (a root never stops it: Stop & Go run between HPQs); an empty HPQ (or a root whose CPQ emptied) is freed and the sender upstream told. CPQs and HPQs share the input buffer. With `cc.mechanism = \"ibcc\"` at threshold weight 15 over a 128 KB buffer (8 KB, HTh) and 4 KB of hysteresis (LTh) it is EcoCC. Needs credit flow control and a routing that keeps a packet on one VC; set `switch.read_ports` to the port count for Paper VI's switches.\n\n| key | default | meaning |\n|---|---|---|\n| `hpqs` | `2` | HPQs and their CAM lines per input, 1 to 16 (Paper VI §IV). |\n| `hth_bytes` | `8192` | HTh: 4 packets of 2 KB (Paper VI §IV). |\n| `lth_bytes` | `4096` | LTh: 2 packets (not given; Paper VI's supplement asks HTh - LTh >= 2 MTUs: our choice). |\n| `dlist` | `8` | Destinations per line (Paper VI §IV: 8 for 64 nodes, 16 for 256, 32 for 1,024). |\n";
    const PER_OUTPUT: bool = true;
    const ISOLATES: bool = true;
    type Settings = HfdiSettings;

    fn new(s: &HfdiSettings, ports: usize) -> Hfdi {
        // Above HTh (strictly) the line goes upstream; the next time, it stops the sender.
        let thresholds = Thresholds { propagate: s.hth_bytes + 1, stop: s.hth_bytes + 1, go: s.lth_bytes };
        let state = State {
            dlist: s.dlist as usize,
            cpqs: vec![VecDeque::new(); ports],
            cpq_bytes: vec![0; ports],
            roots: vec![None; ports],
            hpqs: HotQueues::new(s.hpqs, thresholds),
            turn: 0,
            effects: Vec::new(),
        };
        Hfdi { s: Box::new(state) }
    }
}

impl Hfdi {
    /// The heads offered to output `out`, in turn order: its CPQ's and the HPQs' whose head
    /// leaves by `out` (queue index: 0 the CPQ, k the HPQ in slot k - 1).
    fn heads_for(&self, out: PortId) -> impl Iterator<Item = (usize, Entry)> + '_ {
        let n = self.s.hpqs.slots.len() + 1;
        (0..n).map(move |k| (self.s.turn + k) % n).filter_map(move |q| {
            let head = match q {
                0 => self.s.cpqs.get(out.idx())?.front(),
                k => self.s.hpqs.slots[k - 1].as_ref()?.queue.front(),
            };
            head.copied().filter(|e| e.out == out).map(|e| (q, e))
        })
    }

    /// Post-processing at the head of output `o`'s CPQ (its packets that an HPQ takes move
    /// there), then detection: the CPQ's occupancy against the thresholds, as a root line.
    fn settle(&mut self, o: usize) {
        let out = PortId::new(o);
        while let Some(&e) = self.s.cpqs[o].front() {
            let followed = self.s.hpqs.followed.iter().any(|f| f.out == out && f.dests.contains(&e.dst));
            let slot = match self.s.hpqs.slot_of(e.dst, out) {
                Some(slot) => Some(slot),
                None if followed => self.s.hpqs.for_packet(e.dst, out),
                None => None,
            };
            let Some(slot) = slot else { break };
            self.s.cpqs[o].pop_front();
            self.s.cpq_bytes[o] -= e.bytes;
            self.s.hpqs.push(slot, e, &mut self.s.effects);
        }
        let bytes = self.s.cpq_bytes[o];
        if self.s.roots[o].is_none() && bytes >= self.s.hpqs.thresholds.propagate {
            let mut dests: Vec<NodeId> = Vec::new();
            for e in &self.s.cpqs[o] {
                if dests.len() < self.s.dlist && !dests.contains(&e.dst) {
                    dests.push(e.dst);
                }
            }
            let id = self.s.hpqs.new_id();
            self.s.roots[o] = Some(Line { id, dests, follows: None, propagated: false, sent_stop: false, held: false });
        }
        if let Some(root) = self.s.roots[o].as_mut() {
            // Stop & Go run between HPQs (§III-B): a root only sends its line up, and back.
            let t = Thresholds { stop: u32::MAX, ..self.s.hpqs.thresholds };
            root.crossed(bytes, t, &mut self.s.effects);
            if bytes == 0 {
                root.release(&mut self.s.effects);
                self.s.roots[o] = None;
            }
        }
    }
}

impl Isolating for Hfdi {
    fn follow(&mut self, out: PortId, id: u32, dests: &[NodeId], on: bool) {
        self.s.hpqs.follow(out, id, dests, on);
        if on && out.idx() < self.s.cpqs.len() {
            self.tracked(0, |h| h.settle(out.idx()));
        }
    }

    fn hold(&mut self, out: PortId, id: u32, on: bool) {
        self.s.hpqs.hold(out, id, on, &mut self.s.effects);
    }

    fn hot(&self) -> &HotQueues {
        &self.s.hpqs
    }

    fn hot_mut(&mut self) -> &mut HotQueues {
        &mut self.s.hpqs
    }

    fn lines_in_use(&self) -> usize {
        self.s.hpqs.in_use() + self.s.roots.iter().flatten().count()
    }

    fn take_effects(&mut self, into: &mut Vec<Effect>) {
        into.append(&mut self.s.effects);
    }

    fn offered(&self) -> u64 {
        let cpqs = self.s.cpqs.iter().enumerate().filter(|(_, q)| !q.is_empty()).fold(0, |m, (o, _)| m | 1 << o);
        self.s.hpqs.slots.iter().flatten().filter_map(|q| q.queue.front()).fold(cpqs, |m, e| m | e.out.bit())
    }

    fn effects(&mut self) -> &mut Vec<Effect> {
        &mut self.s.effects
    }
}

impl Queueing for Hfdi {
    /// Reports the packets newly offered in `take_effects`, not here.
    fn push(&mut self, pkt: PacketId, out: PortId, dst: NodeId, bytes: u32) -> bool {
        self.tracked(0, |h| {
            h.s.cpqs[out.idx()].push_back(Entry { pkt, out, dst, bytes });
            h.s.cpq_bytes[out.idx()] += bytes;
            h.settle(out.idx());
        });
        false
    }

    /// Reports the packets newly offered in `take_effects`, not here.
    fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped {
        self.tracked(out.bit(), |h| {
            let (q, _) = h.heads_for(out).find(|(_, e)| e.pkt == pkt).expect("the buffer offered this output the packet");
            h.s.turn = (q + 1) % (h.s.hpqs.slots.len() + 1);
            match q {
                0 => {
                    let e = h.s.cpqs[out.idx()].pop_front().expect("a head");
                    h.s.cpq_bytes[out.idx()] -= e.bytes;
                }
                k => {
                    h.s.hpqs.pop(k - 1, &mut h.s.effects);
                }
            }
            h.settle(out.idx());
        });
        Popped::default()
    }

    fn head(&self, out: PortId) -> Option<PacketId> {
        self.heads_for(out).next().map(|(_, e)| e.pkt)
    }

    fn offer(&self, out: PortId, fits: &mut dyn FnMut(PacketId) -> bool) -> Option<PacketId> {
        self.heads_for(out).map(|(_, e)| e.pkt).find(|&p| fits(p))
    }

    fn for_each(&self, mut f: impl FnMut(PacketId)) {
        self.s.cpqs.iter().flatten().for_each(|e| f(e.pkt));
        self.s.hpqs.slots.iter().flatten().flat_map(|q| &q.queue).for_each(|e| f(e.pkt));
    }

    fn check(&self, out_of: &dyn Fn(PacketId) -> PortId, pinned: bool) -> Result<(), String> {
        if pinned {
            return Err("pinned, but the organization never pins".into());
        }
        self.s.hpqs.check()?;
        let mut seen = rustc_hash::FxHashSet::default();
        for (o, q) in self.s.cpqs.iter().enumerate() {
            if q.iter().map(|e| e.bytes).sum::<u32>() != self.s.cpq_bytes[o] {
                return Err(format!("CPQ {o} miscounts its bytes"));
            }
            if q.iter().any(|e| e.out.idx() != o) {
                return Err(format!("CPQ {o} holds a packet for another output"));
            }
            if q.front().is_some_and(|e| self.s.hpqs.slot_of(e.dst, e.out).is_some()) {
                return Err(format!("the head of CPQ {o} belongs in an HPQ (post-processing missed it)"));
            }
            if self.s.roots[o].is_some() && q.is_empty() {
                return Err(format!("CPQ {o} is empty but still a root"));
            }
        }
        for e in self.s.cpqs.iter().flatten().chain(self.s.hpqs.slots.iter().flatten().flat_map(|q| &q.queue)) {
            if !seen.insert(e.pkt) {
                return Err(format!("packet {} is in two queues", e.pkt));
            }
            if out_of(e.pkt) != e.out {
                return Err(format!("packet {} is queued for another output than its route's", e.pkt));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::switch::queues::isolation::testing::{effects, push, signal};
    use crate::switch::queues::isolation::Signal;

    #[test]
    fn a_cpq_above_hth_is_a_root_whose_line_goes_up_and_is_freed_when_it_empties() {
        let mut h = Hfdi::new(&HfdiSettings::default(), 4);
        for (p, dst) in [(0, 7), (1, 8), (2, 7), (3, 7)] {
            push(&mut h, p, 1, dst);
        }
        assert_eq!(effects(&mut h), [Effect::Offer(PacketId(0))]);
        // The fifth packet takes the CPQ above HTh (4 packets): a root line with the
        // destinations it holds goes upstream; no HPQ is taken.
        push(&mut h, 4, 1, 9);
        assert_eq!(effects(&mut h), [signal(1, Signal::Allocate, &[7, 8, 9])]);
        assert_eq!((h.hot().in_use(), h.lines_in_use()), (0, 1));
        // A root never stops the sender (Stop & Go run between HPQs).
        push(&mut h, 5, 1, 7);
        assert_eq!(effects(&mut h), []);
        for p in 0..4 {
            h.pop(PacketId(p), PortId(1));
        }
        h.pop(PacketId(4), PortId(1));
        h.pop(PacketId(5), PortId(1));
        assert_eq!(effects(&mut h).last(), Some(&signal(1, Signal::Deallocate, &[])));
        assert_eq!(h.lines_in_use(), 0);
    }

    #[test]
    fn the_time_with_no_free_hpq_is_counted_from_the_last_allocation_to_the_first_release() {
        let mut h = Hfdi::new(&HfdiSettings::default(), 4);
        h.follow(PortId(0), 3, &[NodeId(8)], true);
        h.follow(PortId(1), 4, &[NodeId(9)], true);
        push(&mut h, 0, 0, 8);
        h.hot_mut().clock(100);
        assert_eq!(h.hot().none_free_until(200), 0, "one of two HPQs is free");
        push(&mut h, 1, 1, 9);
        h.hot_mut().clock(250);
        assert_eq!(h.hot().none_free_until(300), 50, "an interval still open counts up to now");
        h.pop(PacketId(0), PortId(0));
        h.hot_mut().clock(400);
        h.hot_mut().clock(500);
        assert_eq!(h.hot().none_free_until(900), 150);
    }

    #[test]
    fn a_followed_line_takes_an_hpq_at_the_cpq_head_and_frees_the_rest() {
        let mut h = Hfdi::new(&HfdiSettings { hpqs: 1, ..HfdiSettings::default() }, 4);
        // Output 2's line 5 isolates 7 and 8 downstream.
        h.follow(PortId(2), 5, &[NodeId(7), NodeId(8)], true);
        push(&mut h, 0, 2, 7);
        push(&mut h, 1, 2, 9);
        push(&mut h, 2, 2, 8);
        assert_eq!(h.hot().in_use(), 1);
        // The HPQ and the CPQ both offer output 2; held, the HPQ's packets stay, and 9's go.
        h.hold(PortId(2), 5, true);
        assert_eq!(h.offer(PortId(2), &mut |p| p != PacketId(0)), Some(PacketId(1)));
        h.pop(PacketId(1), PortId(2));
        assert!(h.check(&|_| PortId(2), false).is_ok());
        // Another destination's line finds no free HPQ: its packets stay in the CPQ.
        h.follow(PortId(3), 6, &[NodeId(4)], true);
        push(&mut h, 3, 3, 4);
        assert!(h.hot().exhausted > 0);
        assert_eq!(h.head(PortId(3)), Some(PacketId(3)));
    }

    #[test]
    fn an_hpq_sends_its_line_up_then_stops_and_lets_go_the_sender() {
        let mut h = Hfdi::new(&HfdiSettings::default(), 4);
        h.follow(PortId(0), 3, &[NodeId(9)], true);
        for p in 0..5 {
            push(&mut h, p, 0, 9);
        }
        assert_eq!(effects(&mut h), [Effect::Offer(PacketId(0)), signal(1, Signal::Allocate, &[9])]);
        push(&mut h, 5, 0, 9);
        assert_eq!(effects(&mut h), [signal(1, Signal::Stop, &[])]);
        for p in 0..4 {
            h.pop(PacketId(p), PortId(0));
        }
        assert!(effects(&mut h).contains(&signal(1, Signal::Go, &[])), "at LTh it goes on");
    }
}
