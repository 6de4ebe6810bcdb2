//! Congestion detection at switches (CBCM paper §IV-B1): each output's contention degree, its
//! moving average and the amplitude of its oscillation, and from them whether the output has
//! sustained contention.
//!
//! The paper samples a randomized contention degree D_cr every cycle: one request drawn per
//! input, counted at the output it asks for. Its expectation is the weighted degree D_cw (each
//! of an input's v requests weighs 1/v), which the paper proposes first and approximates with
//! D_cr only to spare hardware a division. An event-driven switch sees requests change only at
//! events, so here D_cw is kept exactly, as a step function of time, and the moving averages are
//! its time averages: over `window` for MA(D), and the maximum and minimum per
//! `bound_interval`, averaged over the window, for the amplitude. Without the randomized
//! draw's noise the amplitude is that of the contention itself (docs/validation.md).

use crate::time::Time;

/// Metrics within this of 1 count as 1: D_cw sums fractions in floating point, and a single
/// steady flow (a contention degree of exactly 1) must not read as sustained contention.
const SLACK: f64 = 1e-9;

/// The requests of one switch and the contention degree they make per key: per output port
/// (§IV-B1), or per destination node for detection at intermediate routers (§VI-A).
#[derive(Default)]
pub struct Requests {
    /// Per input: the keys its VCs request with how many VCs request each, and their total.
    inputs: Vec<(Vec<(u32, u16)>, u32)>,
    /// Per key: D_cw now and its history.
    pub degrees: Vec<Degree>,
}

impl Requests {
    /// Input `input` starts (`on`) or stops requesting `key` on one VC at `now`: updates the
    /// degree of every key the input requests, as its weights are renormalized.
    pub fn change(&mut self, input: usize, key: usize, on: bool, now: Time, window: &Window) {
        if self.inputs.len() <= input {
            self.inputs.resize_with(input + 1, Default::default);
        }
        if self.degrees.len() <= key {
            self.degrees.resize_with(key + 1, || Degree::new(window));
        }
        let (entries, total) = &mut self.inputs[input];
        let changed = match entries.iter().position(|e| e.0 == key as u32) {
            Some(i) => i,
            None => {
                entries.push((key as u32, 0));
                entries.len() - 1
            }
        };
        let before = *total;
        let after = if on { before + 1 } else { before - 1 };
        let weight = |n: u16, total: u32| if total == 0 { 0.0 } else { n as f64 / total as f64 };
        for (i, (k, n)) in entries.iter_mut().enumerate() {
            let new_n = match (i == changed, on) {
                (false, _) => *n,
                (true, true) => *n + 1,
                (true, false) => *n - 1,
            };
            let delta = weight(new_n, after) - weight(*n, before);
            *n = new_n;
            let d = &mut self.degrees[*k as usize];
            d.set(now, d.value + delta, window);
        }
        entries.retain(|e| e.1 != 0);
        *total = after;
    }

    /// Whether `key` has sustained contention at `now` (marking its packets).
    pub fn congested(&mut self, key: usize, now: Time, window: &Window) -> bool {
        self.degrees.get_mut(key).is_some_and(|d| d.metric(now, window) > 1.0 + SLACK)
    }
}

/// The lengths the moving averages run over.
pub struct Window {
    /// BoundSampleInterval: the maximum and minimum of the degree are taken per interval.
    pub interval: Time,
    /// NumSamples / BoundSampleInterval: intervals in the moving averages.
    pub intervals: usize,
}

/// One interval's record of a degree: its integral over time, and the largest and smallest
/// values it held for some time (a value replaced at the instant it was set, as when a grant
/// withdraws one request and the next packet makes another, never held).
#[derive(Clone, Copy)]
struct Interval {
    integral: f64,
    max: f64,
    min: f64,
}

impl Interval {
    const EMPTY: Interval = Interval { integral: 0.0, max: f64::NEG_INFINITY, min: f64::INFINITY };

    /// `value` held for `span`.
    fn hold(&mut self, value: f64, span: Time) {
        self.integral += value * span as f64;
        self.max = self.max.max(value);
        self.min = self.min.min(value);
    }
}

/// An output's contention degree over time.
pub struct Degree {
    /// D_cw now.
    value: f64,
    /// The last `intervals` completed intervals (a ring; `next` is the oldest).
    done: Vec<Interval>,
    next: usize,
    /// The interval in progress: its record so far, its start, and the time recorded up to.
    current: Interval,
    start: Time,
    last: Time,
}

impl Degree {
    fn new(window: &Window) -> Degree {
        let idle = Interval { integral: 0.0, max: 0.0, min: 0.0 };
        Degree { value: 0.0, done: vec![idle; window.intervals], next: 0, current: Interval::EMPTY, start: 0, last: 0 }
    }

    /// Records the degree up to `now`, completing the intervals that ended.
    fn advance(&mut self, now: Time, window: &Window) {
        let end = self.start + window.interval;
        if now >= end {
            self.current.hold(self.value, end - self.last);
            self.push(self.current);
            // Whole intervals at the current value since (more than a window of them: a window).
            let whole = (now - end) / window.interval;
            let mut steady = Interval::EMPTY;
            steady.hold(self.value, window.interval);
            for _ in 0..whole.min(window.intervals as u64) {
                self.push(steady);
            }
            self.start = end + whole * window.interval;
            self.current = Interval::EMPTY;
            self.last = self.start;
        }
        if now > self.last {
            self.current.hold(self.value, now - self.last);
            self.last = now;
        }
    }

    fn push(&mut self, interval: Interval) {
        self.done[self.next] = interval;
        self.next = (self.next + 1) % self.done.len();
    }

    fn set(&mut self, now: Time, value: f64, window: &Window) {
        self.advance(now, window);
        // Sums of fractions that should cancel may leave a trace.
        self.value = if value.abs() < SLACK { 0.0 } else { value };
    }

    /// MA(D) - (MA(max D) - MA(min D)) / 2 over the completed intervals of the window: the
    /// lower bound of the degree's oscillation, the number of sustained flows through the
    /// output (§IV-B1).
    fn metric(&mut self, now: Time, window: &Window) -> f64 {
        self.advance(now, window);
        let n = self.done.len() as f64;
        let (integral, max, min) = self.done.iter().fold((0.0, 0.0, 0.0), |(i, a, b), x| (i + x.integral, a + x.max, b + x.min));
        integral / (n * window.interval as f64) - (max - min) / n / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: Window = Window { interval: 10, intervals: 10 };

    #[test]
    fn one_steady_flow_is_not_contention_and_two_are() {
        let mut r = Requests::default();
        r.change(0, 5, true, 0, &WINDOW);
        assert!(!r.congested(5, 1_000, &WINDOW));
        assert_eq!(r.degrees[5].metric(1_000, &WINDOW), 1.0);
        r.change(1, 5, true, 1_000, &WINDOW);
        // Only completed intervals count: within the first, the window has seen one flow.
        assert!(!r.congested(5, 1_005, &WINDOW));
        assert!(r.congested(5, 1_100, &WINDOW));
        assert_eq!(r.degrees[5].metric(1_100, &WINDOW), 2.0);
    }

    #[test]
    fn an_input_requesting_two_outputs_weighs_half_on_each() {
        let mut r = Requests::default();
        r.change(0, 1, true, 0, &WINDOW);
        r.change(0, 2, true, 0, &WINDOW);
        r.change(1, 1, true, 0, &WINDOW);
        assert_eq!(r.degrees[1].value, 1.5);
        assert_eq!(r.degrees[2].value, 0.5);
        r.change(0, 2, false, 5, &WINDOW);
        assert_eq!(r.degrees[1].value, 2.0);
        assert_eq!(r.degrees[2].value, 0.0);
    }

    #[test]
    fn a_value_replaced_at_the_instant_it_was_set_is_not_an_extreme() {
        // Two flows; at every grant one request leaves and the next packet's arrives at once.
        let mut r = Requests::default();
        r.change(0, 0, true, 0, &WINDOW);
        r.change(1, 0, true, 0, &WINDOW);
        for t in (3..200).step_by(7) {
            r.change(1, 0, false, t, &WINDOW);
            r.change(1, 0, true, t, &WINDOW);
        }
        assert_eq!(r.degrees[0].metric(200, &WINDOW), 2.0);
    }

    #[test]
    fn oscillation_lowers_the_metric_by_half_its_amplitude() {
        // Two flows, one of them there only half of each interval: D is 2 and 1 by turns, its
        // mean 1.5, its amplitude 1: the metric is 1, no sustained second flow.
        let mut r = Requests::default();
        r.change(0, 0, true, 0, &WINDOW);
        for k in 0..20 {
            r.change(1, 0, true, 10 * k, &WINDOW);
            r.change(1, 0, false, 10 * k + 5, &WINDOW);
        }
        let m = r.degrees[0].metric(200, &WINDOW);
        assert!((m - 1.0).abs() < 1e-12, "{m}");
        assert!(!r.congested(0, 200, &WINDOW));
    }
}
