//! Congested-flow isolation after FBICM (thesis Paper V §III-B and §IV-A, Figs. 1 and 3): every
//! input keeps a normal flow queue (NFQ) and a few congested flow queues (CFQs), each CFQ with a
//! CAM line naming the destination whose packets it isolates.
//!
//! - **Detection** (Fig. 3 event #2): when the NFQ holds more than `detect_bytes`, a free CFQ is
//!   allocated to the destination of the NFQ's head, the congestion point Paper VI §II says
//!   CCFIT takes ("the output port requested by the packet at the head of the filled queue").
//! - **Post-processing** (event #3): a packet reaching the NFQ's head whose destination a CFQ
//!   isolates moves into that CFQ, so only packets of uncongested flows wait at the NFQ's head.
//! - **Propagation** (events #4, #5): a CFQ holding `propagate_bytes` sends its CAM line
//!   upstream (`Signal::Allocate`); the output there records it in its CAM, and the inputs
//!   there follow it (`Isolating::follow`): a CFQ of theirs takes its packets for that output
//!   as they reach the NFQ's head.
//! - **Stop & Go** (event #5): a CFQ holding `stop_bytes` tells the output upstream to stop
//!   sending its destination's packets, and to go on once it is down to `go_bytes`; the packets
//!   held there wait in that switch's CFQs, not in its NFQs.
//! - **Deallocation** (event #6): an empty CFQ not held by a Stop from downstream is freed, and
//!   if it had propagated, so is the line upstream (`Signal::Deallocate`).
//!
//! The buffer stays one pool of `input_buffer_*` shared by the NFQ and the CFQs (Paper V §IV-A:
//! "dynamically managed queues"), with credits for the whole of it upstream. What the thesis
//! leaves open, and our choices: a line detected here holds one destination (FBICM stores a set,
//! Paper V footnote 3; a hot spot's tree is one destination; a line followed from downstream
//! keeps the set it came with); the control information travels out of
//! band with the link's latency, as credits do; an output offers its turn to the NFQ and the
//! CFQs of an input in round-robin order.

use super::isolation::{Effect, Entry, HotQueues, Isolating, Thresholds, MAX_HOT_QUEUES};
use super::{Popped, Queueing, Registered};
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, PacketId, PortId};
use crate::plugin::Settings;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[switch.fbicm]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FbicmSettings {
    /// CFQs (and CAM lines) per input: 2 (thesis Paper V §V-A: "2 CFQs per input port").
    pub cfqs: u32,
    /// NFQ bytes above which congestion is detected: 16,384, 8 MTUs of 2 KB, a quarter of the
    /// 64 KB input buffer (Paper V leaves the value open: our choice, docs/validation.md).
    pub detect_bytes: u32,
    /// CFQ bytes at which its line is propagated upstream: 8,192, 4 MTUs (Paper V leaves it
    /// open; our choice, at the Go threshold so that upstream isolates before it is stopped).
    pub propagate_bytes: u32,
    /// CFQ bytes at which the output upstream stops its destination's packets: 20,480, 10 MTUs
    /// (Paper V §V-A).
    pub stop_bytes: u32,
    /// CFQ bytes at which it lets them go again: 8,192, 4 MTUs (Paper V §V-A).
    pub go_bytes: u32,
}

impl Default for FbicmSettings {
    fn default() -> Self {
        FbicmSettings { cfqs: 2, detect_bytes: 16_384, propagate_bytes: 8_192, stop_bytes: 20_480, go_bytes: 8_192 }
    }
}

impl Settings for FbicmSettings {
    fn validate(&self) -> ConfigResult<()> {
        if self.cfqs == 0 || self.cfqs > MAX_HOT_QUEUES {
            return Err(ConfigError::new("switch.fbicm.cfqs", format!("must be 1 to {MAX_HOT_QUEUES}, got {} (input_queues = \"fifo\" has none)", self.cfqs)));
        }
        if self.detect_bytes == 0 {
            return Err(ConfigError::new("switch.fbicm.detect_bytes", "must be above 0: an empty NFQ is not congested"));
        }
        if self.go_bytes >= self.stop_bytes {
            return Err(ConfigError::new(
                "switch.fbicm.go_bytes",
                format!("must be below stop_bytes ({}), got {}: a CFQ stopped at stop_bytes must drain before it goes on", self.stop_bytes, self.go_bytes),
            ));
        }
        if self.propagate_bytes > self.stop_bytes {
            return Err(ConfigError::new(
                "switch.fbicm.propagate_bytes",
                format!("must be at most stop_bytes ({}), got {}: upstream must isolate the packets a Stop holds there", self.stop_bytes, self.propagate_bytes),
            ));
        }
        Ok(())
    }
}

/// FBICM's state is boxed: every input buffer of every switch holds a `Queues`, as large as the
/// largest organization, and most runs' organization (`voq`) takes 32 bytes
/// (`queues::QUEUES_BYTES`).
pub struct Fbicm {
    s: Box<State>,
}

struct State {
    settings: FbicmSettings,
    nfq: VecDeque<Entry>,
    nfq_bytes: u32,
    cfqs: HotQueues,
    /// The queue (0 the NFQ, k the CFQ in slot k - 1) an output is offered first next time.
    turn: usize,
    /// What the last changes ask of the switch, in order; it drains them (`take_effects`).
    effects: Vec<Effect>,
}

impl Registered for Fbicm {
    const ABOUT: &'static str = "An NFQ and a few CFQs per input, with CAM lines, Stop & Go and propagation upstream (FBICM, thesis Paper V).";
    const DOC: &'static str = "Congested-flow isolation after FBICM (thesis Paper V §III-B and §IV-A): every input keeps a normal flow queue (NFQ) and `cfqs` congested flow queues (CFQs), each with a CAM line naming the destination it isolates. When the NFQ holds more than `detect_bytes`, a CFQ is allocated to the destination of its head; a packet reaching the NFQ's head whose destination a CFQ isolates moves into that CFQ. A CFQ holding `propagate_bytes` sends its line upstream, where the output records it and the inputs feeding it isolate the same destination; at `stop_bytes` it stops the sender upstream from sending that destination's packets, at `go_bytes` lets it go on (a NIC honours Stop and Go too). An empty CFQ not held by a Stop is freed, and the line upstream with it. The NFQ and the CFQs share the input buffer. Congestion information travels out of band with the link's latency. Needs credit flow control and a routing that keeps a packet on one VC. docs/buffers.md compares it with the other organizations.\n\n| key | default | meaning |\n|---|---|---|\n| `cfqs` | `2` | CFQs and CAM lines per input, 1 to 16 (Paper V §V-A). |\n| `detect_bytes` | `16384` | NFQ bytes above which congestion is detected: 8 MTUs of 2 KB (the thesis leaves it open: our choice). |\n| `propagate_bytes` | `8192` | CFQ bytes at which its line goes upstream (the thesis leaves it open: our choice). |\n| `stop_bytes` | `20480` | CFQ bytes at which the sender upstream stops its destination's packets: 10 MTUs (Paper V §V-A). |\n| `go_bytes` | `8192` | CFQ bytes at which it sends them again: 4 MTUs (Paper V §V-A). |\n";
    const PER_OUTPUT: bool = false;
    const ISOLATES: bool = true;
    type Settings = FbicmSettings;

    fn new(settings: &FbicmSettings, _ports: usize) -> Fbicm {
        let thresholds = Thresholds { propagate: settings.propagate_bytes, stop: settings.stop_bytes, go: settings.go_bytes };
        let s = State { settings: settings.clone(), nfq: VecDeque::new(), nfq_bytes: 0, cfqs: HotQueues::new(settings.cfqs, thresholds), turn: 0, effects: Vec::new() };
        Fbicm { s: Box::new(s) }
    }
}

impl Fbicm {
    /// The queue's entries: 0 the NFQ, k the CFQ in slot k - 1.
    fn queue(&self, q: usize) -> Option<&VecDeque<Entry>> {
        match q {
            0 => Some(&self.s.nfq),
            k => self.s.cfqs.slots[k - 1].as_ref().map(|c| &c.queue),
        }
    }

    /// The heads the buffer offers, in turn order from `turn`.
    fn heads(&self) -> impl Iterator<Item = (usize, Entry)> + '_ {
        let n = self.s.cfqs.slots.len() + 1;
        (0..n).map(move |k| (self.s.turn + k) % n).filter_map(|q| self.queue(q).and_then(|e| e.front()).map(|e| (q, *e)))
    }

    /// Post-processing: moves NFQ heads that a CFQ takes (its own line's, or a new one for a
    /// line the input follows) into it; detection: while the NFQ is above its threshold, a new
    /// CFQ isolates its head's destination.
    fn settle(&mut self) {
        while let Some(&e) = self.s.nfq.front() {
            let followed = self.s.cfqs.followed.iter().any(|f| f.out == e.out && f.dests.contains(&e.dst));
            let slot = match self.s.cfqs.slot_of(e.dst, e.out) {
                Some(slot) => Some(slot),
                None if followed => self.s.cfqs.for_packet(e.dst, e.out),
                None if self.s.nfq_bytes > self.s.settings.detect_bytes => self.s.cfqs.allocate(vec![e.dst], None),
                None => None,
            };
            let Some(slot) = slot else { break };
            self.s.nfq.pop_front();
            self.s.nfq_bytes -= e.bytes;
            self.s.cfqs.push(slot, e, &mut self.s.effects);
        }
    }
}

impl Isolating for Fbicm {
    fn follow(&mut self, out: PortId, id: u32, dests: &[NodeId], on: bool) {
        self.s.cfqs.follow(out, id, dests, on);
        if on {
            self.tracked(0, Fbicm::settle);
        }
    }

    fn hold(&mut self, out: PortId, id: u32, on: bool) {
        self.s.cfqs.hold(out, id, on, &mut self.s.effects);
    }

    fn hot(&self) -> &HotQueues {
        &self.s.cfqs
    }

    fn hot_mut(&mut self) -> &mut HotQueues {
        &mut self.s.cfqs
    }

    fn lines_in_use(&self) -> usize {
        self.s.cfqs.in_use()
    }

    fn take_effects(&mut self, into: &mut Vec<Effect>) {
        into.append(&mut self.s.effects);
    }

    fn offered(&self) -> u64 {
        self.heads().fold(0, |m, (_, e)| m | e.out.bit())
    }

    fn effects(&mut self) -> &mut Vec<Effect> {
        &mut self.s.effects
    }
}

impl Queueing for Fbicm {
    /// Reports the packets newly offered in `take_effects`, not here.
    fn push(&mut self, pkt: PacketId, out: PortId, dst: NodeId, bytes: u32) -> bool {
        self.tracked(0, |f| {
            f.s.nfq.push_back(Entry { pkt, out, dst, bytes });
            f.s.nfq_bytes += bytes;
            f.settle();
        });
        false
    }

    /// Reports the packets newly offered in `take_effects`, not here.
    fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped {
        self.tracked(out.bit(), |f| {
            let (q, e) = f.heads().find(|(_, e)| e.pkt == pkt).expect("the buffer offered this output the packet");
            f.s.turn = (q + 1) % (f.s.cfqs.slots.len() + 1);
            match q {
                0 => {
                    f.s.nfq.pop_front();
                    f.s.nfq_bytes -= e.bytes;
                }
                k => {
                    f.s.cfqs.pop(k - 1, &mut f.s.effects);
                }
            }
            f.settle();
        });
        Popped::default()
    }

    fn head(&self, out: PortId) -> Option<PacketId> {
        self.heads().find(|(_, e)| e.out == out).map(|(_, e)| e.pkt)
    }

    fn offer(&self, out: PortId, fits: &mut dyn FnMut(PacketId) -> bool) -> Option<PacketId> {
        self.heads().filter(|(_, e)| e.out == out).map(|(_, e)| e.pkt).find(|&p| fits(p))
    }

    fn for_each(&self, mut f: impl FnMut(PacketId)) {
        (0..=self.s.cfqs.slots.len()).filter_map(|q| self.queue(q)).flatten().for_each(|e| f(e.pkt));
    }

    fn check(&self, out_of: &dyn Fn(PacketId) -> PortId, pinned: bool) -> Result<(), String> {
        if pinned {
            return Err("pinned, but the organization never pins".into());
        }
        let nfq: u32 = self.s.nfq.iter().map(|e| e.bytes).sum();
        if nfq != self.s.nfq_bytes {
            return Err(format!("NFQ counts {} bytes but holds {nfq}", self.s.nfq_bytes));
        }
        self.s.cfqs.check()?;
        let mut seen = rustc_hash::FxHashSet::default();
        for q in (0..=self.s.cfqs.slots.len()).filter_map(|q| self.queue(q)) {
            for e in q {
                if !seen.insert(e.pkt) {
                    return Err(format!("packet {} is in two queues", e.pkt));
                }
                if out_of(e.pkt) != e.out {
                    return Err(format!("packet {} is queued for another output than its route's", e.pkt));
                }
            }
        }
        if self.s.nfq.front().is_some_and(|e| self.s.cfqs.slot_of(e.dst, e.out).is_some()) {
            return Err("the NFQ's head belongs in a CFQ (post-processing missed it)".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::switch::queues::isolation::testing::{effects, push, signal, MTU};
    use crate::switch::queues::isolation::Signal;

    fn small() -> FbicmSettings {
        FbicmSettings { cfqs: 1, detect_bytes: 2 * MTU, propagate_bytes: 2 * MTU, stop_bytes: 3 * MTU, go_bytes: MTU }
    }

    #[test]
    fn a_filled_nfq_isolates_its_heads_destination_and_frees_the_packets_behind() {
        let mut f = Fbicm::new(&small(), 4);
        push(&mut f, 0, 0, 7);
        assert_eq!(effects(&mut f), [Effect::Offer(PacketId(0))]);
        push(&mut f, 1, 0, 7);
        push(&mut f, 2, 1, 9);
        // Three MTUs exceed the detection threshold: 7's packets move to a CFQ (line 1), and
        // 9's packet, now at the NFQ's head, is offered output 1.
        assert_eq!(f.hot().in_use(), 1);
        assert_eq!(effects(&mut f), [signal(1, Signal::Allocate, &[7]), Effect::Offer(PacketId(2))]);
        assert_eq!(f.head(PortId(1)), Some(PacketId(2)));
        assert_eq!(f.head(PortId(0)), Some(PacketId(0)));
        // Once 9's packet has left, more of 7's packets reach the NFQ's head and move to the
        // CFQ; at 3 MTUs it stops the sender upstream.
        f.pop(PacketId(2), PortId(1));
        push(&mut f, 3, 0, 7);
        assert_eq!(effects(&mut f), [signal(1, Signal::Stop, &[])]);
        assert!(f.check(&|_| PortId(0), false).is_ok());
        // Draining: Go at one MTU, then the empty CFQ is freed and upstream told.
        f.pop(PacketId(0), PortId(0));
        f.pop(PacketId(1), PortId(0));
        assert_eq!(effects(&mut f), [Effect::Offer(PacketId(1)), signal(1, Signal::Go, &[]), Effect::Offer(PacketId(3))]);
        f.pop(PacketId(3), PortId(0));
        assert_eq!(effects(&mut f), [signal(1, Signal::Deallocate, &[])]);
        assert_eq!(f.hot().in_use(), 0);
    }

    #[test]
    fn a_held_cfq_stays_until_released_and_a_full_supply_leaves_packets_in_the_nfq() {
        let mut f = Fbicm::new(&small(), 4);
        // Output 2's line 9 isolates 5 downstream: its packet takes a CFQ at once, the NFQ
        // nearly empty; a packet for 5 by another output does not.
        f.follow(PortId(2), 9, &[NodeId(5)], true);
        push(&mut f, 0, 2, 5);
        assert_eq!(f.hot().in_use(), 1);
        f.hold(PortId(2), 9, true);
        f.pop(PacketId(0), PortId(2));
        assert_eq!(f.hot().in_use(), 1, "held while empty");
        // The only CFQ is taken: 6's packets stay in the NFQ however full it gets.
        for p in 1..5 {
            push(&mut f, p, 2, 6);
        }
        assert_eq!(f.hot().in_use(), 1);
        assert!(f.hot().exhausted > 0);
        assert_eq!(f.head(PortId(2)), Some(PacketId(1)));
        assert!(f.check(&|_| PortId(2), false).is_ok());
        f.hold(PortId(2), 9, false);
        assert_eq!(f.hot().in_use(), 0, "released empty");
    }
}
