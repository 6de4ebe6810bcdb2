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
    /// When the last marked packet arrived.
    pub last_marked: Time,
}

impl Receiver {
    /// A data packet from `src` arrived, `marked` or not. Returns the start of the epoch it
    /// opened, if any (the caller ends it one epoch later: `epoch_ended`).
    pub fn receive(&mut self, src: NodeId, marked: bool, now: Time) -> Option<Time> {
        if marked {
            self.last_marked = now;
        }
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

    /// A hot spot that received no marked packet for a whole `epoch` before `now` is one no
    /// longer: it forgets its senders (they stay throttled until they unthrottle themselves).
    /// The paper does not say when a hot spot ends; without this, a destination taken for one
    /// by mistake would list every later sender for ever. Returns when to look again if it is
    /// still hot.
    pub fn cool(&mut self, now: Time, epoch: Time) -> Option<Time> {
        if !self.hot {
            return None;
        }
        if now >= self.last_marked + epoch {
            self.hot = false;
            self.senders.clear();
            self.told = 0;
            return None;
        }
        Some(self.last_marked + epoch)
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

    #[test]
    fn a_hot_spot_without_marks_for_an_epoch_cools_down() {
        let mut r = Receiver::default();
        r.receive(NodeId(1), true, 0);
        r.receive(NodeId(2), true, 50);
        r.epoch_ended(0);
        assert!(r.hot);
        // Marked at 50: still hot until 150.
        assert_eq!(r.cool(100, 100), Some(150));
        r.receive(NodeId(3), false, 120);
        assert_eq!(r.senders.len(), 3);
        assert_eq!(r.cool(150, 100), None);
        assert!(!r.hot && r.senders.is_empty());
    }
}
