//! Latency distributions: an HDR histogram (mergeable, 3 significant digits) plus an exact sum
//! for the mean and the exact extremes, within which every percentile is kept.

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::time::Time;

pub struct Latency {
    hist: Histogram<u64>,
    sum_ps: u128,
    count: u64,
    min_ps: Time,
    max_ps: Time,
}

/// Mean and percentiles in nanoseconds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl Default for Latency {
    fn default() -> Self {
        // 1 ps to 10 s at 3 significant digits.
        let hist = Histogram::new_with_bounds(1, 10_000_000_000_000, 3).expect("valid bounds");
        Latency { hist, sum_ps: 0, count: 0, min_ps: Time::MAX, max_ps: 0 }
    }
}

impl Latency {
    #[inline]
    pub fn record(&mut self, ps: Time) {
        self.hist.saturating_record(ps.max(1));
        self.sum_ps += ps as u128;
        self.count += 1;
        self.min_ps = self.min_ps.min(ps);
        self.max_ps = self.max_ps.max(ps);
    }

    /// Adds another distribution (histograms are mergeable: seeds, sources, classes).
    pub fn merge(&mut self, other: &Latency) {
        self.hist.add(&other.hist).expect("same bounds");
        self.sum_ps += other.sum_ps;
        self.count += other.count;
        self.min_ps = self.min_ps.min(other.min_ps);
        self.max_ps = self.max_ps.max(other.max_ps);
    }

    pub fn summary(&self) -> LatencySummary {
        // Percentiles are reported at the middle of their histogram bucket (within 0.05%), but
        // never outside the exact extremes: a bucket's middle can lie above the largest value.
        let q = |x: f64| self.hist.median_equivalent(self.hist.value_at_quantile(x)).clamp(self.min_ps, self.max_ps) as f64 / 1_000.0;
        if self.count == 0 {
            return LatencySummary { count: 0, mean: f64::NAN, p50: f64::NAN, p99: f64::NAN, p999: f64::NAN, max: f64::NAN };
        }
        LatencySummary {
            count: self.count,
            mean: self.sum_ps as f64 / self.count as f64 / 1_000.0,
            p50: q(0.5),
            p99: q(0.99),
            p999: q(0.999),
            max: self.max_ps as f64 / 1_000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_stay_within_the_extremes() {
        // 591,600 ps falls in a bucket of 256 ps whose middle is above it.
        let mut a = Latency::default();
        for v in [500_000, 591_600, 591_600] {
            a.record(v);
        }
        let s = a.summary();
        assert_eq!((s.p999, s.max), (591.6, 591.6));
        let mut one = Latency::default();
        one.record(123_457);
        let s = one.summary();
        assert_eq!((s.p50, s.p99, s.max), (123.457, 123.457, 123.457));
    }

    #[test]
    fn mean_is_exact_and_percentiles_close() {
        let mut a = Latency::default();
        let mut b = Latency::default();
        for v in 1..=1000u64 {
            if v % 2 == 0 {
                a.record(v * 1_000)
            } else {
                b.record(v * 1_000)
            }
        }
        a.merge(&b);
        let s = a.summary();
        assert_eq!(s.count, 1000);
        assert_eq!(s.mean, 500.5);
        assert!((s.p50 - 500.0).abs() <= 0.5, "{}", s.p50);
        assert!((s.p99 - 990.0).abs() <= 1.0, "{}", s.p99);
    }
}
