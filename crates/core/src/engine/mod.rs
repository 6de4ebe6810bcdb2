//! The event queue, ordered by (time, kind priority, entity, sequence), so that events at the
//! same picosecond run in an order fixed by the model, never by memory address or hash order
//! (docs/architecture.md, "Simulation model").

use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Bits of the order key: time (64) | kind priority (4) | entity (24) | sequence (36). The
/// sequence only breaks ties between events of one entity and kind at the same picosecond,
/// which one entity creates (`Ranked::entity`), so their order is their creator's and a run split
/// over threads (`sim::parallel`) orders them alike. It wraps after 2^36 (69 billion) events,
/// which could reorder two such ties created across the wrap: no run comes near.
const ENTITY_BITS: u32 = 24;
const SEQ_BITS: u32 = 36;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;
/// Bits of a key between its time and its sequence: the kind priority and the entity.
const RANK_LOW_BITS: u32 = 4 + ENTITY_BITS;
/// Buckets of at most this many events are sorted by places (`EventQueue::sort_small`), larger
/// ones by words (`EventQueue::sort_current`). Places cost the square of the size in
/// comparisons, but none of them branches: in pairs against the insertion sort the standard sort
/// uses up to 20, 0.973 at 256 hosts and 0.977 on `ib-t42`'s p = 0 IB CC run; at 256 hosts
/// places up to 8 were 2.7% slower than up to 12, and up to 32 1.1% slower than up to 20.
const SMALL_BUCKET: usize = 20;

/// Buckets are 2^10 ps (about 1 ns) wide; the ring covers 2^14 of them (16.8 us): link
/// latencies, serializations and most arrival gaps land in the ring, later events in `far`.
const BUCKET_SHIFT: u32 = 10;
/// A large network's buckets are 2^8 ps wide (the ring then covers 4.2 us): it runs thousands of
/// events per nanosecond (65,536 hosts: about 3,600), and a bucket of that many costs more to
/// gather and sort than four of a quarter the size.
const BUCKET_SHIFT_LARGE: u32 = 8;
/// A block's queue (`sim::blocks`) holds only its block's events, a hundredth of a large
/// network's: its buckets are 2^11 ps (2 ns) wide, so that each still gathers events for the
/// prefetch to look ahead in, and few enough that sorting a bucket costs little (65,536 hosts in
/// 123 blocks, one thread, 30 us: 2^12 ps ran 0.93-0.97 of the time of 2^14 ps, 2^11 ps 0.98 of
/// 2^12, 2^10 ps 1.03-1.04 of 2^11).
const BUCKET_SHIFT_BLOCK: u32 = 11;
const RING_BITS: u32 = 14;
const RING: u64 = 1 << RING_BITS;

/// What the queue needs of an event to order it among those at the same picosecond: the model
/// gives each kind a priority and each event the entity it acts on (`event::Event`).
pub trait Ranked: Copy {
    /// Among events at one time, lower first (at most 15).
    fn priority(&self) -> u8;
    /// Among events at one time and priority, lower first (its low 24 bits count).
    fn entity(&self) -> u64;
}

#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }
    fn bucket(&self, shift: u32) -> u64 {
        self.time() >> shift
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

/// A calendar queue (Brown 1988): a ring of 1 ns buckets over the near future, the bucket being
/// served kept sorted, and a heap for the far future. Pushing is O(1) and popping touches a few
/// cache lines, where a heap of the tens of thousands of events pending in a large network
/// misses the cache at every level. Events pop in strict key order, exactly as from a heap.
///
/// Ring buckets are intrusive lists in one pool of nodes, so the queue's memory is one buffer
/// as large as the most events ever pending, with nothing for the allocator to fragment. A node
/// holds up to `CHUNK` events of its bucket side by side: serving a bucket follows one pointer
/// per `CHUNK` events instead of one per event (on large networks each was a cache miss, the
/// nodes of a bucket scattered over the pool).
pub struct EventQueue<E> {
    /// log2 of the bucket width in ps.
    shift: u32,
    /// The absolute bucket number being served.
    base: u64,
    /// Its events, sorted by descending key: the next event is the last.
    current: Vec<Entry<E>>,
    /// Reused buffers of `sort_current`.
    words: Vec<u64>,
    sorted: Vec<Entry<E>>,
    /// Each ring slot's list.
    slots: Vec<Slot>,
    pool: Vec<Node<E>>,
    free: Vec<u32>,
    /// Bit b set when ring slot b holds events.
    occupied: Vec<u64>,
    far: BinaryHeap<Reverse<Entry<E>>>,
    seq: u64,
    popped: u64,
    /// Key of the event popped last.
    last: u128,
    len: usize,
}

/// Events per node: 8 of 32 bytes fill four cache lines, which hardware prefetchers read
/// together.
const CHUNK: usize = 8;

struct Node<E> {
    entries: [Entry<E>; CHUNK],
    next: u32,
}

/// A ring slot: its list's first node, the one events are added to, and how many that node
/// holds (every later node is full). The count lives here, not in the node: a push then reads
/// no line of a node the caches may long have dropped.
#[derive(Clone, Copy)]
struct Slot {
    head: u32,
    len: u32,
}

const EMPTY: Slot = Slot { head: NIL, len: 0 };

const NIL: u32 = u32::MAX;

impl<E: Ranked> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue::new(false)
    }
}

impl<E: Ranked> EventQueue<E> {
    /// An empty queue, its buckets sized for a `large` network (`memory::LARGE_RUN_BYTES`) or
    /// a smaller one. The width changes the work, never the order of the events.
    pub fn new(large: bool) -> Self {
        Self::with_shift(if large { BUCKET_SHIFT_LARGE } else { BUCKET_SHIFT })
    }

    /// An empty queue for one block of a run served block by block (`sim::blocks`).
    pub fn for_block() -> Self {
        Self::with_shift(BUCKET_SHIFT_BLOCK)
    }

    fn with_shift(shift: u32) -> Self {
        EventQueue {
            shift,
            base: 0,
            current: Vec::new(),
            words: Vec::new(),
            sorted: Vec::new(),
            slots: vec![EMPTY; RING as usize],
            pool: Vec::new(),
            free: Vec::new(),
            occupied: vec![0; (RING / 64) as usize],
            far: BinaryHeap::new(),
            seq: 0,
            popped: 0,
            last: 0,
            len: 0,
        }
    }

    // Inlined, a caller's event kind is known here, and its priority and entity fold away.
    #[inline(always)]
    pub fn push(&mut self, time: Time, event: E) {
        let key = Self::key(time, &event) | self.seq as u128;
        self.seq = (self.seq + 1) & SEQ_MASK;
        self.len += 1;
        self.place(Entry { key, event });
    }

    /// The order key of `event` at `time`, its sequence bits zero.
    #[inline(always)]
    fn key(time: Time, event: &E) -> u128 {
        let entity = event.entity() as u128 & ((1 << ENTITY_BITS) - 1);
        (time as u128) << 64 | (event.priority() as u128) << (ENTITY_BITS + SEQ_BITS) | entity << SEQ_BITS
    }

    /// Whether `event` at `time`, had it been pushed, would have popped already, the clock
    /// standing at `now`: it orders before the event popped last, or it is due before `now`
    /// (the clock moved past the last event without popping one). What `sim::lazy_link` settles
    /// by. Exact for events of which one entity has at most one pending per kind.
    #[inline]
    pub fn passed(&self, time: Time, event: &E, now: Time) -> bool {
        Self::key(time, event) < self.last.max((now as u128) << 64)
    }

    /// Most events join a ring bucket whose first node has room: that path is inlined into
    /// every `push` (the call alone was 2% of the 256-host benchmark's instructions).
    #[inline]
    fn place(&mut self, e: Entry<E>) {
        let b = e.bucket(self.shift);
        if b > self.base && b < self.base + RING {
            let slot = (b & (RING - 1)) as usize;
            let Slot { head, len } = self.slots[slot];
            if head != NIL && (len as usize) < CHUNK {
                self.pool[head as usize].entries[len as usize] = e;
                self.slots[slot].len += 1;
                return;
            }
        }
        self.place_else(e, b);
    }

    /// Where `place` did not put `e` (in bucket `b`): the bucket being served, a new node, or
    /// the far heap.
    fn place_else(&mut self, e: Entry<E>, b: u64) {
        if b <= self.base {
            // Into the bucket being served, keeping it sorted (it holds a handful of events).
            let at = self.current.partition_point(|x| x.key > e.key);
            self.current.insert(at, e);
        } else if b < self.base + RING {
            // The bucket is empty or its first node full: a node goes before the others.
            let slot = (b & (RING - 1)) as usize;
            let head = self.slots[slot].head;
            let id = match self.free.pop() {
                Some(id) => {
                    // A recycled node: only its first entry is written, not the whole chunk.
                    let n = &mut self.pool[id as usize];
                    (n.entries[0], n.next) = (e, head);
                    id
                }
                None => {
                    self.pool.push(Node { entries: [e; CHUNK], next: head });
                    (self.pool.len() - 1) as u32
                }
            };
            self.slots[slot] = Slot { head: id, len: 1 };
            self.occupied[slot / 64] |= 1 << (slot % 64);
        } else {
            self.far.push(Reverse(e));
        }
    }

    /// The `k`-th event to pop after the next one (0: the next), if it is in the bucket being
    /// served: what `sim::prefetch` looks ahead at.
    #[inline]
    pub fn peek_current(&self, k: usize) -> Option<&E> {
        self.current.len().checked_sub(k + 1).map(|i| &self.current[i].event)
    }

    /// The time of the next event, if any is pending.
    #[inline]
    pub fn next_time(&mut self) -> Option<Time> {
        while self.current.is_empty() {
            if self.len == 0 || !self.advance() {
                return None;
            }
        }
        self.current.last().map(Entry::time)
    }

    /// Pops the next event if it is due before `until`.
    pub fn pop_before(&mut self, until: Time) -> Option<(Time, E)> {
        if self.next_time()? >= until {
            return None;
        }
        let e = self.current.pop().expect("not empty");
        self.len -= 1;
        self.popped += 1;
        self.last = e.key;
        Some((e.time(), e.event))
    }

    /// Moves `base` to the next bucket holding events and makes it current. False if no event
    /// is pending.
    fn advance(&mut self) -> bool {
        let next = match self.next_occupied() {
            Some(b) => b,
            None => match self.far.peek() {
                Some(Reverse(e)) => e.bucket(self.shift),
                None => return false,
            },
        };
        self.base = next;
        // Far events that now fall inside the ring (or in the new current bucket) move in.
        while let Some(Reverse(e)) = self.far.peek() {
            if e.bucket(self.shift) >= self.base + RING {
                break;
            }
            let Reverse(e) = self.far.pop().expect("peeked");
            self.place(e);
        }
        let slot = (self.base & (RING - 1)) as usize;
        let Slot { head: mut id, mut len } = std::mem::replace(&mut self.slots[slot], EMPTY);
        self.occupied[slot / 64] &= !(1 << (slot % 64));
        while id != NIL {
            let node = &self.pool[id as usize];
            self.current.extend_from_slice(&node.entries[..len as usize]);
            self.free.push(id);
            (id, len) = (node.next, CHUNK as u32);
        }
        self.sort_current();
        true
    }

    /// Sorts the bucket being served by descending key: a small one by places (`sort_small`).
    /// A large bucket (a large network's, or a saturated one's lockstep events: hundreds at one
    /// time) is sorted as a word per event (its rank: time within the bucket, kind priority and
    /// entity, the key without its sequence; and its index), 8 bytes moved per step where an
    /// event is 32, then put in that order; events of one rank, rare, in their keys' order.
    fn sort_current(&mut self) {
        let n = self.current.len();
        let index_bits = 64 - self.shift - RANK_LOW_BITS;
        if n <= SMALL_BUCKET {
            return self.sort_small();
        }
        if n >> index_bits != 0 {
            return self.sort_by_keys();
        }
        // Every event is in bucket `base`: the rank fits the word's high bits.
        let origin = (self.base << self.shift) as u128;
        let rank = |e: &Entry<E>| ((e.key >> SEQ_BITS) - (origin << RANK_LOW_BITS)) as u64;
        let mut words = std::mem::take(&mut self.words);
        words.clear();
        words.extend(self.current.iter().enumerate().map(|(i, e)| rank(e) << index_bits | i as u64));
        words.sort_unstable();
        let index = |w: u64| (w & ((1 << index_bits) - 1)) as usize;
        let mut start = 0;
        for end in 1..=n {
            if end == n || words[end] >> index_bits != words[start] >> index_bits {
                if end - start > 1 {
                    let current = &self.current;
                    words[start..end].sort_unstable_by_key(|&w| current[index(w)].key);
                }
                start = end;
            }
        }
        self.sorted.clear();
        self.sorted.extend(words.iter().rev().map(|&w| self.current[index(w)]));
        std::mem::swap(&mut self.current, &mut self.sorted);
        self.words = words;
    }

    /// Sorts a small bucket by descending key without a branch on the keys, whose outcomes no
    /// predictor can know: an event's place is the number of keys above its own. Keys differ
    /// by their sequences; two alike (sequences 2^36 apart) would share a place, and the
    /// places not summing to those of distinct keys sends the bucket to the standard sort.
    fn sort_small(&mut self) {
        let n = self.current.len();
        let mut place = [0u8; SMALL_BUCKET];
        for (p, e) in place.iter_mut().zip(&self.current) {
            *p = self.current.iter().map(|o| (o.key > e.key) as u8).sum();
        }
        if place.iter().map(|&p| p as usize).sum::<usize>() != n * (n - 1) / 2 {
            return self.sort_by_keys();
        }
        self.sorted.clear();
        self.sorted.extend_from_slice(&self.current);
        for (e, &p) in self.sorted.iter().zip(&place) {
            self.current[p as usize] = *e;
        }
    }

    /// Sorts the bucket being served by its keys, where neither places nor words can: apart,
    /// as it hardly ever runs.
    #[cold]
    #[inline(never)]
    fn sort_by_keys(&mut self) {
        self.current.sort_unstable_by_key(|e| Reverse(e.key));
    }

    /// The first occupied bucket after `base` within the ring, by absolute number.
    fn next_occupied(&self) -> Option<u64> {
        let start = ((self.base + 1) & (RING - 1)) as usize;
        let words = self.occupied.len();
        for i in 0..=words {
            let w = (start / 64 + i) % words;
            let mut bits = self.occupied[w];
            if i == 0 {
                bits &= u64::MAX << (start % 64);
            }
            if bits != 0 {
                let slot = (w * 64 + bits.trailing_zeros() as usize) as u64;
                let offset = (slot + RING - (self.base + 1) % RING) % RING;
                return Some(self.base + 1 + offset);
            }
        }
        None
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    /// Pending events, in no particular order (for invariant checks).
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        let ring = self.slots.iter().flat_map(move |&Slot { head, len }| {
            std::iter::successors((head != NIL).then_some((head, len)), move |&(id, _)| {
                let n = self.pool[id as usize].next;
                (n != NIL).then_some((n, CHUNK as u32))
            })
            .flat_map(move |(id, len)| &self.pool[id as usize].entries[..len as usize])
        });
        self.current.iter().chain(ring).chain(self.far.iter().map(|Reverse(e)| e)).map(|e| &e.event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event of the tests: a kind's priority, the entity it acts on, and a tag to tell the
    /// events apart.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Ev {
        priority: u8,
        entity: u64,
        tag: u32,
    }

    impl Ranked for Ev {
        fn priority(&self) -> u8 {
            self.priority
        }
        fn entity(&self) -> u64 {
            self.entity
        }
    }

    /// A credit (the model's priority 0) on channel `ch`, a link free (1), a crossbar transfer
    /// (2), a NIC wake-up (8): `event::Event::priority`'s ranks.
    fn credit(ch: u64, tag: u32) -> Ev {
        Ev { priority: 0, entity: ch, tag }
    }
    fn link_free(ch: u64) -> Ev {
        Ev { priority: 1, entity: ch, tag: 0 }
    }
    fn wake(node: u64) -> Ev {
        Ev { priority: 8, entity: node, tag: 0 }
    }

    #[test]
    fn pops_by_time_then_priority_then_entity_then_insertion() {
        let mut q = EventQueue::default();
        q.push(5, wake(2));
        q.push(5, wake(1));
        q.push(5, credit(9, 1));
        q.push(3, wake(7));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_before(Time::MAX)).collect();
        assert_eq!(order[0].0, 3);
        // Credits (priority 0) before NIC wake-ups; then entity order.
        assert_eq!([order[1].1, order[2].1, order[3].1], [credit(9, 1), wake(1), wake(2)]);
    }

    #[test]
    fn an_event_has_passed_once_one_after_it_popped_or_the_clock_moved_beyond_it() {
        let mut q = EventQueue::default();
        let free = link_free;
        q.push(5, free(3));
        q.push(5, Ev { priority: 2, entity: 0, tag: 0 });
        assert!(!q.passed(5, &free(2), 0));
        q.pop_before(Time::MAX);
        // The clock is at 5, the link free on channel 3 has run: one on 2 would have run
        // before it, one on 4 after it.
        assert!(q.passed(5, &free(2), 5));
        assert!(!q.passed(5, &free(4), 5));
        q.pop_before(Time::MAX);
        // A crossbar event (priority 2) ran: every link free at 5 had run before it.
        assert!(q.passed(5, &free(4), 5));
        assert!(!q.passed(6, &free(0), 5));
        // The clock moved to 8 with no event: what is due before 8 has passed, nothing at 8.
        assert!(q.passed(7, &free(9), 8));
        assert!(!q.passed(8, &free(0), 8));
    }

    /// A bucket of up to `SMALL_BUCKET` events is sorted by places, a larger one by words; either
    /// way events of one rank (time, kind, entity) still pop in the order they were pushed,
    /// though gathering takes a bucket's chunks newest first.
    #[test]
    fn a_bucket_of_any_size_pops_in_key_order_and_one_rank_in_push_order() {
        for size in [2, 7, SMALL_BUCKET, SMALL_BUCKET + 1, 60] {
            for mut q in [EventQueue::<Ev>::new(false), EventQueue::new(true), EventQueue::for_block()] {
                let t = 3 << q.shift;
                let mut pushed = Vec::new();
                for n in 0..size as u32 {
                    // Half on channel 4 at one time (one rank), the rest spread over the bucket.
                    let (time, ch) = if n % 2 == 0 { (t + 1, 4) } else { (t + (n % 7) as u64, n % 5) };
                    q.push(time, credit(ch as u64, n));
                    pushed.push((time, ch as u64, n));
                }
                // Time, then entity (the kind is one), then push order (`bytes` counts pushes).
                pushed.sort();
                assert_eq!(pop_credits(&mut q), pushed, "{size} events in buckets of 2^{} ps", q.shift);
            }
        }
    }

    /// Two events of one key (their sequences 2^36 apart) both pop: sorting a small bucket by
    /// places would give them one place, and lose one, without its check.
    #[test]
    fn two_events_of_one_key_in_a_small_bucket_both_pop() {
        let mut q = EventQueue::default();
        let t = 3 << q.shift;
        q.push(t, credit(4, 1));
        q.push(t + 1, credit(4, 2));
        // The sequence wrapped: the next push's key is the first's.
        q.seq = 0;
        q.push(t, credit(4, 3));
        let mut popped = pop_credits(&mut q);
        popped.sort();
        assert_eq!(popped, [(t, 4, 1), (t, 4, 3), (t + 1, 4, 2)]);
    }

    /// Every event of `q`, all credits, as (time, channel, bytes) in the order they pop.
    fn pop_credits(q: &mut EventQueue<Ev>) -> Vec<(Time, u64, u32)> {
        std::iter::from_fn(|| q.pop_before(Time::MAX)).map(|(time, e)| (time, e.entity, e.tag)).collect()
    }

    #[test]
    fn full_buckets_spill_into_more_chunks_and_still_pop_in_order() {
        for mut q in [EventQueue::<Ev>::new(false), EventQueue::new(true), EventQueue::for_block()] {
            let shift = q.shift;
            // 3 * CHUNK + 1 events in one bucket, pushed in a scrambled order, and some in the
            // next buckets and beyond the ring.
            let times: Vec<Time> = (0..3 * CHUNK as u64 + 1)
                .map(|i| (5 << shift) + (i * 37) % (1 << shift))
                .chain([7 << shift, (6 << shift) + 100, (2 * RING) << shift])
                .collect();
            for (n, &t) in times.iter().enumerate() {
                q.push(t, wake(n as u64));
            }
            assert_eq!(q.pending().count(), times.len());
            let popped: Vec<Time> = std::iter::from_fn(|| q.pop_before(Time::MAX)).map(|(t, _)| t).collect();
            let mut sorted = times.clone();
            sorted.sort_unstable();
            assert_eq!(popped, sorted, "buckets of 2^{shift} ps");
            assert!(q.is_empty());
        }
    }
}
