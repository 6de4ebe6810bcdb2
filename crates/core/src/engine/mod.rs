//! The event queue: a binary heap ordered by (time, kind priority, entity, sequence), so that
//! events at the same picosecond run in an order fixed by the model, never by memory address or
//! hash order (DESIGN.md, "Simulation model").

mod event;
pub use event::Event;

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry {
    time: Time,
    /// Kind priority in the high byte, entity id below: one comparison for both.
    order: u64,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
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
        // Reversed: BinaryHeap is a max-heap and we pop the earliest.
        (o.time, o.order, o.seq).cmp(&(self.time, self.order, self.seq))
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: Time, event: Event) {
        let order = ((event.priority() as u64) << 56) | (event.entity() as u64 & ((1 << 56) - 1));
        self.seq += 1;
        self.heap.push(Entry { time, order, seq: self.seq, event });
    }

    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| {
            self.popped += 1;
            (e.time, e.event)
        })
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    /// Pending events, in no particular order (for invariant checks).
    pub fn pending(&self) -> impl Iterator<Item = &Event> {
        self.heap.iter().map(|e| &e.event)
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
