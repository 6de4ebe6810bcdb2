//! Inter-arrival times of messages.

use crate::config::Arrival;
use crate::rng::Stream;
use crate::time::{ps, Time, NEVER};
use rand::RngExt;

/// Time to the next message start, for a mean gap `mean` (ps).
pub fn gap(arrival: Arrival, mean: f64, cycle: Time, rng: &mut Stream) -> Time {
    match arrival {
        Arrival::Bernoulli => {
            // A message starts in each cycle with probability p = cycle / mean: the number of
            // cycles to the next start is geometric (BookSim's Bernoulli injection process).
            let p = cycle as f64 / mean;
            if p >= 1.0 {
                return cycle;
            }
            let u: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
            let k = ((u.ln() / (1.0 - p).ln()).floor() as Time).saturating_add(1);
            k.saturating_mul(cycle).min(NEVER)
        }
        Arrival::Poisson => {
            let u: f64 = 1.0 - rng.random::<f64>();
            ps((-u.ln()) * mean).max(1)
        }
        Arrival::Periodic => ps(mean).max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Family};

    fn mean_of(arrival: Arrival, mean: f64) -> f64 {
        let mut rng = stream(1, Family::Source, 0);
        let n = 200_000;
        (0..n).map(|_| gap(arrival, mean, 1_000, &mut rng) as f64).sum::<f64>() / n as f64
    }

    #[test]
    fn processes_have_the_requested_mean() {
        // 4-packet messages at load 0.4 on 10 Gb/s: mean gap 4 * 204.8 ns / 0.4 = 2048 ns.
        for a in [Arrival::Bernoulli, Arrival::Poisson, Arrival::Periodic] {
            let m = mean_of(a, 2_048_000.0);
            assert!((m / 2_048_000.0 - 1.0).abs() < 0.01, "{a:?}: mean {m}");
        }
    }
}
