//! Injection throttling and unthrottling at sources (CBCM paper §IV-B3, Algorithm 1, and
//! §IV-B4) for one (source, hot spot) pair.
//!
//! Algorithm 1 counts tokens in flits, one flit per cycle's link time: a token every D_t cycles
//! is 1/D_t of the link. Here tokens are link time in picoseconds, accruing at `rate / D_t` per
//! unit of time, and a packet needs its serialization time in tokens. Tokens are not capped
//! while throttled, as in Algorithm 1; a new throttle packet resets them (line 7).

use crate::time::Time;

pub struct Throttled {
    /// D_t, the throttling degree the hot spot sent.
    pub dt: u32,
    /// Tokens (ps of link time) as of `at`.
    tokens: f64,
    at: Time,
    /// End of the generation-rate epoch in progress, and the link time of the packets
    /// generated in it.
    pub epoch_end: Time,
    pub generated: Time,
}

impl Throttled {
    pub fn new(dt: u32, now: Time, epoch_end: Time) -> Throttled {
        Throttled { dt, tokens: 0.0, at: now, epoch_end, generated: 0 }
    }

    /// A throttle packet with degree `dt` arrived: tokens start from zero (Algorithm 1 line 7).
    /// One from a router (§VI-A) counts only if it throttles harder: a router sees only the
    /// senders whose traffic crosses it, and must not loosen the destination's D_t.
    pub fn reset(&mut self, dt: u32, from_router: bool, now: Time) {
        if !from_router || dt > self.dt {
            (self.dt, self.tokens, self.at) = (dt, 0.0, now);
        }
    }

    fn tokens_at(&self, now: Time, rate: f64) -> f64 {
        self.tokens + (now - self.at) as f64 * rate / self.dt as f64
    }

    /// When a packet of `serialization` may go, at `rate` (a share of the link) / D_t.
    pub fn ready_at(&self, serialization: Time, now: Time, rate: f64) -> Time {
        let missing = serialization as f64 - self.tokens_at(now, rate);
        if missing <= 0.0 {
            now
        } else {
            now + (missing * self.dt as f64 / rate).ceil() as Time
        }
    }

    /// A packet of `serialization` went at `now`.
    pub fn spend(&mut self, serialization: Time, now: Time, rate: f64) {
        (self.tokens, self.at) = (self.tokens_at(now, rate) - serialization as f64, now);
    }

    /// The generation-rate epoch of length `epoch` ended: whether the source unthrottles (it
    /// generated less than its throttled rate and its send queue is not `full`, §IV-B4), else a
    /// new epoch starts.
    pub fn epoch_ended(&mut self, epoch: Time, rate: f64, full: bool) -> bool {
        let unthrottle = !full && (self.generated as f64) < epoch as f64 * rate / self.dt as f64;
        self.epoch_end += epoch;
        self.generated = 0;
        unthrottle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_of_the_link_for_d_t_4() {
        // 200 ps packets at D_t = 4: one every 800 ps.
        let mut t = Throttled::new(4, 0, 10_000);
        assert_eq!(t.ready_at(200, 0, 1.0), 800);
        t.spend(200, 800, 1.0);
        assert_eq!(t.ready_at(200, 800, 1.0), 1_600);
        // Unused tokens accumulate: after a pause, a burst.
        assert_eq!(t.ready_at(200, 5_000, 1.0), 5_000);
        t.reset(2, false, 5_000);
        assert_eq!(t.ready_at(200, 5_000, 1.0), 5_400);
    }

    #[test]
    fn a_router_can_only_tighten_the_throttle() {
        let mut t = Throttled::new(4, 0, 10_000);
        t.reset(2, true, 100);
        assert_eq!((t.dt, t.ready_at(200, 100, 1.0)), (4, 800), "a router's smaller D_t is ignored");
        t.reset(8, true, 100);
        assert_eq!((t.dt, t.ready_at(200, 100, 1.0)), (8, 1_700), "a larger one applies and resets the tokens");
        t.reset(4, false, 200);
        assert_eq!(t.dt, 4, "the destination's D_t always applies");
    }

    #[test]
    fn unthrottles_below_its_rate_unless_its_queue_is_full() {
        let mut t = Throttled::new(4, 0, 1_000);
        t.generated = 200; // 0.2 of the epoch's link time < 1/4
        assert!(t.epoch_ended(1_000, 1.0, false));
        t.generated = 300;
        assert!(!t.epoch_ended(1_000, 1.0, false));
        assert!(!t.epoch_ended(1_000, 1.0, true));
    }
}
