//! Message-size laws as sources draw them, resolved from `[[traffic]] message`: the empirical
//! distributions (`kind = "cdf"`) loaded and checked here, once.

use crate::config::{CdfTable, MessageSize};
use crate::error::{ConfigError, ConfigResult};
use crate::rng::Stream;
use rand::RngExt;

pub enum Sizes {
    Fixed(u32),
    Uniform { min: u32, max: u32 },
    Bimodal { packets: Vec<u32>, weights: Option<Vec<f64>> },
    Cdf(Cdf),
}

/// An empirical size distribution: points (bytes, cumulative probability), linear between
/// them, the last at probability 1; a probability above 0 at the first point is a mass there.
pub struct Cdf {
    points: Vec<(f64, f64)>,
    packet_bytes: u32,
}

impl Sizes {
    /// `key` names the class's `message` table in errors; sizes in bytes become packets of
    /// `packet_bytes`.
    pub fn resolve(m: &MessageSize, key: &str, packet_bytes: u32) -> ConfigResult<Sizes> {
        Ok(match m {
            MessageSize::Fixed { packets } => Sizes::Fixed(*packets),
            MessageSize::Uniform { min, max } => Sizes::Uniform { min: *min, max: *max },
            MessageSize::Bimodal { packets, weights } => Sizes::Bimodal { packets: packets.clone(), weights: weights.clone() },
            MessageSize::Cdf { table, file } => {
                let (text, key) = match (table, file) {
                    (Some(t), None) => (builtin(*t).to_string(), format!("{key}.table")),
                    (None, Some(path)) => {
                        let key = format!("{key}.file");
                        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::new(&key, format!("cannot read `{path}`: {e}")))?;
                        (text, key)
                    }
                    _ => return Err(ConfigError::new(key, "a `cdf` message needs exactly one of `table` (web_search, data_mining) and `file`")),
                };
                Sizes::Cdf(Cdf::parse(&text, packet_bytes).map_err(|why| ConfigError::new(key, why))?)
            }
        })
    }

    /// The mean number of packets per message (offered load sets the arrival rate from it).
    pub fn mean_packets(&self) -> f64 {
        match self {
            Sizes::Fixed(packets) => *packets as f64,
            Sizes::Bimodal { packets, weights } => {
                let w: Vec<f64> = weights.clone().unwrap_or_else(|| vec![1.0; packets.len()]);
                let total: f64 = w.iter().sum();
                packets.iter().zip(&w).map(|(p, w)| *p as f64 * w).sum::<f64>() / total
            }
            Sizes::Uniform { min, max } => (*min as f64 + *max as f64) / 2.0,
            Sizes::Cdf(c) => c.mean_packets(),
        }
    }

    pub fn draw(&self, rng: &mut Stream) -> u32 {
        match self {
            Sizes::Fixed(packets) => *packets,
            Sizes::Uniform { min, max } => rng.random_range(*min..=*max),
            Sizes::Bimodal { packets, weights } => {
                let i = match weights {
                    None => rng.random_range(0..packets.len()),
                    Some(w) => {
                        let total: f64 = w.iter().sum();
                        let mut x = rng.random::<f64>() * total;
                        w.iter()
                            .position(|wi| {
                                x -= wi;
                                x < 0.0
                            })
                            .unwrap_or(packets.len() - 1)
                    }
                };
                packets[i]
            }
            Sizes::Cdf(c) => c.draw(rng.random::<f64>()),
        }
    }
}

fn builtin(t: CdfTable) -> &'static str {
    match t {
        CdfTable::WebSearch => include_str!("../../data/cdf/web_search.txt"),
        CdfTable::DataMining => include_str!("../../data/cdf/data_mining.txt"),
    }
}

impl Cdf {
    /// Lines `bytes probability` (spaces or a comma between; `#` starts a comment).
    fn parse(text: &str, packet_bytes: u32) -> Result<Cdf, String> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = |why: String| format!("line {}: {why}", n + 1);
            let fields: Vec<&str> = line.split(|c: char| c == ',' || c.is_whitespace()).filter(|f| !f.is_empty()).collect();
            let [bytes, p] = fields[..] else { return Err(at(format!("expected two numbers, `bytes probability`, got `{line}`"))) };
            let number = |f: &str| f.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| at(format!("`{f}` is not a number")));
            let (bytes, p) = (number(bytes)?, number(p)?);
            if bytes < 0.0 || bytes / packet_bytes as f64 > u32::MAX as f64 {
                return Err(at(format!("a size must be between 0 and {} packets of {packet_bytes} bytes, got {bytes} bytes", u32::MAX)));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err(at(format!("a cumulative probability must be in [0, 1], got {p} (give percentages as fractions)")));
            }
            if let Some(&(b0, p0)) = points.last() {
                if bytes < b0 || p < p0 {
                    return Err(at(format!("sizes and probabilities must not decrease: ({bytes}, {p}) follows ({b0}, {p0})")));
                }
            }
            points.push((bytes, p));
        }
        match points.last() {
            None => Err("has no points: give lines `bytes probability`".into()),
            Some(&(_, p)) if p != 1.0 => Err(format!("must end at probability 1, ends at {p}")),
            Some(&(0.0, _)) => Err("every size is 0 bytes: give flow sizes in bytes, the largest above 0".into()),
            Some(_) => Ok(Cdf { points, packet_bytes }),
        }
    }

    fn packets(&self, bytes: f64) -> u32 {
        (bytes / self.packet_bytes as f64).ceil().max(1.0) as u32
    }

    /// The size at cumulative probability `u` in [0, 1), in packets.
    fn draw(&self, u: f64) -> u32 {
        let i = self.points.partition_point(|&(_, p)| p <= u);
        if i == 0 {
            return self.packets(self.points[0].0);
        }
        let ((b0, p0), (b1, p1)) = (self.points[i - 1], self.points[i]);
        self.packets(b0 + (u - p0) / (p1 - p0) * (b1 - b0))
    }

    /// Exactly E[max(1, ceil(X / B))]: the first point's mass, then each segment's size
    /// uniform between its ends (where `ceil` is 1 or more).
    fn mean_packets(&self) -> f64 {
        let b = self.packet_bytes as f64;
        // The integral of ceil(t / B) from 0 to x.
        let integral = |x: f64| {
            let k = (x / b).floor();
            b * k * (k + 1.0) / 2.0 + (x - k * b) * (k + 1.0)
        };
        let (b0, p0) = self.points[0];
        let mut mean = p0 * self.packets(b0) as f64;
        for w in self.points.windows(2) {
            let ((x0, p0), (x1, p1)) = (w[0], w[1]);
            let mass = p1 - p0;
            mean += match x1 > x0 {
                true => mass * (integral(x1) - integral(x0)) / (x1 - x0),
                false => mass * self.packets(x0) as f64,
            };
        }
        mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Family};

    fn cdf(text: &str) -> Cdf {
        Cdf::parse(text, 256).expect("a valid table")
    }

    #[test]
    fn the_mean_is_exact_and_draws_follow_it() {
        // Uniform on (0, 2560] bytes: 1 to 10 packets of 256 bytes equally likely, mean 5.5.
        let c = cdf("0 0\n2560 1\n");
        assert!((c.mean_packets() - 5.5).abs() < 1e-9, "{}", c.mean_packets());
        // A mass of 0.5 at 256 bytes, then uniform to 512: half 1, half 2 packets.
        assert!((cdf("256 0.5\n512 1").mean_packets() - 1.5).abs() < 1e-9);
        for table in [CdfTable::WebSearch, CdfTable::DataMining] {
            let c = cdf(builtin(table));
            let mut rng = stream(7, Family::Source, 0);
            let n = 400_000;
            let drawn = (0..n).map(|_| c.draw(rng.random::<f64>()) as f64).sum::<f64>() / n as f64;
            // Heavy tails: the sample mean of data mining's (to 1 GB) converges slowly.
            let tolerance = if table == CdfTable::WebSearch { 0.02 } else { 0.1 };
            assert!((drawn / c.mean_packets() - 1.0).abs() < tolerance, "{table:?}: drawn {drawn}, exact {}", c.mean_packets());
        }
    }

    #[test]
    fn web_search_mean_is_the_tables_own() {
        // Mass times midpoint over the table's segments, by hand: 750 + 750 + 2,500 + 4,000 +
        // 8,450 + 9,800 + 60,000 + 150,000 + 350,000 + 525,000 + 600,000 = 1,711,250 bytes.
        // Whole packets add less than one packet per message.
        let mean_bytes = cdf(builtin(CdfTable::WebSearch)).mean_packets() * 256.0;
        assert!((1_711_250.0..1_711_250.0 + 256.0).contains(&mean_bytes), "{mean_bytes} bytes");
    }

    #[test]
    fn a_cdf_of_zero_sizes_only_is_refused() {
        let Err(e) = Cdf::parse("0 0.5\n0 1\n", 256) else { panic!("a CDF of zero sizes was accepted") };
        assert!(e.contains("every size is 0 bytes"), "{e}");
        assert!(Cdf::parse("0 0.5\n1 1\n", 256).is_ok(), "zero-byte flows beside others are a distribution's choice");
    }

    #[test]
    fn quantiles_interpolate_between_points() {
        let c = cdf("0 0\n10000 0.5\n20000 1");
        assert_eq!(c.draw(0.25), 20); // 5,000 bytes
        assert_eq!(c.draw(0.75), 59); // 15,000 bytes
        assert_eq!(c.draw(0.0), 1); // nothing is smaller than a packet
    }

    #[test]
    fn bad_tables_are_refused_with_the_line() {
        for (text, why) in [
            ("0 0\n100 0.5\n50 1", "line 3: sizes and probabilities must not decrease"),
            ("0 0\n100 0.6\n200 0.5", "line 3: sizes and probabilities must not decrease"),
            ("0 0\n100 0.9", "must end at probability 1"),
            ("0 0\n100 100", "line 2: a cumulative probability must be in [0, 1]"),
            ("# nothing\n", "has no points"),
            ("0 0 0\n", "line 1: expected two numbers"),
            ("zero 0\n1 1", "line 1: `zero` is not a number"),
        ] {
            let err = Cdf::parse(text, 256).err().unwrap_or_else(|| panic!("accepted {text:?}"));
            assert!(err.starts_with(why), "{text:?}: {err}");
        }
    }
}
