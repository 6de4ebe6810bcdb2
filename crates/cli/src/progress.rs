//! A progress line on stderr for runs longer than about a second: simulated time done and the
//! event rate.

use indicatif::{ProgressBar, ProgressStyle};
use lossless_core::Progress;
use std::time::{Duration, Instant};

pub struct Bar {
    quiet: bool,
    started: Instant,
    bar: Option<ProgressBar>,
}

impl Bar {
    pub fn new(quiet: bool) -> Bar {
        Bar { quiet, started: Instant::now(), bar: None }
    }

    pub fn update(&mut self, p: &Progress) {
        if self.quiet {
            return;
        }
        let elapsed = self.started.elapsed();
        if self.bar.is_none() && elapsed < Duration::from_secs(1) {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = ProgressBar::new(p.end / 1_000);
            b.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} ns simulated, {msg}").expect("static template"));
            b
        });
        bar.set_message(format!("{:.2} M events/s, {}", p.events as f64 / elapsed.as_secs_f64() / 1e6, eta(elapsed, p)));
        bar.set_position(p.now / 1_000);
    }

    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// Time left, assuming the rest of the run goes at the simulated-time rate so far. indicatif's
/// own `{eta}` read 0 s throughout: it times single steps, and a step here is a jump of about
/// 65,536 events' worth of nanoseconds.
fn eta(elapsed: Duration, p: &Progress) -> String {
    if p.now == 0 {
        return "eta unknown".into();
    }
    let left = elapsed.as_secs_f64() * p.end.saturating_sub(p.now) as f64 / p.now as f64;
    match left {
        s if s < 60.0 => format!("eta {s:.0} s"),
        s if s < 3600.0 => format!("eta {:.0} min {:.0} s", (s / 60.0).floor(), s % 60.0),
        s => format!("eta {:.0} h {:.0} min", (s / 3600.0).floor(), (s % 3600.0) / 60.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_extrapolates_the_simulated_time_rate() {
        // A quarter of the run in 10 s: three quarters left take 30 s.
        assert_eq!(eta(Duration::from_secs(10), &Progress { now: 250, end: 1_000, events: 1 }), "eta 30 s");
        assert_eq!(eta(Duration::from_secs(100), &Progress { now: 100, end: 1_000, events: 1 }), "eta 15 min 0 s");
        assert_eq!(eta(Duration::from_secs(1), &Progress { now: 0, end: 1_000, events: 1 }), "eta unknown");
    }
}
