//! End-to-end congestion control for InfiniBand, after Santos, Turner and Janakiraman (INFOCOM
//! 2003).
//!
//! - Switch (§IV-A): marking is triggered when an input buffer becomes full (flit by flit: at
//!   an arrival's tail, with no packet of the buffer leaving; `Mechanism::on_input_full`). With
//!   `counters`, every output that a packet in the full buffer is headed for is congested: cnt1
//!   (packets in the switch waiting for that output) is copied to cnt2, and the output marks its
//!   next cnt2 packets. With `full_buffer` (the naive policy) only the packets in the full
//!   buffer are marked, when they leave.
//! - Destination: every data packet is acknowledged; the ACK echoes the mark.
//! - Source (§IV-B, §V): a window of one packet plus a rate limit, adjusted at each ACK by
//!   f_dec (marked) or f_inc (unmarked). Rates are fractions of R_max, the injection link rate;
//!   a flow at rate r starts a packet at most every (packet time)/r.
//!
//! VCs: the control VC (0, ACKs) above the data VC (1).

use super::{Ctx, Gate, Held, Hooks, Mechanism, OutputView, QueueView, Registered, Settings, VcRole, CONTROL_AND_DATA_VCS};
use crate::config::Config;
use crate::ids::{NodeId, PortId, SwitchId, Vc};
use crate::packet::{Packet, PacketKind};
use crate::time::{ps, Time};
use rustc_hash::{FxHashMap, FxHashSet};
use crate::config::limits;
use crate::error::{ConfigError, ConfigResult};
use serde::{Deserialize, Serialize};

/// `[cc.santos]`: Santos et al. §IV-§VI.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SantosConfig {
    /// `counters`: the proposed cnt1/cnt2 marking (§IV-A); `full_buffer`: the naive policy that
    /// marks the packets in a buffer when it becomes full.
    pub marking: SantosMarking,
    /// Source response function (§V): `lipd`, `fimd` or `aimd`.
    pub response: Response,
    /// m, the multiplicative decrease of FIMD and AIMD: 2 (§VI-B).
    pub decrease_factor: f64,
    /// R_min as a fraction of R_max (the injection link rate): 1/256, the range of InfiniBand's
    /// inter-packet delay (§VI-B).
    pub min_rate: f64,
    /// Use the 256 discrete rates R_max/(1+ipd), ipd = 0..255, instead of continuous ones
    /// (§VI-B.1): the rate a flow injects at is its rate rounded to the nearest of them.
    pub discrete: bool,
    /// Packets a flow may have unacknowledged: 1 (§IV-B).
    pub window_packets: u32,
    /// Keep a flow's rate when it ends, for the next flow of the same source and destination
    /// (§VI-B.2); otherwise every flow starts at `initial_rate`.
    pub persistent: bool,
    /// A new flow's rate, a fraction of R_max: 1, "flows are initialized to the maximum rate
    /// limit" (§VI-B).
    pub initial_rate: f64,
}

impl Default for SantosConfig {
    fn default() -> Self {
        SantosConfig {
            marking: SantosMarking::Counters,
            response: Response::Lipd,
            decrease_factor: 2.0,
            min_rate: 1.0 / 256.0,
            discrete: false,
            window_packets: 1,
            persistent: false,
            initial_rate: 1.0,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SantosMarking {
    Counters,
    FullBuffer,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Response {
    /// Linear inter-packet delay: one more packet time of delay per mark (§V-D).
    Lipd,
    /// Fast increase, multiplicative decrease (§V-C).
    Fimd,
    /// Additive increase at the fastest slope condition 3 allows, multiplicative decrease
    /// (§VI-B).
    Aimd,
}

impl Settings for SantosConfig {
    fn validate(&self) -> ConfigResult<()> {
        if !(self.min_rate >= limits::MIN_FRACTION && self.min_rate < 1.0) {
            return Err(ConfigError::new(
                "cc.santos.min_rate",
                format!("must be a fraction of the link rate in [{}, 1), got {}", limits::num(limits::MIN_FRACTION), limits::num(self.min_rate)),
            ));
        }
        if !(self.decrease_factor.is_finite() && self.decrease_factor > 1.0 && self.decrease_factor <= 1e6) {
            return Err(ConfigError::new("cc.santos.decrease_factor", format!("m must be greater than 1 and at most 1e6, got {}", self.decrease_factor)));
        }
        if self.window_packets == 0 {
            return Err(ConfigError::new("cc.santos.window_packets", "must be at least 1"));
        }
        if !(self.initial_rate >= self.min_rate && self.initial_rate <= 1.0) {
            return Err(ConfigError::new("cc.santos.initial_rate", format!("must be between min_rate ({}) and 1, got {}", self.min_rate, self.initial_rate)));
        }
        if self.discrete && (1.0 / self.min_rate).round() > 65_536.0 {
            return Err(ConfigError::new("cc.santos.min_rate", "discrete rates support at most 65536 levels"));
        }
        Ok(())
    }
}

const CONTROL_VC: Vc = 0;
const DATA_VC: Vc = 1;
/// Control packet subtype.
const ACK: u8 = 1;

/// Santos' ACK: the mark of the data packet it acknowledges, echoed (§IV); data packets carry
/// their own mark as `Packet::marked`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SantosHeader {
    pub marked: bool,
}

pub struct Santos {
    cfg: SantosConfig,
    /// cnt1 per output (switch, port): data packets in the switch waiting for it.
    waiting: FxHashMap<(SwitchId, PortId), u32>,
    /// cnt2 per output: packets still to be marked.
    to_mark: FxHashMap<(SwitchId, PortId), u32>,
    /// `full_buffer` policy: the packets (uids) found in a full buffer.
    marked_uids: FxHashSet<u64>,
    flows: FxHashMap<(NodeId, NodeId), Flow>,
    marks: u64,
    marked_acks: u64,
}

#[derive(Clone, Copy)]
struct Flow {
    /// Rate limit, a fraction of the injection link rate.
    rate: f64,
    outstanding: u32,
    /// Start and serialization of the last packet: the next may start `ser / rate` after it.
    last_start: Time,
    last_ser: Time,
    /// The send queue emptied: the flow ended (its state is dropped once its ACKs are back,
    /// unless rates persist across flows).
    ended: bool,
}

impl Registered for Santos {
    const ABOUT: &'static str = "The end-to-end ECN of Santos, Turner and Janakiraman (INFOCOM 2003): full-input-buffer marking, an ACK per packet, rate control (LIPD, FIMD, AIMD) with a window of one packet; a control VC (0, ACKs) above the data VC (1).";
    const DOC: &'static str = r##"Santos, Turner and Janakiraman, "End-to-End Congestion Control for InfiniBand" (INFOCOM 2003).
A switch marks when one of its input buffers
becomes full (a packet arrives and leaves no room for another); every data packet is ACKed and
the ACK echoes the mark; the source adjusts its rate limit at each ACK and keeps at most
`window_packets` unacknowledged. A flow at rate r (a fraction of its injection link, R_max)
starts a packet at most every (packet time)/r.

| key | default | meaning |
|---|---|---|
| `marking` | `"counters"` | `counters`: §IV-A's proposal: when an input buffer becomes full, every output a packet in it is headed for copies cnt1 (the switch's packets waiting for that output) to cnt2 and marks its next cnt2 packets. `full_buffer`: the naive policy: the packets in the full buffer are marked when they leave. |
| `response` | `"lipd"` | §V: `lipd` (a mark adds one packet time of inter-packet delay; an unmarked ACK multiplies the rate by 1/(1 - R_min)), `fimd` (a mark divides by m; an ACK multiplies by m^(R_min/r)), `aimd` (a mark divides by m; an ACK adds (m-1) R_min²/r, the fastest linear increase condition 3 allows, §VI-B). |
| `decrease_factor` | `2` | m (§VI-B). |
| `min_rate` | `0.00390625` | R_min = R_max/256, the range of InfiniBand's inter-packet delay (§VI-B). |
| `discrete` | `false` | Inject at the nearest of the 256 rates R_max/(1+ipd), ipd = 0..255 (§VI-B.1), instead of the continuous rate. |
| `window_packets` | `1` | Unacknowledged packets per flow (§IV-B). |
| `persistent` | `false` | A flow's rate outlives the flow, for the next flow of the same pair (§VI-B.2). A flow ends when its send queue empties (a greedy source's queue never does). |
| `initial_rate` | `1` | A new flow's rate: R_max, as §VI-B. |

Choices the paper leaves open, and ours: the marking trigger is evaluated when a packet arrives
(a buffer "becomes full" when it cannot take another data packet), after the arriving packet
had its chance to be forwarded: our buffers hold a whole packet from its head's arrival until
its tail has crossed, but a packet that cuts through a flit-level buffer occupies it "only
briefly" (footnote 10), so a packet forwarded at once is not among the full buffer's packets
(marking it used to throttle the victim of SAN-4); cnt1 counts data packets from
their arrival at the switch until they start on the output link. The paper's switch scheduling
(footnote 6, "FIFO with bypass of older packets when the crossbar is busy ... at most 4 times")
is `switch.input_queues = "bypass"` (`[switch.bypass] limit = 4`) with `switch.arbitration =
"oldest_first"`, as `examples/santos/two_switch.toml` sets it.
"##;
    type Settings = SantosConfig;

    fn new(_: &Config, settings: SantosConfig) -> Santos {
        Santos {
            cfg: settings,
            waiting: FxHashMap::default(),
            to_mark: FxHashMap::default(),
            marked_uids: FxHashSet::default(),
            flows: FxHashMap::default(),
            marks: 0,
            marked_acks: 0,
        }
    }
}

impl Santos {
    /// f_dec (§V-C, §V-D): LIPD adds one packet time of inter-packet delay; FIMD and AIMD
    /// divide by m.
    pub fn decrease(&self, r: f64) -> f64 {
        let r_min = self.cfg.min_rate;
        match self.cfg.response {
            Response::Lipd => (1.0 / (1.0 / r + 1.0)).max(r_min),
            Response::Fimd | Response::Aimd => (r / self.cfg.decrease_factor).max(r_min),
        }
    }

    /// f_inc, applied per unmarked ACK (nominally 1/r after the previous one). LIPD:
    /// r / (1 - R_min); FIMD: r m^(R_min / r); AIMD: linear in time at the slope that recovers
    /// from R_min to m R_min in one packet time at R_min (condition 3), (m-1) R_min^2 per packet
    /// time, so + (m-1) R_min^2 / r per ACK.
    pub fn increase(&self, r: f64) -> f64 {
        let (r_min, m) = (self.cfg.min_rate, self.cfg.decrease_factor);
        let next = match self.cfg.response {
            Response::Lipd => r / (1.0 - r_min),
            Response::Fimd => r * m.powf(r_min / r),
            Response::Aimd => r + (m - 1.0) * r_min * r_min / r,
        };
        next.min(1.0)
    }

    /// The rate a flow injects at: its limit, or with `discrete` the nearest of the rates
    /// 1/(1+ipd), ipd = 0 .. 1/R_min - 1 (InfiniBand's inter-packet delays, §VI-B.1).
    fn injection_rate(&self, r: f64) -> f64 {
        if !self.cfg.discrete {
            return r;
        }
        let max_ipd = (1.0 / self.cfg.min_rate).round() - 1.0;
        1.0 / (1.0 + (1.0 / r - 1.0).round().clamp(0.0, max_ipd))
    }

    fn leave(&mut self, sw: SwitchId, port: PortId) -> bool {
        if let Some(n) = self.waiting.get_mut(&(sw, port)) {
            *n -= 1;
        }
        match self.to_mark.get_mut(&(sw, port)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}

impl Mechanism for Santos {
    type Header = SantosHeader;
    const HOOKS: Hooks =
        Hooks { switch_arrival: true, input_full: true, transmit: true, inject_gate: true, injected: true, deliver: true, control: true, ..Hooks::NONE };
    const PARTITIONED: bool = true;
    const GATE_ONLY_READS: bool = true;

    fn name(&self) -> &'static str {
        "santos"
    }

    fn vcs(&self) -> Vec<VcRole> {
        CONTROL_AND_DATA_VCS.to_vec()
    }

    fn data_vc(&self) -> Vc {
        DATA_VC
    }

    fn on_switch_arrival(&mut self, _: &mut Ctx<SantosHeader>, sw: SwitchId, _: PortId, pkt: &mut Packet<SantosHeader>, _: Held) {
        if pkt.kind == PacketKind::Data {
            *self.waiting.entry((sw, pkt.out_port)).or_insert(0) += 1;
        }
    }

    fn on_input_full(&mut self, _: &mut Ctx<SantosHeader>, sw: SwitchId, _: PortId, _: Vc, contents: &[(u64, PortId)]) {
        match self.cfg.marking {
            SantosMarking::Counters => {
                for &(_, out) in contents {
                    let n = self.waiting.get(&(sw, out)).copied().unwrap_or(0);
                    self.to_mark.insert((sw, out), n);
                }
            }
            SantosMarking::FullBuffer => self.marked_uids.extend(contents.iter().map(|&(uid, _)| uid)),
        }
    }

    fn on_transmit(&mut self, _: &mut Ctx<SantosHeader>, sw: SwitchId, port: PortId, pkt: &mut Packet<SantosHeader>, _: OutputView) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        let by_counter = self.leave(sw, port);
        let mark = match self.cfg.marking {
            SantosMarking::Counters => by_counter,
            SantosMarking::FullBuffer => self.marked_uids.remove(&pkt.uid),
        };
        if mark && !pkt.marked {
            pkt.marked = true;
            self.marks += 1;
        }
    }

    fn on_deliver(&mut self, ctx: &mut Ctx<SantosHeader>, node: NodeId, pkt: &Packet<SantosHeader>) {
        ctx.send_control(node, pkt.src, CONTROL_VC, ACK, SantosHeader { marked: pkt.marked });
    }

    fn on_control(&mut self, ctx: &mut Ctx<SantosHeader>, node: NodeId, pkt: &Packet<SantosHeader>) {
        if pkt.kind != PacketKind::Control(ACK) {
            return;
        }
        let key = (node, pkt.src);
        let Some(mut f) = self.flows.get(&key).copied() else { return };
        let marked = pkt.hdr.marked;
        self.marked_acks += u64::from(marked);
        f.rate = if marked { self.decrease(f.rate) } else { self.increase(f.rate) };
        f.outstanding -= 1;
        if f.ended && f.outstanding == 0 && !self.cfg.persistent {
            self.flows.remove(&key);
        } else {
            self.flows.insert(key, f);
        }
        ctx.wake_nic(node);
    }

    fn inject_gate(&mut self, ctx: &mut Ctx<SantosHeader>, q: QueueView) -> Gate {
        let Some(f) = self.flows.get(&(q.src, q.dst)) else { return Gate::Now(DATA_VC) };
        if f.outstanding >= self.cfg.window_packets {
            return Gate::Hold;
        }
        let gap = ps(f.last_ser as f64 / self.injection_rate(f.rate));
        Gate::not_before(f.last_start + gap, ctx.now(), DATA_VC)
    }

    fn on_injected(&mut self, ctx: &mut Ctx<SantosHeader>, q: QueueView, pkt: &mut Packet<SantosHeader>) {
        let rate = self.cfg.initial_rate;
        let f = self.flows.entry((q.src, q.dst)).or_insert(Flow { rate, outstanding: 0, last_start: 0, last_ser: 0, ended: false });
        f.outstanding += 1;
        f.last_start = ctx.now();
        f.last_ser = q.link_rate.serialization(pkt.bytes);
        f.ended = false;
    }

    fn release_queue(&mut self, _: &mut Ctx<SantosHeader>, q: QueueView) -> bool {
        if let Some(f) = self.flows.get_mut(&(q.src, q.dst)) {
            if f.outstanding == 0 && !self.cfg.persistent {
                self.flows.remove(&(q.src, q.dst));
            } else {
                f.ended = true;
            }
        }
        true
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("marks", self.marks), ("marked_acks", self.marked_acks), ("flows", self.flows.len() as u64)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn santos(response: &str) -> Santos {
        crate::cc::test_build::<Santos>("santos", &format!("response = \"{response}\""))
    }

    /// Packet times (at R_max) to climb from R_min to R_max by unmarked ACKs, each 1/r after
    /// the previous one.
    fn climb(s: &Santos) -> f64 {
        let (mut r, mut t) = (s.cfg.min_rate, 0.0);
        while r < 1.0 {
            t += 1.0 / r;
            r = s.increase(r);
        }
        t
    }

    #[test]
    fn recovery_times_match_section_vi_b() {
        // SAN-5: 2048-byte packets at 1 GB/s (2.048 us): FIMD 4.2 ms, LIPD and AIMD 133.7 ms
        // from R_min = R_max/256 to R_max. Continuous F_inc: FIMD 256 x log2(256) = 2048 packet
        // times; LIPD and AIMD 255 x 256 = 65280. Per-ACK steps land within a few percent.
        let us = |s: &Santos| climb(s) * 2.048;
        assert!((us(&santos("fimd")) / 4_194.3 - 1.0).abs() < 0.05, "FIMD {} us", us(&santos("fimd")));
        assert!((us(&santos("lipd")) / 133_693.4 - 1.0).abs() < 0.01, "LIPD {} us", us(&santos("lipd")));
        assert!((us(&santos("aimd")) / 133_693.4 - 1.0).abs() < 0.01, "AIMD {} us", us(&santos("aimd")));
    }

    #[test]
    fn lipd_adds_one_packet_time_per_mark() {
        let s = santos("lipd");
        // R_max/(1 + ipd): a mark at ipd 3 (rate 1/4) gives ipd 4 (rate 1/5).
        assert!((s.decrease(0.25) - 0.2).abs() < 1e-12);
        // Condition 1: f_inc(f_dec(r)) <= r.
        for r in [1.0, 0.5, 0.1, 0.01] {
            assert!(s.increase(s.decrease(r)) <= r + 1e-12);
        }
        let f = santos("fimd");
        assert_eq!(f.decrease(0.5), 0.25);
        assert_eq!(f.decrease(f.cfg.min_rate), f.cfg.min_rate);
    }

    #[test]
    fn discrete_rates_are_inter_packet_delays() {
        let mut s = santos("lipd");
        s.cfg.discrete = true;
        assert_eq!(s.injection_rate(0.26), 0.25);
        assert_eq!(s.injection_rate(1.0), 1.0);
        assert_eq!(s.injection_rate(1e-6), 1.0 / 256.0);
    }
}
