//! A FIFO whose head younger packets may overtake a bounded number of times (Santos et al.
//! footnote 6: "FIFO with bypass of older packets when the crossbar is busy ... at most 4
//! times"). Stored as per-output queues plus the arrival order.

use super::{Popped, Queueing, Registered};
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, PacketId, PortId};
use crate::plugin::Settings;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[switch.bypass]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BypassSettings {
    /// How many times younger packets may overtake a FIFO head that waits for a busy output
    /// before it alone may go: 4 (Santos et al. footnote 6).
    pub limit: u32,
}

impl Default for BypassSettings {
    fn default() -> Self {
        BypassSettings { limit: 4 }
    }
}

impl Settings for BypassSettings {
    fn validate(&self) -> ConfigResult<()> {
        if self.limit == 0 || self.limit > u32::from(u8::MAX) {
            return Err(ConfigError::new(
                "switch.bypass.limit",
                format!("must be 1 to {}, got {} (input_queues = \"fifo\" is a FIFO without bypass)", u8::MAX, self.limit),
            ));
        }
        Ok(())
    }
}

pub struct Bypass {
    limit: u8,
    /// Per output port, its packets in arrival order.
    queues: Vec<VecDeque<PacketId>>,
    /// Every queued packet in arrival order: the FIFO whose head may be bypassed.
    order: VecDeque<PacketId>,
    /// How many younger packets have left ahead of that head.
    bypassed: u8,
}

impl Registered for Bypass {
    const ABOUT: &'static str = "A FIFO whose head younger packets may overtake `[switch.bypass] limit` times (Santos et al. footnote 6).";
    const DOC: &'static str = "Santos et al.'s switches (footnote 6): a packet behind a head that waits for a busy output may go first, but once the head has been overtaken `limit` times, only the head may leave that input.\n\n| key | default | meaning |\n|---|---|---|\n| `limit` | `4` | Overtakings of one head before it alone may go (1 to 255). |\n";
    const PER_OUTPUT: bool = true;
    type Settings = BypassSettings;

    fn new(s: &BypassSettings, ports: usize) -> Bypass {
        Bypass { limit: s.limit as u8, queues: vec![VecDeque::new(); ports], order: VecDeque::new(), bypassed: 0 }
    }
}

impl Queueing for Bypass {
    fn push(&mut self, pkt: PacketId, out: PortId, _: NodeId, _: u32) -> bool {
        let q = &mut self.queues[out.idx()];
        q.push_back(pkt);
        self.order.push_back(pkt);
        q.len() == 1
    }

    /// Returns, besides the next head for `out`, whether the FIFO head has now been bypassed
    /// its limit of times.
    fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped {
        let q = &mut self.queues[out.idx()];
        let popped = q.pop_front();
        debug_assert_eq!(popped, Some(pkt));
        if self.order.front() == Some(&pkt) {
            self.order.pop_front();
            self.bypassed = 0;
        } else {
            let at = self.order.iter().position(|&p| p == pkt).expect("a queued packet is in the arrival order");
            self.order.remove(at);
            self.bypassed += 1;
        }
        Popped { next: [q.front().copied(), None], pinned: self.bypassed >= self.limit }
    }

    fn head(&self, out: PortId) -> Option<PacketId> {
        self.queues.get(out.idx()).and_then(|q| q.front().copied())
    }

    fn fifo_head(&self) -> Option<PacketId> {
        self.order.front().copied()
    }

    fn for_each(&self, f: impl FnMut(PacketId)) {
        self.order.iter().copied().for_each(f)
    }

    fn check(&self, out_of: &dyn Fn(PacketId) -> PortId, pinned: bool) -> Result<(), String> {
        let queued: usize = self.queues.iter().map(VecDeque::len).sum();
        if self.order.len() != queued || !self.order.iter().all(|p| self.queues[out_of(*p).idx()].contains(p)) {
            return Err("the FIFO order does not list exactly the queued packets".into());
        }
        if self.bypassed > self.limit || pinned != (self.bypassed == self.limit) {
            return Err(format!("head bypassed {} times (limit {}) but pinned = {pinned}", self.bypassed, self.limit));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_is_pinned_at_the_limit() {
        let mut b = Bypass::new(&BypassSettings { limit: 2 }, 2);
        // Packet 0 (the FIFO head) waits for output 0; 1, 2 and 3 go to output 1.
        for (pkt, out) in [(0, 0), (1, 1), (2, 1), (3, 1)] {
            b.push(PacketId(pkt), PortId(out), NodeId(0), 1);
        }
        let popped = |next: Option<u32>, pinned| Popped { next: [next.map(PacketId), None], pinned };
        assert_eq!(b.pop(PacketId(1), PortId(1)), popped(Some(2), false), "first overtaking");
        assert_eq!(b.pop(PacketId(2), PortId(1)), popped(Some(3), true), "second overtaking reaches the limit");
        assert_eq!(b.pop(PacketId(0), PortId(0)), popped(None, false), "the head leaves: count and pin reset");
        assert_eq!((b.bypassed, b.order.iter().copied().collect::<Vec<_>>()), (0, vec![PacketId(3)]));
    }
}
