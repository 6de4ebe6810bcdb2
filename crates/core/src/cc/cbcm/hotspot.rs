//! Throttling decision at the destination (CBCM paper §IV-B2): which sources contribute to
//! endpoint congestion here, whether this node is a hot spot, and the throttling degree D_t.

use crate::ids::NodeId;
use crate::time::Time;

/// What one destination knows.
#[derive(Default)]
pub struct Receiver {
    /// Sources that may contribute to endpoint congestion here, sorted: D_t is their number.
    pub senders: Vec<NodeId>,
    /// Start of the epoch in progress, if a marked packet opened one and every packet since was
    /// marked.
    pub epoch: Option<Time>,
    /// Identified as a hot spot: every sender joins the list, marked or not.
    pub hot: bool,
    /// D_t the senders were last told (0: none).
    pub told: u32,
    /// The bandwidth overhead ε: no throttle packets before this.
    pub quiet_until: Time,
    /// A timer is set for `quiet_until`.
    pub waiting: bool,
}

impl Receiver {
    /// A data packet from `src` arrived, `marked` or not. Returns the start of the epoch it
    /// opened, if any (the caller ends it one epoch later: `epoch_ended`).
    pub fn receive(&mut self, src: NodeId, marked: bool, now: Time) -> Option<Time> {
        if self.hot || marked {
            self.add(src);
        }
        if self.hot {
            return None;
        }
        if !marked {
            // An unmarked packet came through: a path without contention exists, so what marked
            // the others was network congestion, not endpoint congestion.
            self.senders.clear();
            self.epoch = None;
            return None;
        }
        if self.epoch.is_none() {
            self.epoch = Some(now);
            return Some(now);
        }
        None
    }

    fn add(&mut self, src: NodeId) {
        if let Err(i) = self.senders.binary_search(&src) {
            self.senders.insert(i, src);
        }
    }

    /// The epoch that started at `start` ended: if it is still the one in progress, every packet
    /// in it was marked, and this node is a hot spot if they came from more than one source.
    /// One source cannot oversubscribe a link as fast as its own: what marked its packets was
    /// network congestion (the paper's permutations are "never throttled", §VI-B).
    pub fn epoch_ended(&mut self, start: Time) {
        if self.epoch == Some(start) {
            self.epoch = None;
            if self.senders.len() > 1 {
                self.hot = true;
            } else {
                self.senders.clear();
            }
        }
    }

    /// Source `src` unthrottled itself (§IV-B4): it leaves the list; with no sender left, the
    /// node is no longer a hot spot.
    pub fn unthrottled(&mut self, src: NodeId) {
        if let Ok(i) = self.senders.binary_search(&src) {
            self.senders.remove(i);
        }
        if self.senders.is_empty() {
            self.hot = false;
            self.told = 0;
        }
    }

    /// The senders have to be told a new D_t.
    pub fn due(&self) -> bool {
        self.hot && self.senders.len() as u32 != self.told
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_epoch_makes_a_hot_spot_and_an_unmarked_packet_starts_over() {
        let mut r = Receiver::default();
        assert_eq!(r.receive(NodeId(3), true, 100), Some(100));
        assert_eq!(r.receive(NodeId(5), true, 150), None);
        r.receive(NodeId(7), false, 180);
        assert!(r.senders.is_empty());
        // One source alone is not endpoint congestion.
        assert_eq!(r.receive(NodeId(5), true, 190), Some(190));
        r.epoch_ended(190);
        assert!(!r.hot && r.senders.is_empty());
        // The old epoch's end finds another one (or none) in progress.
        r.epoch_ended(100);
        assert!(!r.hot);
        assert_eq!(r.receive(NodeId(5), true, 200), Some(200));
        r.receive(NodeId(3), true, 300);
        r.epoch_ended(200);
        assert!(r.hot && r.due());
        assert_eq!(r.senders, [NodeId(3), NodeId(5)]);
        // A hot spot lists every sender, marked or not.
        r.receive(NodeId(9), false, 400);
        assert_eq!(r.senders.len(), 3);
        for s in [3, 5, 9] {
            r.unthrottled(NodeId(s));
        }
        assert!(!r.hot && !r.due());
    }
}
