//! The event queue: a binary heap ordered by (time, kind priority, entity, sequence), so that
//! events at the same picosecond run in an order fixed by the model, never by memory address or
//! hash order (DESIGN.md, "Simulation model").

mod event;
pub use event::Event;

use crate::time::Time;
use dary_heap::QuaternaryHeap;
use std::cmp::{Ordering, Reverse};

/// Bits of the order key: time (64) | kind priority (8) | entity (24) | sequence (32). The
/// sequence only breaks ties between events of one entity and kind at the same picosecond; it
/// wraps after 2^32 events, which can reorder such ties only if one of them stayed pending
/// across four billion insertions: the order stays deterministic either way.
const ENTITY_BITS: u32 = 24;
const SEQ_BITS: u32 = 32;

struct Entry {
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        self.key.cmp(&o.key)
    }
}

/// A 4-ary heap: shallower than a binary heap, and its children share cache lines.
#[derive(Default)]
pub struct EventQueue {
    heap: QuaternaryHeap<Reverse<Entry>>,
    seq: u32,
    popped: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: Time, event: Event) {
        let entity = event.entity() as u128 & ((1 << ENTITY_BITS) - 1);
        let key = (time as u128) << 64
            | (event.priority() as u128) << (ENTITY_BITS + SEQ_BITS)
            | entity << SEQ_BITS
            | self.seq as u128;
        self.seq = self.seq.wrapping_add(1);
        self.heap.push(Reverse(Entry { key, event }));
    }

    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|Reverse(e)| {
            self.popped += 1;
            ((e.key >> 64) as Time, e.event)
        })
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse(e)| (e.key >> 64) as Time)
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    /// Pending events, in no particular order (for invariant checks).
    pub fn pending(&self) -> impl Iterator<Item = &Event> {
        self.heap.iter().map(|Reverse(e)| &e.event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_by_time_then_priority_then_entity_then_insertion() {
        let mut q = EventQueue::default();
        q.push(5, Event::NicWake { node: 2 });
        q.push(5, Event::NicWake { node: 1 });
        q.push(5, Event::Credit { ch: 9, vc: 0, bytes: 1 });
        q.push(3, Event::NicWake { node: 7 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order[0].0, 3);
        // Credits (priority 0) before NIC wake-ups; then entity order.
        assert!(matches!(order[1].1, Event::Credit { .. }));
        assert!(matches!(order[2].1, Event::NicWake { node: 1 }));
        assert!(matches!(order[3].1, Event::NicWake { node: 2 }));
    }
}
