//! ACCurate: max-min fair rates from contention points, without per-flow state in the network
//! (Karampelas et al., "Optimizing Network Congestion Control for High-Performance Remote Direct
//! Memory Access Transfers", §II).
//!
//! - Flows are send queues (an RDMA channel each: one per message with `nic.send_queues =
//!   "per_flow"`, the paper's multi-channel engine, else one per destination). A flow starts
//!   at its link rate and announces itself with a flow-init Flow Rate Packet (FRP, §II-B); once
//!   per Rate Re-evaluation Period (RRP) every active flow sends an FRP carrying its Current Rate
//!   (CR) and Desired Rate (DR, its link rate: it always wants more, §II-C); when its queue
//!   empties it sends a flow-stop FRP.
//! - A contention point (CP) in front of every link (switch outputs and the hosts' injection
//!   links) keeps its fair-share rate FSR, the number M of flows bottlenecked on it and the rate
//!   B of those bottlenecked elsewhere. An FRP with CR >= FSR is bottlenecked here (CR := FSR,
//!   M += 1), else B += CR; DR := min(DR, FSR). At the end of each RRP:
//!   FSR = (C (1 - α) - B) / M (Eq. 1), and M, B restart.
//! - The destination bounces each FRP back as an FRP-response; the source sets the flow's rate to
//!   its DR if that is above its CR (positive feedback, §II-C), else to its CR. A CP that sees
//!   CR far above its FSR answers at once with a short-circuit response (§II-A).
//! - Sources pace each flow's packets at its rate (each packet due one packet time at the rate
//!   after the one before).
//!
//! FRPs travel on a control VC above data (§III: "with high priority"); their size is
//! `nic.control_packet_bytes` (the paper's 20 bytes in the examples).

use super::{Ctx, Gate, Hooks, Mechanism, OutputView, QueueView, Registered, Settings, VcRole, CONTROL_AND_DATA_VCS};
use crate::config::limits::span_ns;
use crate::config::Config;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, PortId, SwitchId, Vc};
use crate::packet::{Packet, PacketKind};
use crate::time::{ps_from_ns, Rate, Time};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `[cc.accurate]`: the paper's §III settings.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AccurateConfig {
    /// RRP, the period of FRPs and of fair-share updates: 20 us (§III).
    pub rrp_ns: f64,
    /// α, the share of every link kept free as headroom to drain backlogs: 0.05 (§III).
    pub alpha: f64,
    /// A CP answers an FRP at once when its CR exceeds the FSR by this factor (§II-A: "a large
    /// difference"; the paper gives no value: ours).
    pub short_circuit_factor: f64,
}

impl Default for AccurateConfig {
    fn default() -> Self {
        AccurateConfig { rrp_ns: 20_000.0, alpha: 0.05, short_circuit_factor: 2.0 }
    }
}

impl Settings for AccurateConfig {
    fn validate(&self) -> ConfigResult<()> {
        span_ns("cc.accurate.rrp_ns", self.rrp_ns)?;
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(ConfigError::new("cc.accurate.alpha", format!("must be in (0, 1), the share of each link kept free; got {}", self.alpha)));
        }
        if !(self.short_circuit_factor >= 1.0 && self.short_circuit_factor.is_finite()) {
            return Err(ConfigError::new("cc.accurate.short_circuit_factor", format!("must be at least 1 (a CR that many times the FSR is answered at once); got {}", self.short_circuit_factor)));
        }
        Ok(())
    }
}

const CONTROL_VC: Vc = 0;
const DATA_VC: Vc = 1;
/// Control packet subtypes.
const FRP: u8 = 1;
const FRP_RESPONSE: u8 = 2;

/// An FRP's fields. Rates in Mb/s.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrpHeader {
    /// The flow: its source host and its send queue's number there (a short-circuit response
    /// leaves a switch, so the packet's own source does not say).
    src: NodeId,
    queue: u32,
    cr: f32,
    dr: f32,
    kind: FrpKind,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum FrpKind {
    #[default]
    Periodic,
    Init,
    Stop,
    ShortCircuit,
}

/// A contention point's state (§II): this period's counts, and the last period's.
struct Cp {
    capacity: f32,
    fsr: f32,
    now: Counts,
    last: Counts,
}

/// M, B, and the fastest of the flows counted in B.
#[derive(Clone, Copy, Default)]
struct Counts {
    m: u32,
    b: f32,
    fastest_elsewhere: f32,
}

impl Cp {
    fn new(capacity: f32, alpha: f32) -> Cp {
        Cp { capacity, fsr: capacity * (1.0 - alpha), now: Counts::default(), last: Counts::default() }
    }

    /// Eq. 1, or, if more, the fastest flow bottlenecked elsewhere plus what the link left
    /// unused: with every flow counted in B (none bottlenecked here), Eq. 1 gives only what is
    /// left for a new flow and would hold the flows that are here at or below their rates: a
    /// flow alone on a link would never grow, and flows that share it equally, each counted
    /// in B by a rounding, would get nothing. Never below a thousandth of the link.
    fn fair_share(&self, alpha: f32, c: Counts) -> f32 {
        let free = self.capacity * (1.0 - alpha) - c.b;
        let eq1 = free / c.m.max(1) as f32;
        let unused = if c.m == 0 { free.max(0.0) } else { 0.0 };
        eq1.max(c.fastest_elsewhere + unused).max(self.capacity / 1_000.0)
    }

    /// An FRP passes: updates the CP and the FRP. A flow-init first makes room for the new flow
    /// in the FSR (§II-B: "a prompt update of the link's fair share").
    fn visit(&mut self, h: &mut FrpHeader, alpha: f32) {
        match h.kind {
            FrpKind::Stop | FrpKind::ShortCircuit => return,
            FrpKind::Init => {
                self.last.m += 1;
                self.fsr = self.fair_share(alpha, self.last);
            }
            FrpKind::Periodic => {}
        }
        if h.cr >= self.fsr {
            h.cr = self.fsr;
            self.now.m += 1;
        } else {
            self.now.b += h.cr;
            self.now.fastest_elsewhere = self.now.fastest_elsewhere.max(h.cr);
        }
        h.dr = h.dr.min(self.fsr);
    }

    fn end_rrp(&mut self, alpha: f32) {
        self.fsr = self.fair_share(alpha, self.now);
        (self.last, self.now) = (self.now, Counts::default());
    }
}

/// A flow at its source.
struct Flow {
    dst: NodeId,
    link: Rate,
    rate: f32,
    /// When its last packet was due and its serialization time: the next is due one packet
    /// time at `rate` later (recomputed when the rate changes).
    last: Option<(Time, Time)>,
}

impl Flow {
    fn gap(&self, serialization: Time) -> Time {
        (serialization as f64 * self.link.mbps as f64 / self.rate as f64).round() as Time
    }

    fn next_at(&self) -> Time {
        self.last.map_or(0, |(due, serialization)| due + self.gap(serialization))
    }

    /// A packet of `serialization` went at `now`. A packet late because the link was busy
    /// keeps the flow's schedule (else every collision with another flow's packet would cost
    /// this one rate); one late by more than a gap, after an idle spell, starts a new schedule.
    fn sent(&mut self, now: Time, serialization: Time) {
        let due = self.next_at().max(now.saturating_sub(self.gap(serialization)));
        self.last = Some((due, serialization));
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Link {
    Host(NodeId),
    Switch(SwitchId, PortId),
}

impl Link {
    fn site(self) -> Site {
        match self {
            Link::Host(n) => Site::Source(n),
            Link::Switch(s, _) => Site::Switch(s),
        }
    }
}

/// Where an RRP timer runs: each source ends the period of its injection link's CP and sends
/// its flows' FRPs, and each switch ends its CPs' periods. One timer per source and per switch
/// (not one for the network) so that a run split over threads has the same timers.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Site {
    Source(NodeId),
    Switch(SwitchId),
}

impl Site {
    fn token(self) -> u64 {
        match self {
            Site::Source(n) => (n.0 as u64) << 1,
            Site::Switch(s) => (s.0 as u64) << 1 | 1,
        }
    }

    fn of_token(token: u64) -> Site {
        let id = (token >> 1) as u32;
        if token & 1 == 0 {
            Site::Source(NodeId(id))
        } else {
            Site::Switch(SwitchId(id))
        }
    }
}

pub struct Accurate {
    rrp: Time,
    alpha: f32,
    short_circuit: f32,
    /// By source and send queue number (`QueueView::number`); sorted, so that every RRP a
    /// source queues its FRPs in the same order, however the run is split over threads.
    flows: BTreeMap<(NodeId, u32), Flow>,
    cps: FxHashMap<Link, Cp>,
    /// The CPs of each site whose RRP timer runs (from its first CP on).
    sites: FxHashMap<Site, Vec<Link>>,
    c: Counters,
}

#[derive(Default)]
struct Counters {
    frps: u64,
    short_circuits: u64,
}

impl Registered for Accurate {
    const ABOUT: &'static str = "ACCurate (Karampelas et al.): contention points compute max-min fair rates from one Flow Rate Packet per flow per period; sources pace each flow at its rate. A control VC (0) above the data VC (1).";
    const DOC: &'static str = r##"The ACCurate paper, §II and §III.

| key | default | meaning |
|---|---|---|
| `rrp_ns` | `20000` | RRP: every active flow sends one FRP per period, and every contention point recomputes its fair share (Eq. 1) at its end (§III: 20 us). |
| `alpha` | `0.05` | α: the share of each link kept free to drain backlogs (§III). |
| `short_circuit_factor` | `2` | A contention point answers an FRP at once (a short-circuit response) when its current rate exceeds the fair share by this factor (§II-A says "a large difference": ours). |

Choices the paper leaves open, and ours: a flow is a send queue from its first message until it
empties (one message with `nic.send_queues = "per_flow"`, the paper's RDMA channels; the
messages to one destination back to back otherwise); it starts at its link rate and its desired rate is always its
link rate; contention points sit at every switch output and at every host's injection link; a
link's fair share starts at C (1 - α); with no flow bottlenecked on the link, it is the fastest
flow bottlenecked elsewhere plus the capacity left (Eq. 1 with M = 0 is undefined; read as what
is left, it holds a flow alone on a link at its current rate, and flows that share a link
equally and are each counted in B by a rounding at nothing); never below C / 1,000; a flow-init FRP counts the
new flow in the last period's M at once; a short-circuit response only lowers a rate; FRPs are
`nic.control_packet_bytes` long (set it to the paper's 20 bytes); RRPs are aligned to time 0 for
every link and source.
"##;
    type Settings = AccurateConfig;

    fn new(_: &Config, s: AccurateConfig) -> Accurate {
        Accurate {
            rrp: ps_from_ns(s.rrp_ns),
            alpha: s.alpha as f32,
            short_circuit: s.short_circuit_factor as f32,
            flows: BTreeMap::new(),
            cps: FxHashMap::default(),
            sites: FxHashMap::default(),
            c: Counters::default(),
        }
    }
}

impl Accurate {
    /// Sends an FRP of the flow of send queue `queue` of `src`, through the CP of `src`'s
    /// injection link.
    fn send_frp(&mut self, ctx: &mut Ctx<FrpHeader>, src: NodeId, queue: u32, kind: FrpKind) {
        let Some(f) = self.flows.get(&(src, queue)) else { return };
        let (link, dst) = (f.link.mbps as f32, f.dst);
        let mut h = FrpHeader { src, queue, cr: f.rate, dr: link, kind };
        let alpha = self.alpha;
        // A source's first FRP is a flow's start, which comes after a timer due at the same
        // instant (`Event::priority`): that timer has ended its period.
        self.cp(ctx, Link::Host(src), link, |now, rrp| (now / rrp + 1) * rrp).visit(&mut h, alpha);
        self.c.frps += 1;
        ctx.send_control(src, dst, CONTROL_VC, FRP, h);
    }

    /// The CP of `link`, of `capacity` Mb/s when new; a site's first CP starts its RRP timer at
    /// `end(now, rrp)`, the end of the period that the caller's event belongs to. RRPs are
    /// aligned to time 0 everywhere.
    fn cp(&mut self, ctx: &mut Ctx<FrpHeader>, link: Link, capacity: f32, end: fn(Time, Time) -> Time) -> &mut Cp {
        let alpha = self.alpha;
        self.cps.entry(link).or_insert_with(|| {
            let site = link.site();
            let links = self.sites.entry(site).or_default();
            if links.is_empty() {
                ctx.set_timer(end(ctx.now(), self.rrp), site.token());
            }
            links.push(link);
            Cp::new(capacity, alpha)
        })
    }
}

impl Mechanism for Accurate {
    type Header = FrpHeader;
    const HOOKS: Hooks = Hooks { transmit: true, message: true, inject_gate: true, injected: true, control: true, timer: true, ..Hooks::NONE };
    const PARTITIONED: bool = true;
    const GATE_ONLY_READS: bool = true;

    fn name(&self) -> &'static str {
        "accurate"
    }

    fn vcs(&self) -> Vec<VcRole> {
        CONTROL_AND_DATA_VCS.to_vec()
    }

    fn data_vc(&self) -> Vc {
        DATA_VC
    }

    fn on_message(&mut self, ctx: &mut Ctx<FrpHeader>, q: QueueView, _: u32) {
        if self.flows.contains_key(&(q.src, q.number)) {
            return;
        }
        self.flows.insert((q.src, q.number), Flow { dst: q.dst, link: q.link_rate, rate: q.link_rate.mbps as f32, last: None });
        self.send_frp(ctx, q.src, q.number, FrpKind::Init);
    }

    fn release_queue(&mut self, ctx: &mut Ctx<FrpHeader>, q: QueueView) -> bool {
        self.send_frp(ctx, q.src, q.number, FrpKind::Stop);
        self.flows.remove(&(q.src, q.number));
        true
    }

    fn inject_gate(&mut self, ctx: &mut Ctx<FrpHeader>, q: QueueView) -> Gate {
        let at = self.flows.get(&(q.src, q.number)).map_or(0, Flow::next_at);
        Gate::not_before(at, ctx.now(), DATA_VC)
    }

    fn on_injected(&mut self, ctx: &mut Ctx<FrpHeader>, q: QueueView, pkt: &mut Packet<FrpHeader>) {
        if let Some(f) = self.flows.get_mut(&(q.src, q.number)) {
            f.sent(ctx.now(), q.link_rate.serialization(pkt.bytes));
        }
    }

    fn on_transmit(&mut self, ctx: &mut Ctx<FrpHeader>, sw: SwitchId, port: PortId, pkt: &mut Packet<FrpHeader>, out: OutputView) {
        if pkt.kind != PacketKind::Control(FRP) {
            return;
        }
        let (alpha, short_circuit) = (self.alpha, self.short_circuit);
        // A switch sends before a timer due at the same instant: a CP new then is in the
        // period that ends now.
        let cp = self.cp(ctx, Link::Switch(sw, port), out.link_rate.mbps as f32, |now, rrp| now.div_ceil(rrp) * rrp);
        let incoming = pkt.hdr.cr;
        cp.visit(&mut pkt.hdr, alpha);
        if pkt.hdr.kind != FrpKind::Stop && incoming > short_circuit * cp.fsr {
            let h = FrpHeader { kind: FrpKind::ShortCircuit, ..pkt.hdr };
            self.c.short_circuits += 1;
            ctx.send_control_from_switch(sw, h.src, CONTROL_VC, FRP_RESPONSE, h);
        }
    }

    fn on_control(&mut self, ctx: &mut Ctx<FrpHeader>, node: NodeId, pkt: &Packet<FrpHeader>) {
        let h = pkt.hdr;
        match pkt.kind {
            // The destination bounces the FRP to its source (§II); a stop needs no answer.
            PacketKind::Control(FRP) if h.kind != FrpKind::Stop => ctx.send_control(node, h.src, CONTROL_VC, FRP_RESPONSE, h),
            PacketKind::Control(FRP_RESPONSE) => {
                let Some(f) = self.flows.get_mut(&(node, h.queue)) else { return };
                f.rate = match h.kind {
                    FrpKind::ShortCircuit => f.rate.min(h.cr),
                    _ => h.cr.max(h.dr),
                };
                // A faster rate applies to the next packet at once.
                ctx.wake_nic(node);
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<FrpHeader>, token: u64) {
        let site = Site::of_token(token);
        let alpha = self.alpha;
        for link in &self.sites[&site] {
            self.cps.get_mut(link).expect("a site lists its CPs").end_rrp(alpha);
        }
        if let Site::Source(src) = site {
            let flows: Vec<u32> = self.flows.range((src, 0)..=(src, u32::MAX)).map(|(&(_, queue), _)| queue).collect();
            for queue in flows {
                self.send_frp(ctx, src, queue, FrpKind::Periodic);
            }
        }
        ctx.set_timer(ctx.now() + self.rrp, token);
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("frps", self.c.frps), ("short_circuits", self.c.short_circuits), ("flows", self.flows.len() as u64)]
    }
}
