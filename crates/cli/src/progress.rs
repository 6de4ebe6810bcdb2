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
            b.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} ns simulated, {msg}, eta {eta}").expect("static template"));
            b
        });
        bar.set_message(format!("{:.2} M events/s", p.events as f64 / elapsed.as_secs_f64() / 1e6));
        bar.set_position(p.now / 1_000);
    }

    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}
