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
//!   there isolate that destination too (`mark`): a CFQ of theirs takes its packets as they
//!   reach the NFQ's head.
//! - **Stop & Go** (event #5): a CFQ holding `stop_bytes` tells the output upstream to stop
//!   sending its destination's packets, and to go on once it is down to `go_bytes`; the packets
//!   held there wait in that switch's CFQs, not in its NFQs.
//! - **Deallocation** (event #6): an empty CFQ not held by a Stop from downstream is freed, and
//!   if it had propagated, so is the line upstream (`Signal::Deallocate`).
//!
//! The buffer stays one pool of `input_buffer_*` shared by the NFQ and the CFQs (Paper V §IV-A:
//! "dynamically managed queues"), with credits for the whole of it upstream. What the thesis
//! leaves open, and our choices: a CAM line holds one destination (FBICM stores a set, Paper V
//! footnote 3; a hot spot's tree is one destination); the control information travels out of
//! band with the link's latency, as credits do; an output offers its turn to the NFQ and the
//! CFQs of an input in round-robin order.

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

/// The most CFQs an input may have: the ports of a switch bound what an input can tell apart.
pub const MAX_CFQS: u32 = 16;

impl Settings for FbicmSettings {
    fn validate(&self) -> ConfigResult<()> {
        if self.cfqs == 0 || self.cfqs > MAX_CFQS {
            return Err(ConfigError::new("switch.fbicm.cfqs", format!("must be 1 to {MAX_CFQS}, got {} (input_queues = \"fifo\" has none)", self.cfqs)));
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

/// What a CFQ tells the sender at the far end of its input's link about its destination's
/// packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Isolate them too (a CAM line for the output, CFQs at the inputs that feed it).
    Allocate,
    /// Stop sending them.
    Stop,
    /// Send them again.
    Go,
    /// The CFQ is gone: forget the line.
    Deallocate,
}

/// What a change to the queues asks of the switch: a packet newly offered to its output (it
/// requests the output), or a signal for the sender upstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Offer(PacketId),
    Signal(NodeId, Signal),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    pkt: PacketId,
    out: PortId,
    dst: NodeId,
    bytes: u32,
}

#[derive(Debug)]
struct Cfq {
    /// The CAM line: the destination whose packets it isolates.
    dst: NodeId,
    queue: VecDeque<Entry>,
    bytes: u32,
    /// Its line was sent upstream (`Signal::Allocate`).
    propagated: bool,
    /// The sender upstream was told to stop (`Signal::Stop`) and not yet to go on.
    sent_stop: bool,
    /// The output its packets take was told to stop them: it stays allocated while held.
    held: bool,
}

pub struct Fbicm {
    settings: FbicmSettings,
    nfq: VecDeque<Entry>,
    nfq_bytes: u32,
    cfqs: Vec<Option<Cfq>>,
    /// The queue (0 the NFQ, k the CFQ in slot k - 1) an output offered first next time.
    turn: usize,
    /// Destinations an output of this switch has a CAM line for (`mark`): their packets take
    /// a CFQ at the NFQ's head, allocated then if one is free.
    marked: Vec<NodeId>,
    /// What the last changes ask of the switch, in order; it drains them (`take_effects`).
    effects: Vec<Effect>,
}

impl Registered for Fbicm {
    const ABOUT: &'static str = "An NFQ and a few CFQs per input, with CAM lines, Stop & Go and propagation upstream (FBICM, thesis Paper V).";
    const DOC: &'static str = "Congested-flow isolation after FBICM (thesis Paper V §III-B and §IV-A): every input keeps a normal flow queue (NFQ) and `cfqs` congested flow queues (CFQs), each with a CAM line naming the destination it isolates. When the NFQ holds more than `detect_bytes`, a CFQ is allocated to the destination of its head; a packet reaching the NFQ's head whose destination a CFQ isolates moves into that CFQ. A CFQ holding `propagate_bytes` sends its line upstream, where the output records it and the inputs feeding it isolate the same destination; at `stop_bytes` it stops the sender upstream from sending that destination's packets, at `go_bytes` lets it go on (a NIC honours Stop and Go too). An empty CFQ not held by a Stop is freed, and the line upstream with it. The NFQ and the CFQs share the input buffer. Congestion information travels out of band with the link's latency. Needs credit flow control and a routing that keeps a packet on one VC. docs/buffers.md compares it with the other organizations.\n\n| key | default | meaning |\n|---|---|---|\n| `cfqs` | `2` | CFQs and CAM lines per input, 1 to 16 (Paper V §V-A). |\n| `detect_bytes` | `16384` | NFQ bytes above which congestion is detected: 8 MTUs of 2 KB (the thesis leaves it open: our choice). |\n| `propagate_bytes` | `8192` | CFQ bytes at which its line goes upstream (the thesis leaves it open: our choice). |\n| `stop_bytes` | `20480` | CFQ bytes at which the sender upstream stops its destination's packets: 10 MTUs (Paper V §V-A). |\n| `go_bytes` | `8192` | CFQ bytes at which it sends them again: 4 MTUs (Paper V §V-A). |\n";
    const PER_OUTPUT: bool = false;
    type Settings = FbicmSettings;

    fn new(settings: &FbicmSettings, _ports: usize) -> Fbicm {
        let cfqs = (0..settings.cfqs).map(|_| None).collect();
        Fbicm { settings: settings.clone(), nfq: VecDeque::new(), nfq_bytes: 0, cfqs, turn: 0, marked: Vec::new(), effects: Vec::new() }
    }
}

impl Fbicm {
    /// The queue's entries: 0 the NFQ, k the CFQ in slot k - 1.
    fn queue(&self, q: usize) -> Option<&VecDeque<Entry>> {
        match q {
            0 => Some(&self.nfq),
            k => self.cfqs[k - 1].as_ref().map(|c| &c.queue),
        }
    }

    /// The heads the buffer offers, in turn order from `turn`.
    fn heads(&self) -> impl Iterator<Item = (usize, Entry)> + '_ {
        let n = self.cfqs.len() + 1;
        (0..n).map(move |k| (self.turn + k) % n).filter_map(|q| self.queue(q).and_then(|e| e.front()).map(|e| (q, *e)))
    }

    /// Outputs the buffer offers a packet, one bit each.
    fn offered(&self) -> u64 {
        self.heads().fold(0, |m, (_, e)| m | e.out.bit())
    }

    fn slot_of(&self, dst: NodeId) -> Option<usize> {
        self.cfqs.iter().position(|c| c.as_ref().is_some_and(|c| c.dst == dst))
    }

    /// Runs `change`, then reports every output offered now and not before (and `again`, an
    /// output whose request was withdrawn), with the packet it is offered first.
    fn tracked(&mut self, again: u64, change: impl FnOnce(&mut Fbicm)) {
        let before = self.offered() & !again;
        change(self);
        let mut new = self.offered() & !before;
        while new != 0 {
            let out = PortId(new.trailing_zeros() as u16);
            new &= new - 1;
            let head = self.head(out).expect("an offered output has a head");
            self.effects.push(Effect::Offer(head));
        }
    }

    /// Allocates a free CFQ to `dst` unless one isolates it already; false if none is free.
    fn allocate(&mut self, dst: NodeId) -> bool {
        if self.slot_of(dst).is_some() {
            return true;
        }
        let Some(free) = self.cfqs.iter().position(Option::is_none) else { return false };
        self.cfqs[free] = Some(Cfq { dst, queue: VecDeque::new(), bytes: 0, propagated: false, sent_stop: false, held: false });
        true
    }

    /// Post-processing: moves NFQ heads whose destination a CFQ isolates, or an output's CAM
    /// line names, into their CFQ; detection: while the NFQ is above its threshold, isolates
    /// its head's destination.
    fn settle(&mut self) {
        while let Some(&e) = self.nfq.front() {
            let congested = self.nfq_bytes > self.settings.detect_bytes || self.marked.contains(&e.dst);
            let slot = match self.slot_of(e.dst) {
                Some(slot) => slot,
                None if congested && self.allocate(e.dst) => self.slot_of(e.dst).expect("just allocated"),
                None => break,
            };
            self.nfq.pop_front();
            self.nfq_bytes -= e.bytes;
            let cfq = self.cfqs[slot].as_mut().expect("an allocated slot");
            cfq.queue.push_back(e);
            cfq.bytes += e.bytes;
            self.thresholds(slot);
        }
    }

    /// Signals what CFQ `slot`'s occupancy crossed, and frees it if it is empty and not held.
    fn thresholds(&mut self, slot: usize) {
        let s = &self.settings;
        let Some(cfq) = self.cfqs[slot].as_mut() else { return };
        let dst = cfq.dst;
        if cfq.bytes >= s.propagate_bytes.min(s.stop_bytes) && !cfq.propagated {
            cfq.propagated = true;
            self.effects.push(Effect::Signal(dst, Signal::Allocate));
        }
        if cfq.bytes >= s.stop_bytes && !cfq.sent_stop {
            cfq.sent_stop = true;
            self.effects.push(Effect::Signal(dst, Signal::Stop));
        } else if cfq.bytes <= s.go_bytes && cfq.sent_stop {
            cfq.sent_stop = false;
            self.effects.push(Effect::Signal(dst, Signal::Go));
        }
        if cfq.queue.is_empty() && !cfq.held {
            if cfq.propagated {
                self.effects.push(Effect::Signal(dst, Signal::Deallocate));
            }
            self.cfqs[slot] = None;
        }
    }

    /// An output of this switch records `dst`'s CAM line (`on`, `Signal::Allocate` arrived
    /// there) or forgets it: while it is recorded, `dst`'s packets reaching the NFQ's head take
    /// a CFQ if one is free.
    pub fn mark(&mut self, dst: NodeId, on: bool) {
        self.marked.retain(|&d| d != dst);
        if on {
            self.marked.push(dst);
            self.tracked(0, Fbicm::settle);
        }
    }

    /// The output `dst`'s packets take was told to stop them (`on`) or to go on: a CFQ
    /// isolating `dst` stays allocated while held, and is freed when released empty.
    pub fn hold(&mut self, dst: NodeId, on: bool) {
        if let Some(slot) = self.slot_of(dst) {
            self.cfqs[slot].as_mut().expect("an allocated slot").held = on;
            self.thresholds(slot);
        }
    }

    /// The destination and bytes of each CFQ whose packets take `out` (by its head: a route is
    /// one output per destination).
    pub fn cfqs_for(&self, out: PortId) -> impl Iterator<Item = (NodeId, u32)> + '_ {
        self.cfqs.iter().flatten().filter(move |c| c.queue.front().is_some_and(|e| e.out == out)).map(|c| (c.dst, c.bytes))
    }

    /// CFQs allocated now.
    pub fn allocated(&self) -> usize {
        self.cfqs.iter().flatten().count()
    }

    /// What the changes since the last call ask of the switch, in order.
    pub fn take_effects(&mut self, into: &mut Vec<Effect>) {
        into.append(&mut self.effects);
    }
}

impl Queueing for Fbicm {
    /// Reports the packets newly offered in `take_effects`, not here.
    fn push(&mut self, pkt: PacketId, out: PortId, dst: NodeId, bytes: u32) -> bool {
        self.tracked(0, |f| {
            f.nfq.push_back(Entry { pkt, out, dst, bytes });
            f.nfq_bytes += bytes;
            f.settle();
        });
        false
    }

    /// Reports the packets newly offered in `take_effects`, not here.
    fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped {
        self.tracked(out.bit(), |f| {
            let (q, e) = f.heads().find(|(_, e)| e.pkt == pkt).expect("the buffer offered this output the packet");
            f.turn = (q + 1) % (f.cfqs.len() + 1);
            match q {
                0 => {
                    f.nfq.pop_front();
                    f.nfq_bytes -= e.bytes;
                }
                k => {
                    let cfq = f.cfqs[k - 1].as_mut().expect("an offering CFQ");
                    cfq.queue.pop_front();
                    cfq.bytes -= e.bytes;
                    f.thresholds(k - 1);
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
        (0..=self.cfqs.len()).filter_map(|q| self.queue(q)).flatten().for_each(|e| f(e.pkt));
    }

    fn check(&self, out_of: &dyn Fn(PacketId) -> PortId, pinned: bool) -> Result<(), String> {
        if pinned {
            return Err("pinned, but the organization never pins".into());
        }
        let nfq: u32 = self.nfq.iter().map(|e| e.bytes).sum();
        if nfq != self.nfq_bytes {
            return Err(format!("NFQ counts {} bytes but holds {nfq}", self.nfq_bytes));
        }
        let mut seen = rustc_hash::FxHashSet::default();
        for (slot, cfq) in self.cfqs.iter().enumerate() {
            let Some(cfq) = cfq else { continue };
            if self.cfqs.iter().flatten().filter(|c| c.dst == cfq.dst).count() > 1 {
                return Err(format!("two CFQs isolate destination {}", cfq.dst));
            }
            if cfq.queue.iter().map(|e| e.bytes).sum::<u32>() != cfq.bytes {
                return Err(format!("CFQ {slot} miscounts its bytes"));
            }
            if let Some(e) = cfq.queue.iter().find(|e| e.dst != cfq.dst) {
                return Err(format!("CFQ {slot} of destination {} holds packet {} for {}", cfq.dst, e.pkt, e.dst));
            }
            if cfq.queue.is_empty() && !cfq.held {
                return Err(format!("CFQ {slot} is empty and not held, but still allocated"));
            }
        }
        for q in (0..=self.cfqs.len()).filter_map(|q| self.queue(q)) {
            for e in q {
                if !seen.insert(e.pkt) {
                    return Err(format!("packet {} is in two queues", e.pkt));
                }
                if out_of(e.pkt) != e.out {
                    return Err(format!("packet {} is queued for another output than its route's", e.pkt));
                }
            }
        }
        if self.nfq.front().is_some_and(|e| self.slot_of(e.dst).is_some()) {
            return Err("the NFQ's head belongs in a CFQ (post-processing missed it)".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u32 = 2048;

    fn small() -> FbicmSettings {
        FbicmSettings { cfqs: 1, detect_bytes: 2 * MTU, propagate_bytes: 2 * MTU, stop_bytes: 3 * MTU, go_bytes: MTU }
    }

    fn effects(f: &mut Fbicm) -> Vec<Effect> {
        let mut v = Vec::new();
        f.take_effects(&mut v);
        v
    }

    fn push(f: &mut Fbicm, pkt: u32, out: u16, dst: u32) {
        f.push(PacketId(pkt), PortId(out), NodeId(dst), MTU);
    }

    #[test]
    fn a_filled_nfq_isolates_its_heads_destination_and_frees_the_packets_behind() {
        let mut f = Fbicm::new(&small(), 4);
        push(&mut f, 0, 0, 7);
        assert_eq!(effects(&mut f), [Effect::Offer(PacketId(0))]);
        push(&mut f, 1, 0, 7);
        push(&mut f, 2, 1, 9);
        // Three MTUs exceed the detection threshold: 7's packets move to the CFQ, and 9's
        // packet, now at the NFQ's head, is offered output 1.
        assert_eq!(f.allocated(), 1);
        assert_eq!(effects(&mut f), [Effect::Signal(NodeId(7), Signal::Allocate), Effect::Offer(PacketId(2))]);
        assert_eq!(f.head(PortId(1)), Some(PacketId(2)));
        assert_eq!(f.head(PortId(0)), Some(PacketId(0)));
        // Once 9's packet has left, more of 7's packets reach the NFQ's head and move to the
        // CFQ; at 3 MTUs it stops the sender upstream.
        f.pop(PacketId(2), PortId(1));
        push(&mut f, 3, 0, 7);
        assert_eq!(effects(&mut f), [Effect::Signal(NodeId(7), Signal::Stop)]);
        assert!(f.check(&|_| PortId(0), false).is_ok());
        // Draining: Go at one MTU, then the empty CFQ is freed and upstream told.
        f.pop(PacketId(0), PortId(0));
        f.pop(PacketId(1), PortId(0));
        assert_eq!(effects(&mut f), [Effect::Offer(PacketId(1)), Effect::Signal(NodeId(7), Signal::Go), Effect::Offer(PacketId(3))]);
        f.pop(PacketId(3), PortId(0));
        assert_eq!(effects(&mut f), [Effect::Signal(NodeId(7), Signal::Deallocate)]);
        assert_eq!(f.allocated(), 0);
    }

    #[test]
    fn a_held_cfq_stays_until_released_and_a_full_supply_leaves_packets_in_the_nfq() {
        let mut f = Fbicm::new(&small(), 4);
        // An output downstream isolates 5: its packet takes a CFQ at once, NFQ nearly empty.
        f.mark(NodeId(5), true);
        push(&mut f, 0, 2, 5);
        assert_eq!(f.allocated(), 1);
        f.hold(NodeId(5), true);
        f.pop(PacketId(0), PortId(2));
        assert_eq!(f.allocated(), 1, "held while empty");
        // The only CFQ is taken: 6's packets stay in the NFQ however full it gets.
        for p in 1..5 {
            push(&mut f, p, 2, 6);
        }
        assert_eq!(f.allocated(), 1);
        assert_eq!(f.head(PortId(2)), Some(PacketId(1)));
        assert!(f.check(&|_| PortId(2), false).is_ok());
        f.hold(NodeId(5), false);
        assert_eq!(f.allocated(), 0, "released empty");
    }
}
