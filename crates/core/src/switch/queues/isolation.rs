//! What the congested-flow isolation organizations share (`fbicm`, thesis Paper V; `hfdi`,
//! Paper VI): CAM lines and the hot queues they own (FBICM's CFQs, HFDI's HPQs), the thresholds
//! that make a line signal the sender upstream, and the lines of the switch's own outputs that
//! an input follows.
//!
//! A line names a set of destinations (HFDI's `dList`; FBICM's lines hold one) and has an id of
//! its own input, by which the sender upstream knows it (Paper VI's `NextLine`). A line is a
//! root where this input detected the congestion, or follows a line of one of its switch's
//! outputs, which the input downstream of that output sent up (`Signal::Allocate`).

use super::Queueing;
use crate::ids::{NodeId, PacketId, PortId};
use crate::time::Time;
use std::collections::VecDeque;

/// The most hot queues an input may have (a few is the point: the thesis' inputs have two).
pub const MAX_HOT_QUEUES: u32 = 16;

/// What a line tells the sender at the far end of its input's link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Isolate the line's destinations too (a CAM line at the output; the inputs that feed it
    /// follow it). The destinations travel with it.
    Allocate,
    /// Stop sending packets for them.
    Stop,
    /// Send them again.
    Go,
    /// The line is gone: forget it.
    Deallocate,
}

/// What a change to an input's queues asks of the switch: a packet newly offered to its output
/// (it requests the output), or a signal about one of its lines for the sender upstream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    Offer(PacketId),
    Signal { line: u32, signal: Signal, dests: Vec<NodeId> },
}

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub pkt: PacketId,
    pub out: PortId,
    pub dst: NodeId,
    pub bytes: u32,
}

/// The occupancies at which a line signals upstream, in bytes of its queue.
#[derive(Clone, Copy, Debug)]
pub struct Thresholds {
    /// The line goes upstream (`Signal::Allocate`) the first time its queue holds this much.
    pub propagate: u32,
    /// From this much (once the line has gone upstream) the sender stops.
    pub stop: u32,
    /// Down to this much, it goes on.
    pub go: u32,
}

/// An organization that isolates congested flows (`fbicm`, `hfdi`): what the switch asks of
/// it beyond `Queueing`.
pub trait Isolating {
    /// Output `out`'s line `id` for `dests` appeared (`on`) or went: the input isolates those
    /// destinations' packets for `out` in a hot queue as they reach a cold queue's head.
    fn follow(&mut self, out: PortId, id: u32, dests: &[NodeId], on: bool);
    /// Output `out`'s line `id` was stopped (`on`) or let go (or went).
    fn hold(&mut self, out: PortId, id: u32, on: bool);
    /// The hot queues.
    fn hot(&self) -> &HotQueues;
    /// The same, to note the time (`HotQueues::clock`).
    fn hot_mut(&mut self) -> &mut HotQueues;
    /// Lines allocated now: hot queues and roots without one.
    fn lines_in_use(&self) -> usize;
    /// What the changes since the last call ask of the switch, in order.
    fn take_effects(&mut self, into: &mut Vec<Effect>);
    /// Outputs the buffer offers a packet, one bit each.
    fn offered(&self) -> u64;
    /// Where the organization collects its effects.
    fn effects(&mut self) -> &mut Vec<Effect>;

    /// Runs `change`, then reports every output offered now and not before (and `again`, an
    /// output whose request was withdrawn), with the packet it is offered first.
    fn tracked(&mut self, again: u64, change: impl FnOnce(&mut Self))
    where
        Self: Queueing + Sized,
    {
        let before = self.offered() & !again;
        change(self);
        let mut new = self.offered() & !before;
        while new != 0 {
            let out = PortId(new.trailing_zeros() as u16);
            new &= new - 1;
            let head = self.head(out).expect("an offered output has a head");
            self.effects().push(Effect::Offer(head));
        }
    }
}

/// A CAM line.
#[derive(Clone, Debug)]
pub struct Line {
    /// Its id at this input (the sender upstream names it so).
    pub id: u32,
    pub dests: Vec<NodeId>,
    /// The output line it follows (output port, that line's id), or none at a root.
    pub follows: Option<(PortId, u32)>,
    /// It went upstream (`Signal::Allocate`).
    pub propagated: bool,
    /// The sender upstream was told to stop and not yet to go on.
    pub sent_stop: bool,
    /// The output line it follows is stopped: its packets wait here, and it stays allocated.
    pub held: bool,
}

impl Line {
    /// Whether a packet for `dst` leaving by `out` belongs to the line.
    pub fn takes(&self, dst: NodeId, out: PortId) -> bool {
        self.follows.is_none_or(|(op, _)| op == out) && self.dests.contains(&dst)
    }

    /// Signals what an occupancy of `bytes` crossed, into `effects`.
    pub fn crossed(&mut self, bytes: u32, t: Thresholds, effects: &mut Vec<Effect>) {
        let was_propagated = self.propagated;
        if bytes >= t.propagate && !self.propagated {
            self.propagated = true;
            effects.push(Effect::Signal { line: self.id, signal: Signal::Allocate, dests: self.dests.clone() });
        }
        // A stop at the propagation threshold itself waits for the next crossing (Paper VI
        // §III-B: "stop" on the second and later crossings of HTh).
        if bytes >= t.stop && !self.sent_stop && (was_propagated || t.stop > t.propagate) {
            self.sent_stop = true;
            effects.push(self.signal(Signal::Stop));
        } else if bytes <= t.go && self.sent_stop {
            self.sent_stop = false;
            effects.push(self.signal(Signal::Go));
        }
    }

    /// The line is freed: the sender upstream forgets it if it knew it.
    pub fn release(&self, effects: &mut Vec<Effect>) {
        if self.propagated {
            effects.push(self.signal(Signal::Deallocate));
        }
    }

    fn signal(&self, signal: Signal) -> Effect {
        Effect::Signal { line: self.id, signal, dests: Vec::new() }
    }
}

/// A hot queue (CFQ, HPQ) with its line.
#[derive(Debug)]
pub struct HotQueue {
    pub line: Line,
    pub queue: VecDeque<Entry>,
    pub bytes: u32,
}

/// A line of one of the switch's outputs, which the input follows: its packets for the line's
/// destinations, leaving by that output, take a hot queue when they reach a cold queue's head.
#[derive(Clone, Debug)]
pub struct Followed {
    pub out: PortId,
    pub id: u32,
    pub dests: Vec<NodeId>,
}

/// The hot queues of an input and the output lines it follows.
#[derive(Debug)]
pub struct HotQueues {
    pub slots: Vec<Option<HotQueue>>,
    pub followed: Vec<Followed>,
    pub thresholds: Thresholds,
    /// Line ids of this input, never reused while the run lasts (a line upstream may outlive
    /// its origin by a link latency).
    next_id: u32,
    /// A packet needed a hot queue and none was free.
    pub exhausted: u64,
    pub allocated: u64,
    /// Time with every hot queue allocated (none free for a new tree), and since when that has
    /// lasted (`clock`): thesis Paper VI supplement Fig. 10 counts such inputs over time.
    none_free: Time,
    none_free_since: Option<Time>,
}

impl HotQueues {
    pub fn new(slots: u32, thresholds: Thresholds) -> HotQueues {
        HotQueues {
            slots: (0..slots).map(|_| None).collect(),
            followed: Vec::new(),
            thresholds,
            next_id: 0,
            exhausted: 0,
            allocated: 0,
            none_free: 0,
            none_free_since: None,
        }
    }

    /// Notes at `now`, after a change, whether any hot queue is free.
    pub fn clock(&mut self, now: Time) {
        let none_free = self.slots.iter().all(Option::is_some);
        match (none_free, self.none_free_since) {
            (true, None) => self.none_free_since = Some(now),
            (false, Some(since)) => {
                self.none_free += now - since;
                self.none_free_since = None;
            }
            _ => {}
        }
    }

    /// The time up to `now` during which no hot queue was free.
    pub fn none_free_until(&self, now: Time) -> Time {
        self.none_free + self.none_free_since.map_or(0, |since| now - since)
    }

    /// A new line id of this input.
    pub fn new_id(&mut self) -> u32 {
        self.next_id = self.next_id.wrapping_add(1);
        self.next_id
    }

    /// The hot queue that takes a packet for `dst` leaving by `out`.
    pub fn slot_of(&self, dst: NodeId, out: PortId) -> Option<usize> {
        self.slots.iter().position(|q| q.as_ref().is_some_and(|q| q.line.takes(dst, out)))
    }

    /// Allocates a hot queue for a line of `dests` (following `follows`), if one is free.
    pub fn allocate(&mut self, dests: Vec<NodeId>, follows: Option<(PortId, u32)>) -> Option<usize> {
        let Some(free) = self.slots.iter().position(Option::is_none) else {
            self.exhausted += 1;
            return None;
        };
        let id = self.new_id();
        let line = Line { id, dests, follows, propagated: false, sent_stop: false, held: false };
        self.slots[free] = Some(HotQueue { line, queue: VecDeque::new(), bytes: 0 });
        self.allocated += 1;
        Some(free)
    }

    /// The hot queue for a packet for `dst` leaving by `out`: its own, or a new one for an
    /// output line it follows, if one is free.
    pub fn for_packet(&mut self, dst: NodeId, out: PortId) -> Option<usize> {
        if let Some(slot) = self.slot_of(dst, out) {
            return Some(slot);
        }
        let f = self.followed.iter().find(|f| f.out == out && f.dests.contains(&dst))?;
        let (dests, follows) = (f.dests.clone(), Some((f.out, f.id)));
        self.allocate(dests, follows)
    }

    /// Appends `e` to hot queue `slot` and signals what it crossed.
    pub fn push(&mut self, slot: usize, e: Entry, effects: &mut Vec<Effect>) {
        let q = self.slots[slot].as_mut().expect("an allocated slot");
        q.queue.push_back(e);
        q.bytes += e.bytes;
        q.line.crossed(q.bytes, self.thresholds, effects);
    }

    /// Takes the head of hot queue `slot`, signals what it crossed, and frees the queue if it
    /// is empty and not held.
    pub fn pop(&mut self, slot: usize, effects: &mut Vec<Effect>) -> Entry {
        let q = self.slots[slot].as_mut().expect("an allocated slot");
        let e = q.queue.pop_front().expect("a head");
        q.bytes -= e.bytes;
        q.line.crossed(q.bytes, self.thresholds, effects);
        self.release_if_idle(slot, effects);
        e
    }

    fn release_if_idle(&mut self, slot: usize, effects: &mut Vec<Effect>) {
        if let Some(q) = &self.slots[slot] {
            if q.queue.is_empty() && !q.line.held {
                q.line.release(effects);
                self.slots[slot] = None;
            }
        }
    }

    /// Output `out`'s line `id` (`dests`) appeared (`on`) or went: the input follows it or
    /// stops following it.
    pub fn follow(&mut self, out: PortId, id: u32, dests: &[NodeId], on: bool) {
        self.followed.retain(|f| (f.out, f.id) != (out, id));
        if on {
            self.followed.push(Followed { out, id, dests: dests.to_vec() });
        }
    }

    /// Output `out`'s line `id` was stopped (`on`) or let go, or went: the hot queue following
    /// it is held, or released if empty.
    pub fn hold(&mut self, out: PortId, id: u32, on: bool, effects: &mut Vec<Effect>) {
        for slot in 0..self.slots.len() {
            if let Some(q) = self.slots[slot].as_mut().filter(|q| q.line.follows == Some((out, id))) {
                q.line.held = on;
                self.release_if_idle(slot, effects);
            }
        }
    }

    /// Hot queues allocated now.
    pub fn in_use(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// The destinations' lines and bytes of the hot queues whose packets take `out`.
    pub fn for_output(&self, out: PortId) -> impl Iterator<Item = (&Line, u32)> + '_ {
        self.slots.iter().flatten().filter(move |q| q.queue.front().is_some_and(|e| e.out == out)).map(|q| (&q.line, q.bytes))
    }

    /// The hot queues' invariants: byte counts, packets belonging to their line, no empty
    /// queue left allocated unless held.
    pub fn check(&self) -> Result<(), String> {
        for (slot, q) in self.slots.iter().enumerate() {
            let Some(q) = q else { continue };
            if q.queue.iter().map(|e| e.bytes).sum::<u32>() != q.bytes {
                return Err(format!("hot queue {slot} miscounts its bytes"));
            }
            if let Some(e) = q.queue.iter().find(|e| !q.line.takes(e.dst, e.out)) {
                return Err(format!("hot queue {slot} holds packet {} for {} that its line does not take", e.pkt, e.dst));
            }
            if q.queue.is_empty() && !q.line.held {
                return Err(format!("hot queue {slot} is empty and not held, but still allocated"));
            }
        }
        Ok(())
    }
}

/// What the organizations' unit tests share.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Effect, Isolating, Signal};
    use crate::ids::{NodeId, PacketId, PortId};
    use crate::switch::queues::Queueing;

    pub const MTU: u32 = 2048;

    pub fn effects(q: &mut impl Isolating) -> Vec<Effect> {
        let mut v = Vec::new();
        q.take_effects(&mut v);
        v
    }

    /// Queues an MTU-sized packet `pkt` for host `dst` by output `out`.
    pub fn push(q: &mut impl Queueing, pkt: u32, out: u16, dst: u32) {
        q.push(PacketId(pkt), PortId(out), NodeId(dst), MTU);
    }

    pub fn signal(line: u32, signal: Signal, dests: &[u32]) -> Effect {
        Effect::Signal { line, signal, dests: dests.iter().map(|&d| NodeId(d)).collect() }
    }
}
