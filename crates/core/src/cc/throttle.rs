//! Rate throttling by a gap after each packet, the source response of ECN with IPD (SRP paper
//! §2) and of InfiniBand CC's injection rate delay (thesis §2.3 [L507]): a throttled send queue
//! may inject once the previous packet's serialization plus the current delay has passed. The
//! delay steps down as timers expire, so the earliest injection is found step by step.

use crate::time::Time;

/// Earliest time `t >= now` with `last_end + delay(t) <= t`, where `last_end` is when the
/// previous packet's tail left the NIC and `delay_at(t)` returns the delay in force at `t`
/// and the time that delay ends (its next step down).
pub(super) fn earliest(last_end: Time, now: Time, delay_at: impl Fn(Time) -> (Time, Time)) -> Time {
    let mut t = now;
    loop {
        let (delay, until) = delay_at(t);
        let ready = (last_end + delay).max(t);
        if ready < until || delay == 0 {
            return ready;
        }
        t = until;
    }
}

#[cfg(test)]
mod tests {
    use super::earliest;

    #[test]
    fn waits_for_the_delay_in_force_when_it_ends() {
        // Delay 10 until t = 100, then 4 forever.
        let delay = |t: u64| if t < 100 { (10, 100) } else { (4, u64::MAX) };
        assert_eq!(earliest(50, 0, delay), 60);
        // The previous packet ended at 95: 95 + 10 is past 100, where the delay is 4: 100.
        assert_eq!(earliest(95, 0, delay), 100);
        assert_eq!(earliest(200, 150, delay), 204);
    }
}
