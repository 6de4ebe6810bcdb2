//! NIC state: per-destination send queues (queue pairs, SRP paper §4) served round-robin or
//! oldest message first (`nic.arbitration`), a queue of mechanism control packets that go first,
//! an optional transmit FIFO between the send queues and the link, and credits for the first
//! switch's buffer.

use crate::ids::{ChannelId, ClassId, NodeId, PacketId, QpId};
use crate::node_map::NodeMap;
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

/// A message waiting outside its send queue (`Nic::unqueued`): none of it sent, its class its
/// source's. A quarter smaller than a `Message` with its destination beside it.
#[derive(Clone, Copy)]
pub struct Waiting {
    pub created: Time,
    pub dst: NodeId,
    pub source: u32,
    pub packets: u32,
}

/// Messages waiting outside their send queues, in arrival order: in chunks of a fixed size,
/// so that a backlog growing to millions never reallocates, copies or doubles (a `VecDeque`
/// per NIC held up to twice the backlog, and the huge pages collapsed over that slack took
/// more memory still).
#[derive(Default)]
pub struct Backlog {
    chunks: VecDeque<Vec<Waiting>>,
    /// Entries of the first chunk already taken.
    taken: usize,
}

/// Messages per chunk: 24 KiB.
const BACKLOG_CHUNK: usize = 1024;

impl Backlog {
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    pub fn push_back(&mut self, w: Waiting) {
        match self.chunks.back_mut() {
            Some(c) if c.len() < BACKLOG_CHUNK => c.push(w),
            _ => {
                let mut c = Vec::with_capacity(BACKLOG_CHUNK);
                c.push(w);
                self.chunks.push_back(c);
            }
        }
    }

    pub fn front(&self) -> Option<&Waiting> {
        self.chunks.front().map(|c| &c[self.taken])
    }

    pub fn pop_front(&mut self) -> Option<Waiting> {
        let first = self.chunks.front()?;
        let w = first[self.taken];
        self.taken += 1;
        if self.taken == first.len() {
            self.chunks.pop_front();
            self.taken = 0;
        }
        Some(w)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Waiting> {
        self.chunks.iter().enumerate().flat_map(|(i, c)| &c[if i == 0 { self.taken } else { 0 }..])
    }
}

pub struct SendQueue<H> {
    pub src: NodeId,
    pub dst: NodeId,
    /// The queue's number at its NIC (`Nic::open_queue`): fixed by that NIC's own history, where
    /// the `QpId` of its slot depends on every NIC of the thread.
    pub number: u32,
    pub messages: Messages,
    /// Packets handed back by the mechanism (e.g. SRP's dropped speculative packets): they go
    /// before the messages' new packets, through the same injection gate.
    pub retx: VecDeque<crate::packet::Packet<H>>,
    /// When the current head packet became the head (its `ready` time).
    pub head_since: Time,
    /// In the NIC's round-robin ring.
    pub active: bool,
    /// Serving a destination (not on the free list).
    pub open: bool,
}

/// A send queue's messages in order, the head inline: every arbitration reads the head
/// (`Sim::view`, the ring's age order), and in a `VecDeque` it sat in a buffer of its own, a
/// load apart from the queue that missed where sources have long backlogs.
#[derive(Default)]
pub struct Messages {
    head: Option<Message>,
    rest: VecDeque<Message>,
}

impl Messages {
    pub fn front(&self) -> Option<&Message> {
        self.head.as_ref()
    }

    pub fn front_mut(&mut self) -> Option<&mut Message> {
        self.head.as_mut()
    }

    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    pub fn push_back(&mut self, m: Message) {
        match self.head {
            None => self.head = Some(m),
            Some(_) => self.rest.push_back(m),
        }
    }

    pub fn pop_front(&mut self) -> Option<Message> {
        std::mem::replace(&mut self.head, self.rest.pop_front())
    }

    pub fn iter(&self) -> impl Iterator<Item = &Message> {
        self.head.iter().chain(&self.rest)
    }
}

impl<H> SendQueue<H> {
    /// Part of the head message has been sent (`nic.arbitration = "message_round_robin"` lets
    /// no other queue go until the rest has).
    pub fn head_started(&self) -> bool {
        self.messages.front().is_some_and(|m| m.sent > 0)
    }
}

/// A send queue in a NIC's ring, with the creation time of its oldest packet when it joined:
/// the order of `nic.arbitration = "oldest_first"`, kept here so that ordering the ring reads
/// no queue (a backlogged NIC holds a queue for most destinations).
#[derive(Clone, Copy)]
pub struct InRing {
    pub qp: QpId,
    pub age: Time,
}

/// Where a queue of age `age` joins `ring`, kept in age order: after every queue as old or
/// older (`partition_point`). Searched from the back, galloping: a queue activated by a new
/// message is the youngest, and one whose next message became its head is younger than most of
/// a backlogged NIC's queues, whose heads are their oldest messages. A search from the middle
/// missed the cache at each step of rings of hundreds.
pub fn place_by_age(ring: &VecDeque<InRing>, age: Time) -> usize {
    // Every queue from `hi` on is younger; every one before `lo` is not.
    let (mut lo, mut hi, mut step) = (0, ring.len(), 1);
    while hi > 0 {
        let probe = hi.saturating_sub(step);
        if ring[probe].age <= age {
            lo = probe + 1;
            break;
        }
        hi = probe;
        step *= 2;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ring[mid].age <= age {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

pub struct Nic {
    pub out: ChannelId,
    pub inp: ChannelId,
    /// Per VC: credits for the first switch's input buffer.
    pub credits: Vec<crate::switch::Credits>,
    pub link_busy: bool,
    /// The packet on the injection link is a control packet (which others do not interleave).
    pub sending_control: bool,
    /// Link time taken by control packets interleaved into the current transmission.
    pub stretch: crate::time::Time,
    /// Active send queues in service order (round-robin, or by the age of their oldest packet):
    /// the front is tried first.
    pub ring: VecDeque<InRing>,
    /// Send queue of each destination, created on first use.
    pub qp_of: NodeMap<QpId>,
    /// Whether messages may wait in `unqueued` (`sim::nic_ops::enqueue`): only where no reader
    /// of the send queues can tell (oldest-first arbitration, no greedy source here, no
    /// mechanism that sees each message).
    pub defers: bool,
    /// Messages that arrived behind a backlog, with their destinations, in arrival order,
    /// not yet in their send queues: each is created later than every message in them. A
    /// saturated source creates far more messages than it sends (IB-T4.2's B nodes without CC
    /// send 3% of them), and putting each in its destination's queue on arrival took three
    /// cache misses (the queue's map entry, its slot, its tail), a third of such a run.
    pub unqueued: Backlog,
    /// Creation time of the last message put in a send queue.
    pub last_queued: Time,
    /// Earliest pending wake-up, to avoid scheduling duplicates.
    pub wake_at: Option<Time>,
    /// The transmit FIFO (`nic.tx_fifo_bytes`): data packets picked from the send queues, in
    /// order, of which only the head waits for the link.
    pub tx: VecDeque<PacketId>,
    pub tx_bytes: u32,
    /// Lines of the first switch's input (congested-flow isolation, thesis Papers V and VI):
    /// id, destinations and whether the NIC is told to stop sending them.
    pub lines: Vec<(u32, Vec<NodeId>, bool)>,
    /// Hot-packet queues beside the transmit FIFO (`nic.hot_queues`, the thesis' HCA, Paper
    /// VI §3.2): a line's id and its destinations' packets, in order. Their bytes count in
    /// `tx_bytes`.
    pub hot: Vec<(u32, VecDeque<PacketId>)>,
    /// Where the link's round-robin over the FIFO (0) and the hot queues (1 + index) starts.
    pub hot_turn: usize,
    /// Hot-packet queues taken over the run.
    pub hot_allocated: u64,
    /// Data packets this NIC has created: the count behind their identities (`next_uid`).
    created: u64,
    /// Send queues this NIC has opened: the count behind their numbers (`open_queue`).
    opened: u32,
}

impl Nic {
    /// The hot-packet queue that takes `dst`'s packets: the first whose line names it.
    pub fn hot_queue_of(&self, dst: NodeId) -> Option<usize> {
        self.hot.iter().position(|(id, _)| self.lines.iter().any(|(l, dests, _)| l == id && dests.contains(&dst)))
    }

    /// Queues data packet `pkt`, for `dst`, for the link: in the hot-packet queue of a line
    /// naming `dst`, or else in the transmit FIFO (its bytes counted by the caller).
    pub fn queue_for_link(&mut self, pkt: PacketId, dst: NodeId) {
        match self.hot_queue_of(dst) {
            Some(h) => self.hot[h].1.push_back(pkt),
            None => self.tx.push_back(pkt),
        }
    }

    /// Whether line `id` is stopped.
    pub fn line_stopped(&self, id: u32) -> bool {
        self.lines.iter().any(|&(l, _, stopped)| l == id && stopped)
    }

    /// A NIC of a network of `hosts` hosts.
    pub fn new(out: ChannelId, inp: ChannelId, credits: Vec<crate::switch::Credits>, hosts: usize) -> Nic {
        Nic {
            out,
            inp,
            credits,
            link_busy: false,
            sending_control: false,
            stretch: 0,
            ring: VecDeque::new(),
            qp_of: NodeMap::new(hosts),
            defers: false,
            unqueued: Backlog::default(),
            last_queued: 0,
            wake_at: None,
            tx: VecDeque::new(),
            tx_bytes: 0,
            lines: Vec::new(),
            hot: Vec::new(),
            hot_turn: 0,
            hot_allocated: 0,
            created: 0,
            opened: 0,
        }
    }

    /// The identity of the next data packet this NIC (`node`) creates: its node in the high
    /// bits, its count below. Unique in the run and increasing along each flow, and fixed by the
    /// NIC's own history, so a run split over threads gives every packet the same identity.
    pub fn next_uid(&mut self, node: NodeId) -> u64 {
        self.created += 1;
        (node.0 as u64) << UID_COUNT_BITS | self.created
    }

    /// Opens a send queue of this NIC (`node`) to `dst` in `queues`. Its number counts the
    /// queues the NIC has opened, so it names the queue alike however a run is split over
    /// threads: mechanisms key per-queue state that must not depend on the split by
    /// (`src`, `QueueView::number`).
    pub fn open_queue<H>(&mut self, queues: &mut SendQueues<H>, node: NodeId, dst: NodeId) -> QpId {
        self.opened += 1;
        queues.open(node, dst, self.opened)
    }
}

/// Bits of a data packet's identity that count its NIC's packets (2^40, a trillion).
const UID_COUNT_BITS: u32 = 40;

/// Send queues of every NIC in one slab; emptied queues are recycled (see
/// `Mechanism::release_queue`).
pub struct SendQueues<H> {
    pub slots: Vec<SendQueue<H>>,
    pub free: Vec<QpId>,
}

impl<H> Default for SendQueues<H> {
    fn default() -> Self {
        SendQueues { slots: Vec::new(), free: Vec::new() }
    }
}

impl<H> SendQueues<H> {
    fn open(&mut self, src: NodeId, dst: NodeId, number: u32) -> QpId {
        match self.free.pop() {
            Some(id) => {
                let q = &mut self.slots[id.idx()];
                (q.src, q.dst, q.number, q.open) = (src, dst, number, true);
                id
            }
            None => {
                self.slots.push(SendQueue { src, dst, number, messages: Messages::default(), retx: VecDeque::new(), head_since: 0, active: false, open: true });
                QpId::new(self.slots.len() - 1)
            }
        }
    }
}

/// Receiver-side memory of data packets that a mechanism may resend while the original can
/// still arrive (SRP's in-order mode and fast retransmit), so that the second arrival counts as a
/// duplicate. A packet is tracked from its injection (`Ctx::track_copies`) until the sender has
/// learnt its outcome (`Ctx::settle`, on its ACK or NACK) and no copy of it is in flight, as a
/// receive window advanced by the sender would; untracked packets cost nothing.
#[derive(Default)]
pub struct Copies {
    entries: FxHashMap<u64, CopyState>,
    /// In a run split over threads (`sim::parallel`): what changes the entries of packets whose
    /// destination another thread holds, sent there between windows. A packet's entry lives
    /// where it is delivered; a change made elsewhere arrives before any copy it counts can
    /// (each crosses a channel between the threads first).
    pub(crate) away: Option<Away>,
}

/// `Copies`' changes for other partitions.
pub(crate) struct Away {
    pub me: u16,
    pub layout: std::sync::Arc<crate::layout::Layout>,
    /// (partition, change, packet identity), in the order made.
    pub out: Vec<(u16, CopyChange, u64)>,
}

/// A change to a packet's entry in `Copies`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CopyChange {
    Track,
    Resent,
    Dropped,
    Settle,
}

#[derive(Clone, Copy)]
struct CopyState {
    in_flight: u8,
    delivered: bool,
    settled: bool,
}

impl Copies {
    /// `away` in a run split over threads.
    pub(crate) fn new(away: Option<Away>) -> Copies {
        Copies { entries: FxHashMap::default(), away }
    }

    /// Data packet `uid` for `dst`, just injected, may be resent while it can still arrive.
    pub fn track(&mut self, uid: u64, dst: NodeId) {
        self.change(CopyChange::Track, uid, dst);
    }

    /// A copy of `uid` was resent.
    pub fn resent(&mut self, uid: u64, dst: NodeId) {
        self.change(CopyChange::Resent, uid, dst);
    }

    /// A copy of `uid` was dropped on its way.
    pub fn dropped(&mut self, uid: u64, dst: NodeId) {
        self.change(CopyChange::Dropped, uid, dst);
    }

    /// The sender learnt `uid`'s outcome.
    pub fn settle(&mut self, uid: u64, dst: NodeId) {
        self.change(CopyChange::Settle, uid, dst);
    }

    fn change(&mut self, change: CopyChange, uid: u64, dst: NodeId) {
        if let Some(a) = &mut self.away {
            let q = a.layout.of_host[dst.idx()];
            if q != a.me {
                a.out.push((q, change, uid));
                return;
            }
        }
        self.apply(change, uid);
    }

    /// Applies `change` to `uid`'s entry, held here.
    pub(crate) fn apply(&mut self, change: CopyChange, uid: u64) {
        match change {
            CopyChange::Track => {
                self.entries.insert(uid, CopyState { in_flight: 1, delivered: false, settled: false });
            }
            CopyChange::Resent => {
                if let Some(e) = self.entries.get_mut(&uid) {
                    e.in_flight += 1;
                }
            }
            CopyChange::Dropped => {
                if let Some(e) = self.entries.get_mut(&uid) {
                    e.in_flight -= 1;
                    self.forget_if_done(uid);
                }
            }
            CopyChange::Settle => {
                if let Some(e) = self.entries.get_mut(&uid) {
                    e.settled = true;
                    self.forget_if_done(uid);
                }
            }
        }
    }

    /// A copy of `uid` arrived: true if it is the first (deliver it), false for a duplicate.
    #[inline]
    pub fn arrived(&mut self, uid: u64) -> bool {
        if self.entries.is_empty() {
            return true; // nothing tracked: the usual case, without hashing
        }
        let Some(e) = self.entries.get_mut(&uid) else { return true };
        let first = !e.delivered;
        e.delivered = true;
        e.in_flight -= 1;
        self.forget_if_done(uid);
        first
    }

    fn forget_if_done(&mut self, uid: u64) {
        if self.entries.get(&uid).is_some_and(|e| e.settled && e.in_flight == 0) {
            self.entries.remove(&uid);
        }
    }
}

/// Control packets waiting at each NIC.
pub type ControlQueues = Vec<VecDeque<PacketId>>;

#[cfg(test)]
mod tests {
    use super::{place_by_age, Backlog, InRing, Message, Messages, Waiting, BACKLOG_CHUNK};
    use crate::ids::{NodeId, QpId};
    use std::collections::VecDeque;

    #[test]
    fn a_backlog_keeps_arrival_order_across_its_chunks() {
        // Against a `VecDeque`: pushes and pops in runs that cross chunk ends, empty it, refill.
        let (mut b, mut model) = (Backlog::default(), VecDeque::new());
        let mut next = 0u64;
        for (push, pop) in [(BACKLOG_CHUNK + 5, 3), (2 * BACKLOG_CHUNK, BACKLOG_CHUNK + 7), (1, 10 * BACKLOG_CHUNK), (7, 2)] {
            for _ in 0..push {
                let w = Waiting { created: next, dst: NodeId::new(next as usize % 7), source: 0, packets: 1 };
                b.push_back(w);
                model.push_back(w);
                next += 1;
            }
            for _ in 0..pop {
                assert_eq!(b.pop_front().map(|w| w.created), model.pop_front().map(|w| w.created));
            }
            assert_eq!(b.is_empty(), model.is_empty());
            assert_eq!(b.front().map(|w| w.created), model.front().map(|w| w.created));
            assert!(b.iter().map(|w| w.created).eq(model.iter().map(|w| w.created)));
        }
    }

    #[test]
    fn a_queue_joins_its_ring_after_every_queue_as_old_as_a_full_search_finds() {
        // Rings of every length to 40 with repeated ages, wrapped round their buffer, each
        // age from before the oldest to after the youngest.
        for len in 0..40u64 {
            let mut ring = VecDeque::with_capacity(64);
            for k in 0..50 {
                ring.push_back(InRing { qp: QpId::new(k), age: 0 });
                ring.pop_front();
            }
            ring.extend((0..len).map(|k| InRing { qp: QpId::new(k as usize), age: 10 * (k / 3) }));
            for age in 0..10 * (len / 3 + 2) {
                assert_eq!(place_by_age(&ring, age), ring.partition_point(|e| e.age <= age), "ring of {len}, age {age}");
            }
        }
    }

    fn message(created: u64) -> Message {
        Message { class: 0, source: 0, packets: 1, sent: 0, created }
    }

    #[test]
    fn messages_leave_in_the_order_they_came_whether_the_head_was_taken_or_not() {
        let mut q = Messages::default();
        assert!(q.is_empty() && q.front().is_none() && q.pop_front().is_none());
        q.push_back(message(1));
        q.push_back(message(2));
        assert_eq!(q.pop_front().map(|m| m.created), Some(1));
        q.push_back(message(3));
        q.front_mut().expect("a head").sent = 1;
        assert_eq!(q.iter().map(|m| (m.created, m.sent)).collect::<Vec<_>>(), [(2, 1), (3, 0)]);
        assert_eq!([q.pop_front(), q.pop_front(), q.pop_front()].map(|m| m.map(|m| m.created)), [Some(2), Some(3), None]);
        assert!(q.is_empty());
    }
}
