//! `[cc.ibcc]`: the settings of InfiniBand CC, their defaults (Paper III Table I unless a field
//! says otherwise) and their checks.

use crate::cc::Settings;
use crate::config::limits::{span_ns, time_ns};
use crate::error::{ConfigError, ConfigResult};
use serde::{Deserialize, Serialize};

/// `[cc.ibcc]`: InfiniBand CC. Defaults are the thesis' hardware study (Paper III §IV-B,
/// Table I) unless a field says otherwise.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct IbCcConfig {
    /// Threshold weight 0-15 [thesis §2.3.2]: 0 never marks; 1 is the highest threshold, 15 the lowest.
    /// Paper III: 15.
    pub threshold: u32,
    /// What the threshold is compared with (Paper I's three modes, §3.2.1). Default `voq`, the
    /// per-VoQ thresholds of Paper II §IV-C; all three give IB-T3's shares on the testbed.
    pub threshold_mode: ThresholdMode,
    /// Upper threshold minus lower threshold (Paper II's hysteresis, §IV-B): the port
    /// enters the congestion state above the upper one and leaves it below the lower one.
    /// 0: a single threshold. Paper II needs more than one MTU and used about 3 MTU.
    pub hysteresis_bytes: u32,
    /// Victim_Mask on switch ports facing channel adapters [thesis §2.3.2; Paper II §III footnote 1]: they enter the
    /// congestion state without credits too.
    pub victim_mask: bool,
    /// Marking_Rate: mean number of eligible packets between marked ones. Paper III: 1.
    pub marking_rate: u32,
    /// `random`: each eligible packet is marked with probability 1/(Marking_Rate+1) (Paper II
    /// §V, footnote 3); `counter`: every (Marking_Rate+1)-th one.
    pub marking: Marking,
    /// Packet_Size: smaller packets are never marked [thesis §2.3.2]. Paper III's 8 has no effect on its
    /// 2048-byte packets; 0 marks all.
    pub packet_size_bytes: u32,
    /// How the destination returns BECN [thesis §2.3.2]: `cnp`, a congestion notification packet at once
    /// ahead of data (the thesis simulator [Paper I §3.2.2]); `ack`, on the ACK every data packet gets.
    pub becn: Becn,
    /// The Congestion Control Table: injection delays by CCTI. A preset or a list in ns.
    pub cct: Cct,
    /// CCTI_Increase per BECN [Paper III §VII-B]: 1.
    pub ccti_increase: u32,
    /// CCTI_Limit: the highest CCTI: 127.
    pub ccti_limit: u32,
    /// CCTI_Min: the CCTI never drops below it: 0.
    pub ccti_min: u32,
    /// CCTI_Timer: the CCTI drops by one when it expires [thesis §2.3.2]: 150 us (Paper III §VII-B).
    pub ccti_timer_ns: f64,
    /// `periodic`: one free-running timer per source port and SL decrements every flow's CCTI
    /// (the IBA text [thesis §2.3.2]); `restart`: each flow's timer restarts at each BECN (the thesis
    /// simulator's reading [Paper I §3.2.2]).
    pub timer: TimerMode,
    /// `qp`: a CCTI per flow (source, destination); `sl`: one per source, throttling all its
    /// flows together [thesis §2.3.2].
    pub granularity: Granularity,
}

impl Default for IbCcConfig {
    fn default() -> Self {
        IbCcConfig {
            threshold: 15,
            threshold_mode: ThresholdMode::Voq,
            hysteresis_bytes: 0,
            victim_mask: true,
            marking_rate: 1,
            marking: Marking::Random,
            packet_size_bytes: 0,
            becn: Becn::Cnp,
            cct: Cct::Preset(CctPreset::Thesis),
            ccti_increase: 1,
            ccti_limit: 127,
            ccti_min: 0,
            ccti_timer_ns: 150_000.0,
            timer: TimerMode::Periodic,
            granularity: Granularity::Qp,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ThresholdMode {
    /// Each VoQ for the output against the threshold: congested when one is above.
    Voq,
    /// The sum of the VoQs for the output (Paper II's common threshold, §IV-C and §VI).
    Sum,
    /// The sum against the threshold divided by the number of inputs contributing.
    SumPerInput,
    /// CCFIT's (thesis Paper V §IV-B, event #7): the fullest CFQ of the switch whose packets
    /// take the output and whose destination no CAM line of that output names (the tree's
    /// root is here), with `input_queues = "fbicm"`; the port is a root whatever its credits.
    Cfq,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Marking {
    Random,
    Counter,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Becn {
    Cnp,
    Ack,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TimerMode {
    Periodic,
    Restart,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    Qp,
    Sl,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Cct {
    Preset(CctPreset),
    /// Injection delay of each CCTI, in ns, from CCTI 0.
    TableNs(Vec<f64>),
}

/// 128-entry tables, delay(i) in us.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CctPreset {
    /// 7 i^2 / 106^2 us: Paper III's tuned table [Paper III §VII-B], up to 10.05 us.
    Thesis,
    /// 7 i^2 / 95^2 us: the switch vendor's default [Paper III §VII-B], up to 12.5 us.
    Vendor,
    /// 800 i^2 / 127^2 us, up to 800 us: our choice for Paper IV's table, "increased to reflect
    /// the larger number of possible contributors" [Paper IV §IV] but not given. Its top holds each of
    /// the 647 nodes that could send to one host to its share of a 13.5 Gb/s link (647 x 1.21 us
    /// per 2048-byte packet = 785 us). It must reach past CCTI_Timer (150 us): a flow marked on
    /// every packet settles where its IRD equals the timer; below a lower top it sits at
    /// CCTI_Limit, sending faster than that (docs/validation.md, IB-T4.2).
    Wide,
}

impl Cct {
    /// The table in ns.
    pub fn table_ns(&self) -> Vec<f64> {
        let quadratic = |scale_us: f64, divisor: f64| (0..128).map(|i| scale_us * 1_000.0 * (i * i) as f64 / (divisor * divisor)).collect();
        match self {
            Cct::Preset(CctPreset::Thesis) => quadratic(7.0, 106.0),
            Cct::Preset(CctPreset::Vendor) => quadratic(7.0, 95.0),
            Cct::Preset(CctPreset::Wide) => quadratic(800.0, 127.0),
            Cct::TableNs(t) => t.clone(),
        }
    }
}

impl Settings for IbCcConfig {
    fn validate(&self) -> ConfigResult<()> {
        if self.threshold > 15 {
            return Err(ConfigError::new("cc.ibcc.threshold", format!("is a weight from 0 (off) to 15 (lowest threshold), got {}", self.threshold)));
        }
        if self.ccti_min > self.ccti_limit {
            return Err(ConfigError::new("cc.ibcc.ccti_min", format!("({}) must not exceed ccti_limit ({})", self.ccti_min, self.ccti_limit)));
        }
        if self.ccti_increase == 0 {
            return Err(ConfigError::new("cc.ibcc.ccti_increase", "must be at least 1"));
        }
        span_ns("cc.ibcc.ccti_timer_ns", self.ccti_timer_ns)?;
        let table = self.cct.table_ns();
        if table.len() < 128 {
            return Err(ConfigError::new("cc.ibcc.cct", format!("needs at least 128 entries (IBA A10), got {}", table.len())));
        }
        if table.len() <= self.ccti_limit as usize {
            return Err(ConfigError::new(
                "cc.ibcc.cct",
                format!("has {} entries: ccti_limit {} needs {}", table.len(), self.ccti_limit, self.ccti_limit as u64 + 1),
            ));
        }
        for (i, v) in table.iter().enumerate() {
            time_ns(&format!("cc.ibcc.cct[{i}]"), *v)?;
        }
        Ok(())
    }
}
