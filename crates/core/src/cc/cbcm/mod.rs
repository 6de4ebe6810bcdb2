//! Contention-based congestion management (CBCM paper §IV): switches detect sustained contention
//! at their outputs and mark the packets that cross them (`contention`); a destination that
//! receives only marked packets for an epoch is a hot spot and tells its senders the throttling
//! degree D_t on a high-priority control VC (`hotspot`); a throttled source injects towards the
//! hot spot at 1/D_t of its link on a dedicated low-priority VC, routed minimally, until it
//! generates less than that (`source`). With `router_detection` every router also watches
//! each destination's contention among its own inputs and, as a destination does, throttles the
//! senders it finds (§VI-A).
//!
//! VCs: control (0, throttle and unthrottle packets) above data (1) above the hot-spot VC (2,
//! with `dedicated_vc`; without it throttled packets stay on the data VC, §VI-C).

mod contention;
mod hotspot;
mod source;

use super::{Ctx, Gate, Hooks, Mechanism, OutputView, QueueView, Registered, Request, Settings, VcClass, VcRole};
use crate::config::limits::{fraction, span_ns};
use crate::config::Config;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, PortId, SwitchId, Vc};
use crate::packet::{Packet, PacketKind};
use crate::routing::Leg;
use crate::time::{ps_from_ns, Rate, Time};
use contention::{Requests, Window};
use hotspot::Receiver;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use source::Throttled;

/// `[cc.cbcm]`: the CBCM paper's parameters (§IV, §V).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CbcmConfig {
    /// NumSamples: the moving average of the contention degree spans 100 samples, one per cycle
    /// (§IV-B1, §V): 100 ns with 1-ns cycles.
    pub window_ns: f64,
    /// BoundSampleInterval: the maximum and minimum of the degree are sampled every 10 cycles
    /// (§IV-B1, §V).
    pub bound_interval_ns: f64,
    /// ε, the share of a destination's link its throttle packets may take: 0.05 (§IV-B2, §V).
    pub bandwidth_overhead: f64,
    /// The destination's epoch: a hot spot receives only marked packets for this long. The
    /// paper gives no length; ours, 10,000 cycles: on the 16-node flattened butterfly, 1,000 and
    /// 3,000 took uniform traffic at 0.5 and 0.7 for hot spots, 10,000 does not, and still finds
    /// a 4:1 hot spot within one epoch (docs/validation.md).
    pub detection_epoch_ns: f64,
    /// The source's epoch over which it measures its generation rate towards a hot spot (§IV-B4).
    /// The paper gives no length; ours, 1,000 cycles.
    pub generation_epoch_ns: f64,
    /// Throttled traffic on a dedicated low-priority VC (§IV-B3); false: on the data VC (the
    /// shared-VC variant of §VI-C).
    pub dedicated_vc: bool,
    /// A throttled source injects at this share of its link / D_t: 1 (§IV-B3); §VI-C compares
    /// 0.99.
    pub rate_scale: f64,
    /// Sources limit their rate to a hot spot (Algorithm 1); false: they only move its traffic
    /// to the dedicated VC and route it minimally, at any rate (§VI-C's Fig. 14 "without
    /// throttling").
    pub throttle: bool,
    /// Hot spots are also detected at intermediate routers, from each destination's contention
    /// among a router's inputs (§VI-A); false: at destinations only (§IV-B2).
    pub router_detection: bool,
    /// A router's epoch: it forwards only contended packets to a destination for this long
    /// before it throttles their senders. The paper gives no length; ours, 3,000 cycles: on the
    /// 16-node flattened butterfly, 1,000 and 2,000 took uniform traffic at 0.7 for hot spots,
    /// 3,000 does not (docs/validation.md).
    pub router_epoch_ns: f64,
}

impl Default for CbcmConfig {
    fn default() -> Self {
        CbcmConfig {
            window_ns: 100.0,
            bound_interval_ns: 10.0,
            bandwidth_overhead: 0.05,
            detection_epoch_ns: 10_000.0,
            generation_epoch_ns: 1_000.0,
            dedicated_vc: true,
            rate_scale: 1.0,
            throttle: true,
            router_detection: false,
            router_epoch_ns: 3_000.0,
        }
    }
}

impl Settings for CbcmConfig {
    fn validate(&self) -> ConfigResult<()> {
        span_ns("cc.cbcm.window_ns", self.window_ns)?;
        span_ns("cc.cbcm.bound_interval_ns", self.bound_interval_ns)?;
        let intervals = self.window_ns / self.bound_interval_ns;
        if intervals.fract() != 0.0 || intervals > 10_000.0 {
            return Err(ConfigError::new(
                "cc.cbcm.window_ns",
                format!("must be a whole number of bound_interval_ns ({}), at most 10,000 of them; got {}", self.bound_interval_ns, self.window_ns),
            ));
        }
        fraction("cc.cbcm.bandwidth_overhead", self.bandwidth_overhead, "of the link's bandwidth")?;
        span_ns("cc.cbcm.detection_epoch_ns", self.detection_epoch_ns)?;
        span_ns("cc.cbcm.generation_epoch_ns", self.generation_epoch_ns)?;
        span_ns("cc.cbcm.router_epoch_ns", self.router_epoch_ns)?;
        fraction("cc.cbcm.rate_scale", self.rate_scale, "of 1/D_t")
    }
}

const CONTROL_VC: Vc = 0;
const DATA_VC: Vc = 1;
const HOT_SPOT_VC: Vc = 2;
/// Control packet subtypes.
const THROTTLE: u8 = 1;
const UNTHROTTLE: u8 = 2;
/// Timer kinds, in a token's top bits.
const EPOCH_END: u64 = 0;
const QUIET_END: u64 = 1;
const GENERATION_END: u64 = 2;
const COOL_CHECK: u64 = 3;

/// A throttle packet's D_t and the hot spot it is about (a router sends for a hot spot other
/// than itself).
#[derive(Clone, Copy, Debug, Default)]
pub struct CbcmHeader {
    pub dt: u32,
    pub hot_spot: NodeId,
}

/// Where hot spots are detected: at the destination itself (§IV-B2), or for one destination at
/// a router its traffic crosses (§VI-A).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Site {
    Host(NodeId),
    Router(SwitchId, NodeId),
}

/// Marks a router in a timer token's first id.
const ROUTER_SITE: u32 = 1 << 30;

impl Site {
    fn token(self, kind: u64) -> u64 {
        match self {
            Site::Host(n) => token(kind, n.0, n.0),
            Site::Router(sw, n) => token(kind, ROUTER_SITE | sw.0, n.0),
        }
    }

    fn from_ids(a: u32, b: u32) -> Site {
        if a & ROUTER_SITE == 0 {
            Site::Host(NodeId(a))
        } else {
            Site::Router(SwitchId(a & !ROUTER_SITE), NodeId(b))
        }
    }
}

pub struct Cbcm {
    window: Window,
    epsilon: f64,
    detection_epoch: Time,
    router_epoch: Time,
    generation_epoch: Time,
    dedicated_vc: bool,
    rate: f64,
    throttle: bool,
    /// A control packet's serialization at the host link: the unit of ε's quiet time.
    control_time: Time,
    /// A data packet's serialization at the host link: the tokens it takes.
    data_time: Time,
    /// Per switch: its outputs' contention.
    switches: Vec<Requests>,
    /// With `router_detection`, per switch: each destination's contention.
    destinations: Option<Vec<Requests>>,
    receivers: FxHashMap<Site, Receiver>,
    /// Throttled (source, hot spot) pairs.
    throttled: FxHashMap<(NodeId, NodeId), Throttled>,
    /// Per traffic class: whether its sources always have their next message ready
    /// (`greedy`): their send queues are the paper's full queues (§IV-B4).
    greedy: Vec<bool>,
    /// (source, destination) pairs with a greedy class's messages: full send queues.
    full: FxHashSet<(NodeId, NodeId)>,
    c: Counters,
}

#[derive(Default)]
struct Counters {
    marks: u64,
    hot_spots: u64,
    router_hot_spots: u64,
    throttles: u64,
    unthrottles: u64,
}

impl Registered for Cbcm {
    const ABOUT: &'static str = "Contention-based congestion management (CBCM paper §IV): contention-degree marking, hot-spot detection at destinations, throttled sources on a low-priority VC.";
    const DOC: &'static str = r##"CBCM paper §IV and §V. VCs: control (0, throttle and unthrottle packets) above data (1) above the hot-spot VC (2, low priority; absent with `dedicated_vc = false`).

| key | default | meaning |
|---|---|---|
| `window_ns` | `100` | NumSamples: the contention degree's moving average spans 100 one-cycle samples (1-ns cycles). |
| `bound_interval_ns` | `10` | BoundSampleInterval: the degree's maximum and minimum are taken per interval and averaged over the window. |
| `bandwidth_overhead` | `0.05` | ε: after telling D_t senders, a destination sends no throttle packet for D_t control-packet times / ε. |
| `detection_epoch_ns` | `10000` | A destination receiving only marked packets for this long is a hot spot (length not in the paper: ours, the shortest of 1,000, 3,000 and 10,000 that took no uniform load up to 0.7 for a hot spot). |
| `generation_epoch_ns` | `1000` | A throttled source that generated less than its throttled rate towards the hot spot over this long, and whose send queue to it is not full (a greedy class's), unthrottles (length not in the paper: ours). |
| `dedicated_vc` | `true` | Throttled traffic on its own low-priority VC (§IV-B3); `false` keeps it on the data VC (§VI-C). |
| `rate_scale` | `1` | Throttled sources inject at this times 1/D_t of their link (§VI-C compares 0.99). |
| `throttle` | `true` | Sources limit their rate to a hot spot (Algorithm 1); `false`: they only move its traffic to the dedicated VC and route it minimally, at any rate (§VI-C's Fig. 14 without throttling). |
| `router_detection` | `false` | Routers detect hot spots too (§VI-A): per destination, the contention degree among a router's inputs marks the packets it forwards there, and a router that forwards only such packets to it for `router_epoch_ns`, from more than one source, throttles those sources itself. The destination's own router leaves it to the destination. |
| `router_epoch_ns` | `3000` | A router's epoch (length not in the paper: ours, the shortest of 1,000, 2,000 and 3,000 that took no uniform load up to 0.8 on 16 nodes for a hot spot). |

Choices the paper leaves open, and ours: a hot spot that receives no marked packet for a
detection epoch is one no longer (its senders stay throttled until they unthrottle
themselves); an epoch whose marked packets all came from one source
makes no hot spot (one source cannot oversubscribe a link as fast as its own; §VI-B's
permutations are "never throttled"); the contention degree is the weighted one (D_cw, each
of an input's v requests for any output weighs 1/v, every VC counted), kept exactly between
events, where the paper samples its randomized estimate D_cr each cycle; the moving averages
are over the completed intervals of the window; a marked output marks every data packet it
sends; a send queue is "full" (§IV-B4: the source keeps its throttle whatever it generated)
when a greedy class feeds it, as greedy sources always have their next message ready;
throttled packets take minimal routes (under UGAL and Valiant they skip the detour); with
`router_detection`, a router decides as a destination does (its own epoch, the same ε, D_t the
number of senders it saw), and a source takes a router's D_t only where it is larger than the one it
has, so a router that sees some of a hot spot's senders cannot loosen the destination's
throttle (the paper does not say how the two combine).
"##;
    type Settings = CbcmConfig;

    fn new(cfg: &Config, s: CbcmConfig) -> Cbcm {
        let host = Rate::from_gbps(cfg.topology.link().host_gbps());
        let interval = ps_from_ns(s.bound_interval_ns);
        Cbcm {
            window: Window { interval, intervals: (s.window_ns / s.bound_interval_ns) as usize },
            epsilon: s.bandwidth_overhead,
            detection_epoch: ps_from_ns(s.detection_epoch_ns),
            router_epoch: ps_from_ns(s.router_epoch_ns),
            generation_epoch: ps_from_ns(s.generation_epoch_ns),
            dedicated_vc: s.dedicated_vc,
            rate: s.rate_scale,
            throttle: s.throttle,
            control_time: host.serialization(cfg.nic.control_packet_bytes),
            data_time: host.serialization(cfg.nic.data_packet_bytes),
            switches: Vec::new(),
            destinations: s.router_detection.then(Vec::new),
            receivers: FxHashMap::default(),
            throttled: FxHashMap::default(),
            greedy: cfg.traffic.iter().map(|t| t.greedy).collect(),
            full: FxHashSet::default(),
            c: Counters::default(),
        }
    }
}

fn token(kind: u64, a: u32, b: u32) -> u64 {
    kind << 62 | (a as u64) << 31 | b as u64
}

/// Switch `sw`'s requests, made on first use (the mechanism is built before the network).
fn requests(switches: &mut Vec<Requests>, sw: SwitchId) -> &mut Requests {
    if switches.len() <= sw.idx() {
        switches.resize_with(sw.idx() + 1, Requests::default);
    }
    &mut switches[sw.idx()]
}

fn untoken(token: u64) -> (u64, u32, u32) {
    let mask = (1 << 31) - 1;
    (token >> 62, (token >> 31 & mask) as u32, (token & mask) as u32)
}

impl Cbcm {
    fn throttled_vc(&self) -> Vc {
        if self.dedicated_vc {
            HOT_SPOT_VC
        } else {
            DATA_VC
        }
    }

    /// Tells the senders `site` lists their D_t if it changed and ε allows; else asks to be
    /// woken when it does.
    fn notify(&mut self, ctx: &mut Ctx<CbcmHeader>, site: Site) {
        let Some(r) = self.receivers.get_mut(&site) else { return };
        if !r.due() {
            return;
        }
        let now = ctx.now();
        if now < r.quiet_until {
            if !r.waiting {
                r.waiting = true;
                ctx.set_timer(r.quiet_until, site.token(QUIET_END));
            }
            return;
        }
        let dt = r.senders.len() as u32;
        for &s in &r.senders {
            match site {
                Site::Host(node) => ctx.send_control(node, s, CONTROL_VC, THROTTLE, CbcmHeader { dt, hot_spot: node }),
                Site::Router(sw, dst) => ctx.send_control_from_switch(sw, s, CONTROL_VC, THROTTLE, CbcmHeader { dt, hot_spot: dst }),
            }
        }
        self.c.throttles += dt as u64;
        r.told = dt;
        r.quiet_until = now + (dt as f64 * self.control_time as f64 / self.epsilon).ceil() as Time;
    }

    fn epoch(&self, site: Site) -> Time {
        match site {
            Site::Host(_) => self.detection_epoch,
            Site::Router(..) => self.router_epoch,
        }
    }

    /// `site` saw a data packet from `src` to its hot spot, `marked` or not (§IV-B2).
    fn observe(&mut self, ctx: &mut Ctx<CbcmHeader>, site: Site, src: NodeId, marked: bool) {
        let epoch = self.epoch(site);
        let r = self.receivers.entry(site).or_default();
        if let Some(start) = r.receive(src, marked, ctx.now()) {
            ctx.set_timer(start + epoch, site.token(EPOCH_END));
        }
        // A hot spot's new sender changes D_t.
        if r.due() {
            self.notify(ctx, site);
        }
    }
}

impl Mechanism for Cbcm {
    type Header = CbcmHeader;
    const HOOKS: Hooks =
        Hooks { request: true, transmit: true, message: true, inject_gate: true, injected: true, deliver: true, control: true, timer: true, ..Hooks::NONE };
    const PARTITIONED: bool = true;
    const TIMES_PACKETS_AT_MTU: bool = true;

    fn name(&self) -> &'static str {
        "cbcm"
    }

    fn vcs(&self) -> Vec<VcRole> {
        let mut vcs = vec![VcRole::new("throttle and unthrottle packets", VcClass::Control), VcRole::DATA];
        if self.dedicated_vc {
            vcs.push(VcRole::new("throttled hot-spot traffic", VcClass::Low));
        }
        vcs
    }

    fn data_vc(&self) -> Vc {
        DATA_VC
    }

    fn on_request(&mut self, ctx: &mut Ctx<CbcmHeader>, sw: SwitchId, req: Request, requesting: bool) {
        let now = ctx.now();
        requests(&mut self.switches, sw).change(req.input.idx(), req.out.idx(), requesting, now, &self.window);
        if let Some(d) = &mut self.destinations {
            requests(d, sw).change(req.input.idx(), req.dst.idx(), requesting, now, &self.window);
        }
    }

    fn on_transmit(&mut self, ctx: &mut Ctx<CbcmHeader>, sw: SwitchId, port: PortId, pkt: &mut Packet<CbcmHeader>, out: OutputView) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        let now = ctx.now();
        if requests(&mut self.switches, sw).congested(port.idx(), now, &self.window) && !pkt.marked {
            pkt.marked = true;
            self.c.marks += 1;
        }
        // The destination's own router is no intermediate router: contention for its port to
        // the destination is the output's, which marks the packets for the destination to judge.
        if let (Some(d), false) = (&mut self.destinations, out.to_host) {
            let contended = requests(d, sw).congested(pkt.dst.idx(), now, &self.window);
            self.observe(ctx, Site::Router(sw, pkt.dst), pkt.src, contended);
        }
    }

    fn on_message(&mut self, _: &mut Ctx<CbcmHeader>, q: QueueView, packets: u32) {
        if self.greedy[q.head_class as usize] {
            self.full.insert((q.src, q.dst));
        }
        if let Some(t) = self.throttled.get_mut(&(q.src, q.dst)) {
            t.generated += packets as Time * self.data_time;
        }
    }

    fn inject_gate(&mut self, ctx: &mut Ctx<CbcmHeader>, q: QueueView) -> Gate {
        let now = ctx.now();
        let vc = self.throttled_vc();
        let (rate, data_time) = (self.rate, self.data_time);
        match self.throttled.get_mut(&(q.src, q.dst)) {
            Some(_) if !self.throttle => Gate::Now(vc),
            Some(t) => Gate::not_before(t.ready_at(data_time, now, rate), now, vc),
            None => Gate::Now(DATA_VC),
        }
    }

    fn on_injected(&mut self, ctx: &mut Ctx<CbcmHeader>, q: QueueView, pkt: &mut Packet<CbcmHeader>) {
        let now = ctx.now();
        let rate = self.rate;
        if let Some(t) = self.throttled.get_mut(&(q.src, q.dst)) {
            t.spend(q.link_rate.serialization(pkt.bytes), now, rate);
            pkt.leg = Leg::MINIMAL;
        }
    }

    fn on_deliver(&mut self, ctx: &mut Ctx<CbcmHeader>, node: NodeId, pkt: &Packet<CbcmHeader>) {
        self.observe(ctx, Site::Host(node), pkt.src, pkt.marked);
    }

    fn on_control(&mut self, ctx: &mut Ctx<CbcmHeader>, node: NodeId, pkt: &Packet<CbcmHeader>) {
        let now = ctx.now();
        match pkt.kind {
            PacketKind::Control(THROTTLE) => {
                let (hot_spot, dt) = (pkt.hdr.hot_spot, pkt.hdr.dt);
                let from_router = pkt.src != hot_spot;
                match self.throttled.get_mut(&(node, hot_spot)) {
                    Some(t) => t.reset(dt, from_router, now),
                    None => {
                        let end = now + self.generation_epoch;
                        self.throttled.insert((node, hot_spot), Throttled::new(dt, now, end));
                        ctx.set_timer(end, token(GENERATION_END, node.0, hot_spot.0));
                    }
                }
            }
            PacketKind::Control(UNTHROTTLE) => {
                let site = Site::Host(node);
                if let Some(r) = self.receivers.get_mut(&site) {
                    r.unthrottled(pkt.src);
                }
                self.notify(ctx, site);
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<CbcmHeader>, token_: u64) {
        let now = ctx.now();
        let (kind, a, b) = untoken(token_);
        let site = Site::from_ids(a, b);
        let epoch = self.epoch(site);
        match kind {
            EPOCH_END => {
                let Some(r) = self.receivers.get_mut(&site) else { return };
                let was_hot = r.hot;
                r.epoch_ended(now - epoch);
                if r.hot && !was_hot {
                    match site {
                        Site::Host(_) => self.c.hot_spots += 1,
                        Site::Router(..) => self.c.router_hot_spots += 1,
                    }
                    ctx.set_timer(now + epoch, site.token(COOL_CHECK));
                }
                self.notify(ctx, site);
            }
            QUIET_END => {
                if let Some(r) = self.receivers.get_mut(&site) {
                    r.waiting = false;
                }
                self.notify(ctx, site);
            }
            GENERATION_END => {
                let (src, dst) = (NodeId(a), NodeId(b));
                let Some(t) = self.throttled.get_mut(&(src, dst)) else { return };
                if t.epoch_end != now {
                    return;
                }
                if t.epoch_ended(self.generation_epoch, self.rate, self.full.contains(&(src, dst))) {
                    self.throttled.remove(&(src, dst));
                    self.c.unthrottles += 1;
                    ctx.send_control(src, dst, CONTROL_VC, UNTHROTTLE, CbcmHeader::default());
                } else {
                    ctx.set_timer(t.epoch_end, token(GENERATION_END, a, b));
                }
            }
            COOL_CHECK => {
                let Some(r) = self.receivers.get_mut(&site) else { return };
                if let Some(at) = r.cool(now, epoch) {
                    ctx.set_timer(at, site.token(COOL_CHECK));
                }
            }
            _ => unreachable!("timer kinds are the four above"),
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("marks", self.c.marks),
            ("hot_spots", self.c.hot_spots),
            ("router_hot_spots", self.c.router_hot_spots),
            ("throttle_packets", self.c.throttles),
            ("unthrottles", self.c.unthrottles),
            ("throttled_pairs", self.throttled.len() as u64),
        ]
    }
}
