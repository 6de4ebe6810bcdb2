//! InfiniBand-style ECN with inter-packet delay, the mechanism the SRP paper compares with (§2,
//! §4, Table 1; parameters after Pfister et al., its reference [20]).
//!
//! - Switch (§4): "if the total occupancy of the VOQ queues associated with a given output port
//!   exceeds b_thres and the downstream input buffer has credits available, the port is
//!   identified as the root of congestion": data packets leaving a root port are marked. This
//!   applies to every output, ejection ports included. A port is a root when, after the packet
//!   leaves, its downstream buffer still has room for another data packet: a port whose
//!   downstream is full is a victim, not a root.
//!   The CBCM paper's ECN (§III-A, §V-A) marks instead every packet that enters an input buffer
//!   filled beyond the threshold (`marking = "buffer"`): a victim's packets too, which is how
//!   it throttles traffic that only shares a buffer with a hot spot's; or every packet that
//!   enters a virtual output queue past it (`marking = "voq"`): the paper's routers keep a
//!   buffer per output at each input.
//! - Destination: each marked data packet is answered with a congestion notification (one
//!   control flit) on the control VC.
//! - Source: each send queue's inter-packet delay grows by IPD+ per notification and shrinks by
//!   IPD- after every t- without one; the delay is a gap after each packet to that destination.
//!
//! VCs: the control VC (0, FIFO) above the data VC (1, VOQ), as the ECN network of §4.

use super::{throttle, Ctx, Gate, Held, Hooks, Mechanism, OutputView, QueueView, Registered, Settings, VcRole, CONTROL_AND_DATA_VCS};
use crate::config::Config;
use crate::ids::{NodeId, PortId, SwitchId, Vc};
use crate::packet::{Packet, PacketKind};
use crate::time::{ps_from_ns, Time, NEVER};
use rustc_hash::FxHashMap;
use crate::config::limits::{span_ns, time_ns};
use crate::error::{ConfigError, ConfigResult};
use serde::{Deserialize, Serialize};

/// `[cc.ecn]`: SRP paper Table 1 (after Pfister et al., its reference [20]).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct EcnConfig {
    /// IPD+ : inter-packet delay added per congestion notification: 800 ns.
    pub ipd_increment_ns: f64,
    /// IPD- : inter-packet delay removed after each quiet interval: 50 ns.
    pub ipd_decrement_ns: f64,
    /// t- : length of that interval: 2 us.
    pub decrement_timer_ns: f64,
    /// b_thres : VOQ occupancy of an output that makes it a root, as a fraction of an input
    /// buffer: 90%.
    pub threshold: f64,
    /// The largest inter-packet delay: none in the SRP paper (Table 1); the CBCM paper (§V) caps
    /// it at 1,500 cycles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipd_max_ns: Option<f64>,
    /// Which packets are marked: `root`, those leaving a root of congestion (SRP paper §4), or
    /// `buffer`, those entering an input buffer above the threshold (CBCM paper §III-A: "marks
    /// packets that traverse through a congested buffer"; §V-A: "buffer threshold of 90% input
    /// buffer capacity").
    pub marking: EcnMarking,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum EcnMarking {
    #[default]
    Root,
    Buffer,
    Voq,
}

impl Default for EcnConfig {
    fn default() -> Self {
        EcnConfig { ipd_increment_ns: 800.0, ipd_decrement_ns: 50.0, decrement_timer_ns: 2_000.0, threshold: 0.9, ipd_max_ns: None, marking: EcnMarking::Root }
    }
}

impl Settings for EcnConfig {
    fn validate(&self) -> ConfigResult<()> {
        span_ns("cc.ecn.ipd_increment_ns", self.ipd_increment_ns)?;
        time_ns("cc.ecn.ipd_decrement_ns", self.ipd_decrement_ns)?;
        span_ns("cc.ecn.decrement_timer_ns", self.decrement_timer_ns)?;
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return Err(ConfigError::new("cc.ecn.threshold", format!("must be a fraction of the input buffer in (0, 1], got {}", self.threshold)));
        }
        if let Some(max) = self.ipd_max_ns {
            span_ns("cc.ecn.ipd_max_ns", max)?;
        }
        Ok(())
    }
}

const CONTROL_VC: Vc = 0;
const DATA_VC: Vc = 1;
/// Control packet subtype: congestion notification.
const NOTIFICATION: u8 = 1;

pub struct EcnIpd {
    ipd_inc: Time,
    ipd_dec: Time,
    ipd_max: Time,
    timer: Time,
    threshold_bytes: f64,
    data_bytes: u32,
    marking: EcnMarking,
    /// Throttled send queues by (source, destination); a queue without an entry has no delay.
    throttled: FxHashMap<(NodeId, NodeId), Throttle>,
    marks: u64,
    notifications: u64,
}

/// IPD state of one send queue, updated lazily: the delay at time t is
/// `ipd - IPD- * floor((t - since) / t-)`, as a timer restarted at each notification would give.
#[derive(Clone, Copy)]
struct Throttle {
    ipd: Time,
    since: Time,
    /// When the tail of the queue's last packet left the NIC: the delay is a gap after it.
    last_end: Option<Time>,
}

impl Registered for EcnIpd {
    const ABOUT: &'static str = "InfiniBand-style ECN with inter-packet delay, as the SRP paper compares it (§2, §4): a control VC (0) above the data VC (1).";
    const DOC: &'static str = r##"SRP paper Table 1 (its parameters follow Pfister et al., the paper's reference [20]).

| key | default | meaning |
|---|---|---|
| `ipd_increment_ns` | `800` | IPD+: inter-packet delay added to a send queue per congestion notification. |
| `ipd_decrement_ns` | `50` | IPD-: delay removed after each interval `decrement_timer_ns` without a notification. |
| `decrement_timer_ns` | `2000` | t-. |
| `ipd_max_ns` | none | The largest inter-packet delay a send queue reaches: unbounded in the SRP paper (Table 1); the CBCM paper (§V) caps it at 1,500 cycles. |
| `threshold` | `0.9` | b_thres as a fraction of one input buffer (per VC): under `root` marking, an output whose virtual output queues (summed over the switch's inputs) hold more than this, while its downstream buffer still has room for another data packet after the one leaving, is a root of congestion and marks the data packets it sends (ejection ports included); under `buffer` marking, a data packet is marked when the input buffer it enters holds more than this with it; under `voq`, when the packets that input holds for the packet's own output (its virtual output queue) do. |
| `marking` | `"root"` | `root`: packets leaving a root of congestion are marked (SRP paper §4). `buffer`: packets entering a congested input buffer are marked, victims' packets too (the CBCM paper's ECN, §III-A and §V-A). `voq`: packets entering a congested virtual output queue are marked, the buffers of the CBCM paper's routers (§V-A: "VOQ with four VCs for each output port at each input buffer"), so a packet bound elsewhere is not, and one that follows a hot spot's packets to a shared output is (§III-A's R3 -> R0 channel). |

Choices the paper leaves open, and ours: "total occupancy of the VOQ queues associated with a
given output port" is summed over all inputs of the switch; "downstream has credits available"
is read after the marked packet leaves (at transmission a credit is always available); the delay
is a gap after each packet's serialization; one notification per marked packet.
"##;
    type Settings = EcnConfig;

    fn new(cfg: &Config, settings: EcnConfig) -> EcnIpd {
        let e = &settings;
        let in_cap = cfg.switch.input_buffer_bytes(&cfg.nic);
        EcnIpd {
            ipd_inc: ps_from_ns(e.ipd_increment_ns),
            ipd_dec: ps_from_ns(e.ipd_decrement_ns),
            ipd_max: e.ipd_max_ns.map_or(NEVER, ps_from_ns),
            timer: ps_from_ns(e.decrement_timer_ns),
            threshold_bytes: e.threshold * in_cap as f64,
            data_bytes: cfg.nic.data_packet_bytes,
            marking: e.marking,
            throttled: FxHashMap::default(),
            marks: 0,
            notifications: 0,
        }
    }
}

impl EcnIpd {
    fn mark(&mut self, pkt: &mut Packet<()>) {
        if !pkt.marked {
            pkt.marked = true;
            self.marks += 1;
        }
    }

    fn ipd_at(&self, t: &Throttle, now: Time) -> Time {
        let steps = (now - t.since) / self.timer;
        t.ipd.saturating_sub(steps.saturating_mul(self.ipd_dec))
    }

    /// Earliest time >= now at which the queue may inject.
    fn earliest(&self, t: &Throttle, now: Time) -> Time {
        let Some(last_end) = t.last_end else { return now };
        throttle::earliest(last_end, now, |at| {
            let step = (at - t.since) / self.timer;
            (t.ipd.saturating_sub(step.saturating_mul(self.ipd_dec)), t.since + (step + 1) * self.timer)
        })
    }
}

impl Mechanism for EcnIpd {
    /// Marks are `Packet::marked`; a notification carries nothing else.
    type Header = ();
    const HOOKS: Hooks = Hooks { switch_arrival: true, transmit: true, inject_gate: true, injected: true, deliver: true, control: true, ..Hooks::NONE };
    const PARTITIONED: bool = true;
    const GATE_ONLY_READS: bool = true;

    fn name(&self) -> &'static str {
        "ecn"
    }

    fn vcs(&self) -> Vec<VcRole> {
        CONTROL_AND_DATA_VCS.to_vec()
    }

    fn data_vc(&self) -> Vc {
        DATA_VC
    }

    fn on_switch_arrival(&mut self, _: &mut Ctx<()>, _: SwitchId, _: PortId, pkt: &mut Packet<()>, held: Held) {
        let queue = match self.marking {
            EcnMarking::Root => return,
            EcnMarking::Buffer => held.buffer,
            EcnMarking::Voq => held.voq,
        };
        if pkt.kind == PacketKind::Data && (queue + pkt.bytes) as f64 > self.threshold_bytes {
            self.mark(pkt);
        }
    }

    fn on_transmit(&mut self, _: &mut Ctx<()>, _: SwitchId, _: PortId, pkt: &mut Packet<()>, out: OutputView) {
        if self.marking == EcnMarking::Root
            && pkt.kind == PacketKind::Data
            && out.queued_bytes as f64 > self.threshold_bytes
            && out.downstream_credits >= self.data_bytes
        {
            self.mark(pkt);
        }
    }

    fn on_deliver(&mut self, ctx: &mut Ctx<()>, node: NodeId, pkt: &Packet<()>) {
        if pkt.marked {
            ctx.send_control(node, pkt.src, CONTROL_VC, NOTIFICATION, ());
        }
    }

    fn on_control(&mut self, ctx: &mut Ctx<()>, node: NodeId, pkt: &Packet<()>) {
        if pkt.kind != PacketKind::Control(NOTIFICATION) {
            return;
        }
        self.notifications += 1;
        let now = ctx.now();
        let current = self.throttled.get(&(node, pkt.src)).map(|t| (self.ipd_at(t, now), t.last_end));
        let (ipd, last_end) = current.unwrap_or((0, None));
        self.throttled.insert((node, pkt.src), Throttle { ipd: ipd.saturating_add(self.ipd_inc).min(self.ipd_max), since: now, last_end });
    }

    fn inject_gate(&mut self, ctx: &mut Ctx<()>, q: QueueView) -> Gate {
        let now = ctx.now();
        match self.throttled.get(&(q.src, q.dst)) {
            Some(t) => Gate::not_before(self.earliest(t, now), now, DATA_VC),
            None => Gate::Now(DATA_VC),
        }
    }

    fn on_injected(&mut self, ctx: &mut Ctx<()>, q: QueueView, pkt: &mut Packet<()>) {
        let now = ctx.now();
        if let Some(t) = self.throttled.get(&(q.src, q.dst)).copied() {
            if self.ipd_at(&t, now) == 0 {
                // Fully recovered: forget the queue, so state stays proportional to the
                // throttled queues.
                self.throttled.remove(&(q.src, q.dst));
            } else {
                self.throttled.insert((q.src, q.dst), Throttle { last_end: Some(now + q.link_rate.serialization(pkt.bytes)), ..t });
            }
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("marks", self.marks), ("notifications", self.notifications), ("throttled_queues", self.throttled.len() as u64)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ecn() -> EcnIpd {
        crate::cc::test_build::<EcnIpd>("ecn", "")
    }

    #[test]
    fn delay_decays_by_ipd_minus_every_t_minus() {
        let e = ecn();
        // Table 1: one notification gives 800 ns, back to 0 after 16 quiet intervals of 2 us.
        let t = Throttle { ipd: 800_000, since: 0, last_end: Some(0) };
        assert_eq!(e.ipd_at(&t, 1_999_999), 800_000);
        assert_eq!(e.ipd_at(&t, 2_000_000), 750_000);
        assert_eq!(e.ipd_at(&t, 32_000_000), 0);
    }

    #[test]
    fn the_gap_follows_the_packet_and_shrinks_as_the_delay_decays() {
        let e = ecn();
        // 204.8 ns packet + 800 ns delay after an injection at 0.
        let t = Throttle { ipd: 800_000, since: 0, last_end: Some(204_800) };
        assert_eq!(e.earliest(&t, 0), 1_004_800);
        // A 4 us delay steps down 50 ns per 2 us: 204.8 ns + ipd(t) <= t first holds in the
        // third interval (4 to 6 us), where ipd = 3.9 us: at 4.1048 us.
        let t = Throttle { ipd: 4_000_000, since: 0, last_end: Some(204_800) };
        assert_eq!(e.earliest(&t, 0), 4_104_800);
    }
}
