//! Rate throttling by a gap after each packet, the source response of ECN with IPD (SRP paper
//! §2) and of InfiniBand CC's injection rate delay (thesis §2.3.2): a throttled send queue
//! may inject once the previous packet's serialization plus the current delay has passed. The
//! delay steps down as timers expire, so the earliest injection is found step by step.

use crate::time::Time;

/// Steps walked one by one before the search bisects: a delay usually ends within a few.
const WALKED_STEPS: u32 = 8;

/// Earliest time `t >= now` with `last_end + delay(t) <= t`, where `last_end` is when the
/// previous packet's tail left the NIC and `delay_at(t)` returns the delay in force at `t`
/// and the time that delay ends (its next step down).
///
/// The delay never grows with `t`, so whether `t` is early enough is false, then true: after a
/// few steps walked one by one, the search bisects, so a delay of hours that steps down by
/// nanoseconds costs 64 evaluations, not billions.
pub(super) fn earliest(last_end: Time, now: Time, delay_at: impl Fn(Time) -> (Time, Time)) -> Time {
    let mut t = now;
    for _ in 0..WALKED_STEPS {
        let (delay, until) = delay_at(t);
        let ready = last_end.saturating_add(delay).max(t);
        if ready < until || delay == 0 {
            return ready;
        }
        t = until;
    }
    let early_enough = |t: Time| last_end.saturating_add(delay_at(t).0) <= t;
    // `hi` is early enough: the delay there is at most the one in force at `t`.
    let (mut lo, mut hi) = (t, last_end.saturating_add(delay_at(t).0).max(t));
    if early_enough(lo) {
        return lo;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if early_enough(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
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

    #[test]
    fn a_long_delay_in_many_small_steps_is_found_by_bisection() {
        // 10^16 ps stepping down 50 ps every 2,000 ps: walking it would take 2 x 10^14 steps.
        // ready at t: 10^16 - 50 floor(t / 2000) <= t, i.e. t >= 10^16 / 1.025 (about).
        let delay = |t: u64| {
            let k = t / 2_000;
            (10u64.pow(16).saturating_sub(50 * k), (k + 1) * 2_000)
        };
        let t = earliest(0, 0, delay);
        assert!(delay(t).0 <= t, "{t} is early enough");
        assert!(delay(t - 1).0 > t - 1, "{t} is the earliest");
        // Against the walk where it is short: the same answers.
        let short = |t: u64| if t < 100 { (10, 100) } else { (4, u64::MAX) };
        assert_eq!(earliest(95, 0, short), 100);
    }
}
