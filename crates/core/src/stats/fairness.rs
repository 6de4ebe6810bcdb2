//! Fairness among the senders of a traffic class (docs/metrics.md).

use serde::Serialize;

/// Spread of per-sender accepted throughput (fractions of each sender's injection link).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Fairness {
    pub mean: f64,
    /// Population standard deviation over the senders.
    pub std: f64,
    pub min: f64,
    pub max: f64,
    /// Jain's index (Σx)² / (n·Σx²): 1 when every sender gets the same, 1/n when one gets all.
    /// Defined as 1 when nobody sent anything (no sender was favoured).
    pub jain: f64,
}

impl Fairness {
    pub fn of(throughputs: &[f64]) -> Fairness {
        let n = throughputs.len() as f64;
        if throughputs.is_empty() {
            return Fairness { mean: 0.0, std: 0.0, min: 0.0, max: 0.0, jain: 1.0 };
        }
        let sum: f64 = throughputs.iter().sum();
        let squares: f64 = throughputs.iter().map(|x| x * x).sum();
        let mean = sum / n;
        let variance = (squares / n - mean * mean).max(0.0);
        Fairness {
            mean,
            std: variance.sqrt(),
            min: throughputs.iter().copied().fold(f64::INFINITY, f64::min),
            max: throughputs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            jain: if squares > 0.0 { sum * sum / (n * squares) } else { 1.0 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Fairness;

    #[test]
    fn jain_index_bounds() {
        // Equal shares: index 1. One sender of four takes everything: 1/4.
        assert_eq!(Fairness::of(&[0.25; 4]).jain, 1.0);
        assert_eq!(Fairness::of(&[1.0, 0.0, 0.0, 0.0]).jain, 0.25);
        // Shares 1/3, 1/3, 1/6, 1/6 (IB-T2 without CC): (1)² / (4 · (2/9 + 2/36)) = 0.9.
        let f = Fairness::of(&[1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0, 1.0 / 6.0]);
        assert!((f.jain - 0.9).abs() < 1e-12);
        assert!((f.std - 1.0 / 12.0).abs() < 1e-12);
        assert_eq!((f.min, f.max), (1.0 / 6.0, 1.0 / 3.0));
    }
}
