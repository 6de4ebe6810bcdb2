//! Simulated time.
//!
//! Time is an integer number of picoseconds so that no result ever depends on float rounding
//! (docs/architecture.md, "Simulation model"). A `u64` of picoseconds covers 213 days of simulated time.

/// A point in, or a span of, simulated time in picoseconds.
pub type Time = u64;

pub const PS_PER_NS: Time = 1_000;
pub const PS_PER_US: Time = 1_000_000;

/// Later than any run can reach (2^62 ps, 53 days; runs end by 2 x `config::limits::MAX_TIME_NS`):
/// computed delays are capped at it, so that the current time plus any delay fits a `u64` and
/// an event that far out simply never runs.
pub const NEVER: Time = 1 << 62;

/// Converts nanoseconds given by a user (possibly fractional, e.g. 204.8 ns) to picoseconds,
/// rounding to the nearest picosecond.
pub fn ps_from_ns(ns: f64) -> Time {
    ps(ns * PS_PER_NS as f64)
}

/// A computed span in picoseconds, rounded, at least 0 and at most [`NEVER`].
pub fn ps(x: f64) -> Time {
    if x.is_nan() {
        return NEVER;
    }
    (x.round().max(0.0) as Time).min(NEVER)
}

pub fn ns_from_ps(ps: Time) -> f64 {
    ps as f64 / PS_PER_NS as f64
}

/// A link or crossbar rate in megabits per second. Integer so that serialization times are exact:
/// 256 bytes at 10 Gb/s is exactly 204 800 ps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate {
    pub mbps: u64,
}

impl Rate {
    pub fn from_gbps(gbps: f64) -> Rate {
        Rate { mbps: (gbps * 1_000.0).round() as u64 }
    }

    /// Time to serialize `bytes` at this rate, rounded up so that a tail never arrives early.
    pub fn serialization(self, bytes: u32) -> Time {
        // bits * 1e6 / Mb/s = ps
        let num = bytes as u64 * 8 * 1_000_000;
        num.div_ceil(self.mbps)
    }

    /// This rate multiplied by a crossbar speedup.
    pub fn scaled(self, factor: f64) -> Rate {
        Rate { mbps: ((self.mbps as f64) * factor).round() as u64 }
    }

    /// Bytes that this rate carries in `span` picoseconds (fractional).
    pub fn bytes_in(self, span: Time) -> f64 {
        self.mbps as f64 * span as f64 / 8.0e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_for_the_reference_packet() {
        // SRP paper §4: 2048-bit packets on 10 Gb/s channels: 204.8 ns.
        assert_eq!(Rate::from_gbps(10.0).serialization(256), 204_800);
        // Santos Table I: 2068-byte packets on 1 GB/s (8 Gb/s) links: 2.068 us.
        assert_eq!(Rate::from_gbps(8.0).serialization(2068), 2_068_000);
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 byte at 3 Gb/s = 2666.67 ps: the tail may not arrive before it is sent.
        assert_eq!(Rate::from_gbps(3.0).serialization(1), 2_667);
    }
}
