//! The ranges of the config's numbers, derived from what the engine represents exactly.
//!
//! Time is a `u64` of picoseconds (213 days) and rates are integer Mb/s (`time.rs`). A value
//! outside these ranges would be silently rounded to zero, saturate, or wrap when added to the
//! current time; each is refused instead, with the range in the message. The bounds leave
//! room for every sum the engine forms: times and delays are at most `MAX_TIME_NS` each, so the
//! current time (below two of them) plus any delay stays below 2^64 ps.

use crate::error::{ConfigError, ConfigResult};

/// The longest time or delay a config may give: 10^13 ns, about 2.8 hours of simulated time,
/// 1/1800 of what a `u64` of picoseconds holds.
pub const MAX_TIME_NS: f64 = 1e13;
/// The shortest nonzero span: one picosecond, the engine's resolution.
pub const MIN_SPAN_NS: f64 = 0.001;
/// Link rates are integer Mb/s: 10 Mb/s keeps the rounding under 5%, and with the crossbar
/// speedup's lower bound the crossbar still runs at 1 Mb/s or more.
pub const MIN_GBPS: f64 = 0.01;
/// 1 Pb/s: a 1-byte packet still takes a whole picosecond to serialize.
pub const MAX_GBPS: f64 = 1e6;
/// Crossbar speedup: from a crossbar ten times slower than its links to a hundred times faster.
pub const MIN_SPEEDUP: f64 = 0.1;
pub const MAX_SPEEDUP: f64 = 100.0;
/// Packets up to 1 MiB: far beyond any fabric's MTU, and its serialization at `MIN_GBPS`
/// (0.84 s) stays within `MAX_TIME_NS`.
pub const MAX_PACKET_BYTES: u32 = 1 << 20;
/// Buffers up to 1 GiB per port and VC, so that credit sums stay within a `u32`.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;
/// The smallest load, rate limit or rate fraction: one millionth of a link, so that the gap
/// between two messages (a packet time / fraction) stays within `MAX_TIME_NS`.
pub const MIN_FRACTION: f64 = 1e-6;
/// Time-series rows (bins x classes) a run may write: 1,000,000, a 30 MB CSV. Also the most
/// moves of a moving hot spot in one run (its destinations are drawn up front).
pub const MAX_SERIES_ROWS: f64 = 1e6;

/// A number as a person reads it in a message: `1e-20`, `1e15`, `0.5`, `NaN`.
pub fn num(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-3..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A point in time or a delay that may be zero: `[0, MAX_TIME_NS]`.
pub fn time_ns(key: &str, v: f64) -> ConfigResult<()> {
    if v.is_finite() && (0.0..=MAX_TIME_NS).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be between 0 and {MAX_TIME_NS:e} ns (about 2.8 hours), got {}", num(v))))
    }
}

/// A span that must not be zero: `[MIN_SPAN_NS, MAX_TIME_NS]` (at least one picosecond).
pub fn span_ns(key: &str, v: f64) -> ConfigResult<()> {
    if v.is_finite() && (MIN_SPAN_NS..=MAX_TIME_NS).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be between {MIN_SPAN_NS} ns (one picosecond, the engine's resolution) and {MAX_TIME_NS:e} ns, got {}", num(v))))
    }
}

pub fn gbps(key: &str, v: f64) -> ConfigResult<()> {
    in_range(key, v, MIN_GBPS, MAX_GBPS, "Gb/s (rates are kept in whole Mb/s)")
}

/// A fraction of a link's rate: `[MIN_FRACTION, 1]`.
pub fn fraction(key: &str, v: f64, what: &str) -> ConfigResult<()> {
    in_range(key, v, MIN_FRACTION, 1.0, what)
}

pub fn in_range(key: &str, v: f64, min: f64, max: f64, unit: &str) -> ConfigResult<()> {
    if v.is_finite() && (min..=max).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be between {} and {} {unit}, got {}", num(min), num(max), num(v))))
    }
}

pub fn packet_bytes(key: &str, v: u32) -> ConfigResult<()> {
    if (1..=MAX_PACKET_BYTES).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("must be between 1 and {MAX_PACKET_BYTES} bytes (1 MiB), got {v}")))
    }
}
