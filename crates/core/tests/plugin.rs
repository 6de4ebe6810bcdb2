//! The congestion-control plug-in interface, exercised by small mechanisms written here: each
//! hook is called where docs/architecture.md says, and what a mechanism does through it (control packets,
//! injection gaps, drops, header marks, timers) keeps the network's invariants.

mod common;
use common::*;
use lossless_core::cc::registry::{build, Registered, Settings};
use lossless_core::cc::{Beyond, Ctx, Gate, Hooks, Mechanism, OutputView, QueueView, VcClass, VcRole, Verdict};
use lossless_core::error::{ConfigError, ConfigResult};
use lossless_core::ids::{NodeId, PortId, QpId, SwitchId};
use lossless_core::packet::Packet;
use lossless_core::time::Time;
use lossless_core::{Config, Sim, Summary};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

// --- The walk-through of docs/architecture.md, "Adding a mechanism": a complete mechanism with
// settings. Moved to crates/core/src/cc/window.rs with one line `window::Window,` in
// `mechanisms!` (cc/registry.rs), `cc.mechanism = "window"` would select it.

/// `[cc.window]`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WindowSettings {
    /// Data packets a flow may have unacknowledged: 1, Santos et al.'s window (§IV-B).
    pub window_packets: u32,
}

impl Default for WindowSettings {
    fn default() -> Self {
        WindowSettings { window_packets: 1 }
    }
}

impl Settings for WindowSettings {
    fn validate(&self) -> ConfigResult<()> {
        match self.window_packets {
            0 => Err(ConfigError::new("cc.window.window_packets", "must be at least 1 packet")),
            _ => Ok(()),
        }
    }
}

/// End-to-end window flow control: the destination ACKs every data packet on a control VC;
/// a flow (source, destination) holds its next packet while `window` are unacknowledged.
pub struct Window {
    window: u32,
    outstanding: FxHashMap<(NodeId, NodeId), u32>,
    most: u32,
}

impl Registered for Window {
    const ABOUT: &'static str = "A fixed window of unacknowledged packets per flow (Santos et al. §IV-B).";
    const DOC: &'static str = "| key | default | meaning |\n|---|---|---|\n| `window_packets` | `1` | Unacknowledged data packets per flow. |\n";
    type Settings = WindowSettings;

    fn new(_: &Config, s: WindowSettings) -> Window {
        Window { window: s.window_packets, outstanding: FxHashMap::default(), most: 0 }
    }
}

impl Mechanism for Window {
    type Header = ();
    const HOOKS: Hooks = Hooks { inject_gate: true, injected: true, deliver: true, control: true, ..Hooks::NONE };
    fn name(&self) -> &'static str {
        "window"
    }
    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::new("ACKs", VcClass::Control), VcRole::DATA]
    }
    fn data_vc(&self) -> u8 {
        1
    }
    fn inject_gate(&mut self, _: &mut Ctx<Self::Header>, q: QueueView) -> Gate {
        match self.outstanding.get(&(q.src, q.dst)) {
            Some(&n) if n >= self.window => Gate::Hold,
            _ => Gate::Now(1),
        }
    }
    fn on_injected(&mut self, _: &mut Ctx<Self::Header>, q: QueueView, _: &mut Packet<Self::Header>) {
        let n = self.outstanding.entry((q.src, q.dst)).or_default();
        *n += 1;
        self.most = self.most.max(*n);
    }
    fn on_deliver(&mut self, ctx: &mut Ctx<Self::Header>, node: NodeId, pkt: &Packet<Self::Header>) {
        ctx.send_control(node, pkt.src, 0, 1, ());
    }
    fn on_control(&mut self, ctx: &mut Ctx<Self::Header>, node: NodeId, pkt: &Packet<Self::Header>) {
        *self.outstanding.get_mut(&(node, pkt.src)).expect("an ACK answers a packet sent") -= 1;
        ctx.wake_nic(node);
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("most_outstanding", self.most as u64)]
    }
}

/// A greedy flow from host 0 to host 100 (another leaf) of the 16-ary 2-tree, under `window`.
fn windowed_flow(settings: &str) -> ConfigResult<Config> {
    let cfg = config(&format!(
        "{FAT_TREE_256}\n[simulation]\nwarmup_ns = 5000\nmeasure_ns = 100000\n[[traffic]]\npattern = \"flow\"\nsrc = 0\ndest = 100\ngreedy = true\n[cc]\nmechanism = \"window\"\n[cc.window]\n{settings}"
    ));
    build::<Window>(&cfg).map(|_| cfg)
}

#[test]
fn a_window_of_one_sends_one_packet_per_round_trip() {
    let cfg = windowed_flow("").unwrap();
    let (s, sim) = run_with(&cfg, build::<Window>(&cfg).unwrap());
    assert_eq!(sim.mechanism().most, 1);
    // Round trip, SRP paper §4 timing: the data packet's head crosses 4 channels (32 ns) and 3
    // routers (26 ns), its tail 204.8 ns later (256 B at 10 Gb/s); the ACK's head the same path
    // back, its tail 6.4 ns later (8 B). One packet time of 204.8 ns per 617.2 ns.
    assert_close("window-1 throughput", s.classes["flow0"].accepted, 204.8 / (2.0 * (4.0 * 32.0 + 3.0 * 26.0) + 204.8 + 6.4), 0.02);
}

#[test]
fn a_window_wider_than_the_round_trip_fills_the_link() {
    let cfg = windowed_flow("window_packets = 4").unwrap();
    let (s, sim) = run_with(&cfg, build::<Window>(&cfg).unwrap());
    assert_eq!(sim.mechanism().most, 4);
    assert_close("window-4 throughput", s.classes["flow0"].accepted, 1.0, 0.01);
}

#[test]
fn the_window_s_settings_are_its_own_and_checked() {
    let e = windowed_flow("window_packets = 0").err().unwrap();
    assert_eq!(e.key, "cc.window.window_packets");
    let e = windowed_flow("window = 2").err().unwrap();
    assert!(e.key == "cc.window.window" && e.message.contains("expected `window_packets`"), "{e}");
    let e = windowed_flow("[cc.srp]\nn_min = 2").err().unwrap();
    assert!(e.key == "cc.srp.n_min" && e.message.contains("cc.mechanism is \"window\""), "{e}");
}

/// Control VC 0, data VC 1: the layout of the ECN network (SRP paper §4).
fn two_vcs() -> Vec<VcRole> {
    vec![VcRole::new("control", VcClass::Control), VcRole::DATA]
}

fn run_with<M: Mechanism>(cfg: &Config, mech: M) -> (Summary, Sim<M>) {
    let mut sim = Sim::new(cfg, mech).unwrap();
    let end = sim.end();
    sim.run_until(end, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
    sim.check_invariants().unwrap_or_else(|e| panic!("invariant violated: {e}"));
    (sim.summary(0.0), sim)
}

fn uniform(load: f64) -> Config {
    example_with("fattree256_uniform.toml", &[&format!("traffic.0.load={load}"), "simulation.measure_ns=30000"])
}

/// Answers every data packet with a 1-flit ACK on the control VC; marks packets on transmit at
/// spine switches and counts the marks the ACKs carry back.
#[derive(Default)]
struct AckAndMark {
    acks: u64,
    marked_acks: u64,
    transmits_at_spines: u64,
}

/// A header of one field: set on data packets sent by a spine, echoed by their ACKs.
#[derive(Clone, Copy, Debug, Default)]
struct SpineMark {
    spine: bool,
}

impl Mechanism for AckAndMark {
    type Header = SpineMark;
    const HOOKS: Hooks = Hooks { deliver: true, control: true, transmit: true, ..Hooks::NONE };
    fn name(&self) -> &'static str {
        "ack-and-mark"
    }
    fn vcs(&self) -> Vec<VcRole> {
        two_vcs()
    }
    fn data_vc(&self) -> u8 {
        1
    }
    fn on_transmit(&mut self, _: &mut Ctx<Self::Header>, sw: SwitchId, _: PortId, pkt: &mut Packet<Self::Header>, _: OutputView) {
        // Switches 16..32 are the spines of the 16-ary 2-tree.
        if sw >= SwitchId(16) && pkt.vc == 1 {
            pkt.hdr.spine = true;
            self.transmits_at_spines += 1;
        }
    }
    fn on_deliver(&mut self, ctx: &mut Ctx<Self::Header>, node: NodeId, pkt: &Packet<Self::Header>) {
        ctx.send_control(node, pkt.src, 0, 1, pkt.hdr);
    }
    fn on_control(&mut self, _: &mut Ctx<Self::Header>, _: NodeId, pkt: &Packet<Self::Header>) {
        self.acks += 1;
        self.marked_acks += pkt.hdr.spine as u64;
    }
}

#[test]
fn control_packets_flow_back_and_header_marks_survive() {
    let (s, sim) = run_with(&uniform(0.3), AckAndMark::default());
    let m = sim.mechanism();
    assert_eq!(s.counters.control_sent, s.counters.delivered, "one ACK per delivered packet");
    assert_eq!(s.counters.control_delivered, m.acks);
    // Nearly all ACKs are back (the last ones are in flight at the end).
    assert!(m.acks as f64 > 0.99 * s.counters.delivered as f64);
    // 15 of 16 destinations are on another leaf and cross a spine: about 15/16 of ACKs marked.
    let frac = m.marked_acks as f64 / m.acks as f64;
    assert_close("marked fraction", frac, 15.0 / 16.0, 0.02);
    // ACKs do not disturb data: throughput as without them.
    assert_close("accepted", s.classes["uniform"].accepted, 0.3, 0.02);
}

/// Lets each send queue inject at most one packet every `gap` picoseconds.
struct Pacer {
    gap: u64,
    next: std::collections::HashMap<QpId, u64>,
}

impl Mechanism for Pacer {
    type Header = ();
    const HOOKS: Hooks = Hooks { inject_gate: true, injected: true, ..Hooks::NONE };
    fn name(&self) -> &'static str {
        "pacer"
    }
    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA]
    }
    fn inject_gate(&mut self, ctx: &mut Ctx<Self::Header>, q: QueueView) -> Gate {
        match self.next.get(&q.qp) {
            Some(&t) if t > ctx.now() => Gate::At(t),
            _ => Gate::Now(0),
        }
    }
    fn on_injected(&mut self, ctx: &mut Ctx<Self::Header>, q: QueueView, _: &mut Packet<Self::Header>) {
        self.next.insert(q.qp, ctx.now() + self.gap);
    }
}

#[test]
fn an_injection_gate_paces_a_greedy_flow() {
    // One packet every 409.6 ns = every second packet time: the flow gets half its link.
    let cfg = config(&format!(
        "{FAT_TREE_256}\n[simulation]\nwarmup_ns = 5000\nmeasure_ns = 100000\n[[traffic]]\npattern = \"flow\"\nsrc = 0\ndest = 100\ngreedy = true\n"
    ));
    let (s, _) = run_with(&cfg, Pacer { gap: 409_600, next: Default::default() });
    assert_close("paced throughput", s.classes["flow0"].accepted, 0.5, 0.005);
}

/// Drops every tenth data packet that reaches the head of an input queue at a leaf switch.
#[derive(Default)]
struct Dropper {
    seen: u64,
    dropped: u64,
    timer_fired: u64,
}

impl Mechanism for Dropper {
    type Header = ();
    const HOOKS: Hooks = Hooks { queue_head: true, timer: true, message: true, ..Hooks::NONE };
    fn name(&self) -> &'static str {
        "dropper"
    }
    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA]
    }
    fn on_message(&mut self, ctx: &mut Ctx<Self::Header>, _: QueueView, _: u32) {
        if self.timer_fired == 0 {
            ctx.set_timer(ctx.now() + 1_000, 7);
        }
    }
    fn on_timer(&mut self, _: &mut Ctx<Self::Header>, token: u64) {
        assert_eq!(token, 7);
        self.timer_fired += 1;
    }
    fn at_queue_head(&mut self, _: &mut Ctx<Self::Header>, sw: SwitchId, _: PortId, _: &Packet<Self::Header>, _: Beyond) -> Verdict {
        if sw >= SwitchId(16) {
            return Verdict::Keep;
        }
        self.seen += 1;
        if self.seen.is_multiple_of(10) {
            self.dropped += 1;
            Verdict::Drop
        } else {
            Verdict::Keep
        }
    }
}

#[test]
fn drops_at_the_queue_head_are_counted_and_conserve_packets() {
    let (s, sim) = run_with(&uniform(0.3), Dropper::default());
    let m = sim.mechanism();
    assert!(m.dropped > 1000);
    assert_eq!(s.counters.dropped, m.dropped);
    assert!(m.timer_fired >= 1);
    // Every packet passes a leaf twice, or once within a leaf: about 10% to 20% lost.
    let lost = s.counters.dropped as f64 / s.counters.injected as f64;
    assert!((0.1..0.2).contains(&lost), "lost {lost}");
}

/// Drops a data packet once it has queued in input buffers longer than `budget` in all (SRP's
/// TTW, §3); with `recheck`, also while it waits at a head, as `Verdict::Recheck` allows.
struct QueuingBudget {
    budget: Time,
    router_latency: Time,
    recheck: bool,
    most_queued_delivered: Time,
}

impl Mechanism for QueuingBudget {
    type Header = ();
    const HOOKS: Hooks = Hooks { queue_head: true, deliver: true, ..Hooks::NONE };
    fn name(&self) -> &'static str {
        "queuing-budget"
    }
    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA]
    }
    fn at_queue_head(&mut self, ctx: &mut Ctx<Self::Header>, _: SwitchId, _: PortId, pkt: &Packet<Self::Header>, _: Beyond) -> Verdict {
        let queued = pkt.queued_until(ctx.now(), self.router_latency);
        match (queued > self.budget, self.recheck) {
            (true, _) => Verdict::Drop,
            (false, true) => Verdict::Recheck(ctx.now() + self.budget - queued + 1),
            (false, false) => Verdict::Keep,
        }
    }
    fn on_deliver(&mut self, _: &mut Ctx<Self::Header>, _: NodeId, pkt: &Packet<Self::Header>) {
        self.most_queued_delivered = self.most_queued_delivered.max(pkt.queued);
    }
}

#[test]
fn a_recheck_bounds_the_time_a_packet_waits_at_the_head() {
    let cfg = uniform(0.95);
    let budget = 300_000;
    let run = |recheck| {
        let mech = QueuingBudget { budget, router_latency: (cfg.switch.router_latency_ns * 1000.0) as Time, recheck, most_queued_delivered: 0 };
        let (s, sim) = run_with(&cfg, mech);
        (s.counters.dropped, sim.mechanism().most_queued_delivered)
    };
    let (dropped_at_arrival, most_without) = run(false);
    let (dropped, most) = run(true);
    assert!(most_without > budget, "heads wait past the budget unless rechecked: {most_without} ps");
    assert!(most <= budget, "a delivered packet queued {most} ps");
    assert!(dropped > dropped_at_arrival && dropped_at_arrival > 0, "{dropped} vs {dropped_at_arrival}");
}

/// Sends packets for host D2 on a low-priority VC (1), the rest on the data VC (0): SRP's
/// speculative packets beside its reserved ones.
struct LowToD2;

const D2: NodeId = NodeId(2);

impl Mechanism for LowToD2 {
    type Header = ();
    const HOOKS: Hooks = Hooks { inject_gate: true, ..Hooks::NONE };
    fn name(&self) -> &'static str {
        "low-to-d2"
    }
    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA, VcRole::new("low-priority data", VcClass::Low)]
    }
    fn data_vc(&self) -> u8 {
        0
    }
    fn inject_gate(&mut self, _: &mut Ctx<Self::Header>, v: QueueView) -> Gate {
        Gate::Now(if v.dst == D2 { 1 } else { 0 })
    }
}

/// Host A offers 0.8 of its link to D1 (periodic: no sampling noise) and is greedy to D2 (other
/// tests replace the traffic on the same network).
const DATA_AND_LOW: &str = r#"
[simulation]
warmup_ns = 50_000
measure_ns = 500_000

[topology]
kind = "explicit"
hosts = ["A", "D1", "D2"]
switches = ["S"]
links = [{ a = "A", b = "S" }, { a = "D1", b = "S" }, { a = "D2", b = "S" }]

[[traffic]]
name = "data"
pattern = "flow"
src = "A"
dest = "D1"
load = 0.8
arrival = "periodic"

[[traffic]]
name = "low"
pattern = "flow"
src = "A"
dest = "D2"
greedy = true
"#;

#[test]
fn the_nic_injects_low_priority_packets_only_into_slots_data_leaves() {
    for arbitration in ["round_robin", "oldest_first"] {
        let cfg = config_with(DATA_AND_LOW, &[&format!("nic.arbitration=\"{arbitration}\"")]);
        let (s, _) = run_with(&cfg, LowToD2);
        // Round-robin between the two send queues would give each half the link.
        assert_close(&format!("{arbitration}: data"), s.classes["data"].accepted, 0.8, 0.01);
        assert_close(&format!("{arbitration}: low"), s.classes["low"].accepted, 0.2, 0.01);
    }
}

/// Resends, 20 us in, a copy of the first packet host A injected: a packet older than any
/// queue's head message. Records when the copy goes.
#[derive(Default)]
struct ResendFirst {
    first: Option<(NodeId, QpId, Packet<()>)>,
    resent_at: Time,
    injected_again_at: Option<Time>,
}

impl Mechanism for ResendFirst {
    type Header = ();
    const HOOKS: Hooks = Hooks { injected: true, timer: true, ..Hooks::NONE };
    fn name(&self) -> &'static str {
        "resend-first"
    }
    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA]
    }
    fn on_injected(&mut self, ctx: &mut Ctx<Self::Header>, q: QueueView, pkt: &mut Packet<Self::Header>) {
        if self.first.is_some_and(|(_, _, first)| first.uid == pkt.uid) {
            self.injected_again_at.get_or_insert(ctx.now());
        } else if self.first.is_none() {
            ctx.track_copies(pkt);
            self.first = Some((q.src, q.qp, *pkt));
            ctx.set_timer(ctx.now() + 20_000_000, 0);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx<Self::Header>, _: u64) {
        let (node, qp, pkt) = self.first.expect("set with the timer");
        self.resent_at = ctx.now();
        ctx.retransmit(node, qp, pkt);
    }
}

#[test]
fn under_oldest_first_a_resent_packet_goes_next() {
    // A offers 1.6 of its link to eight destinations: its NIC holds eight backlogged queues.
    let mut text = String::from(
        "[simulation]\nwarmup_ns = 0\nmeasure_ns = 30_000\n[nic]\narbitration = \"oldest_first\"\n[topology]\nkind = \"explicit\"\nswitches = [\"S\"]\nhosts = [\"A\", \"D0\", \"D1\", \"D2\", \"D3\", \"D4\", \"D5\", \"D6\", \"D7\"]\nlinks = [{ a = \"A\", b = \"S\" }",
    );
    for d in 0..8 {
        text += &format!(", {{ a = \"D{d}\", b = \"S\" }}");
    }
    text += "]\n";
    for d in 0..8 {
        text += &format!("[[traffic]]\nname = \"to{d}\"\npattern = \"flow\"\nsrc = \"A\"\ndest = \"D{d}\"\nload = 0.2\narrival = \"periodic\"\n");
    }
    let (s, sim) = run_with(&config(&text), ResendFirst::default());
    let m = sim.mechanism();
    let waited = m.injected_again_at.expect("the copy was sent") - m.resent_at;
    // The oldest packet waits at most for the packet on the link (204.8 ns at 10 Gb/s).
    assert!(waited <= 204_800, "the resent packet waited {waited} ps");
    assert_eq!(s.counters.duplicates, 1);
}

/// Holds every packet for host D2 back until `HOLD_UNTIL` (SRP's wait for a reservation's start).
struct HoldD2;

const HOLD_UNTIL: Time = 20_000_000;

impl Mechanism for HoldD2 {
    type Header = ();
    const HOOKS: Hooks = Hooks { inject_gate: true, ..Hooks::NONE };
    fn name(&self) -> &'static str {
        "hold-d2"
    }
    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA]
    }
    fn inject_gate(&mut self, ctx: &mut Ctx<Self::Header>, v: QueueView) -> Gate {
        match v.dst == D2 && ctx.now() < HOLD_UNTIL {
            true => Gate::At(HOLD_UNTIL),
            false => Gate::Now(0),
        }
    }
}

#[test]
fn under_fifo_a_held_message_holds_back_every_later_one() {
    // A sends to D2 first (its first message is the oldest) and to D1 from 1 us on.
    let traffic = r#"traffic=[{name="held",pattern="flow",src="A",dest="D2",load=0.2,arrival="periodic"},{name="other",pattern="flow",src="A",dest="D1",load=0.2,arrival="periodic",start_ns=1000}]"#;
    let latency = |arbitration: &str| {
        let over = [traffic, "simulation.warmup_ns=0", "simulation.measure_ns=40000", &format!("nic.arbitration=\"{arbitration}\"")];
        let (s, _) = run_with(&config_with(DATA_AND_LOW, &over), HoldD2);
        s.classes["other"].packet_latency_ns.mean
    };
    let (by_age, fifo, by_message) = (latency("oldest_first"), latency("fifo"), latency("message_round_robin"));
    // Oldest first lets D1's packets pass the held queue; they wait only once D2's backlog,
    // older, goes at 20 us (about 20 packets of 205 ns).
    assert!(by_age < 2_000.0, "oldest_first: {by_age} ns");
    // Under fifo D1's packets generated before 20 us wait for it: about half of them, 10 us on
    // average.
    assert!(fifo > 4_000.0, "fifo: {fifo} ns");
    // One message at a time holds the link for a message that has started, not for one that
    // waits to start: D1's packets pass as under oldest first.
    assert!(by_message < 2_000.0, "message_round_robin: {by_message} ns");
}

/// Holds the rest of every 4-packet message to host D2 back, once its first packet is sent,
/// until `HOLD_UNTIL` (SRP: the speculative packets went, the rest waits for the reservation).
struct HoldD2MidMessage;

impl Mechanism for HoldD2MidMessage {
    type Header = ();
    const HOOKS: Hooks = Hooks { inject_gate: true, ..Hooks::NONE };
    fn name(&self) -> &'static str {
        "hold-d2-mid-message"
    }
    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA]
    }
    fn inject_gate(&mut self, ctx: &mut Ctx<Self::Header>, v: QueueView) -> Gate {
        match v.dst == D2 && v.head_message_left < v.head_message_packets && ctx.now() < HOLD_UNTIL {
            true => Gate::At(HOLD_UNTIL),
            false => Gate::Now(0),
        }
    }
}

#[test]
fn one_message_at_a_time_holds_the_link_for_a_started_message() {
    let traffic = r#"traffic=[{name="held",pattern="flow",src="A",dest="D2",load=0.2,arrival="periodic",message={kind="fixed",packets=4}},{name="other",pattern="flow",src="A",dest="D1",load=0.2,arrival="periodic",start_ns=1000,message={kind="fixed",packets=4}}]"#;
    let run = |arbitration: &str| {
        let over = [traffic, "simulation.warmup_ns=0", "simulation.measure_ns=40000", &format!("nic.arbitration=\"{arbitration}\"")];
        run_with(&config_with(DATA_AND_LOW, &over), HoldD2MidMessage).0
    };
    let (round_robin, by_message) = (run("round_robin"), run("message_round_robin"));
    let latency = |s: &Summary| s.classes["other"].packet_latency_ns.mean;
    // Packet round-robin sends D1's messages past D2's held one.
    assert!(latency(&round_robin) < 2_000.0, "round_robin: {} ns", latency(&round_robin));
    // One message at a time: D1 waits for the rest of D2's first message, sent at 20 us.
    assert!(latency(&by_message) > 4_000.0, "message_round_robin: {} ns", latency(&by_message));
    // From 20 us on, whole messages alternate between the two queues.
    assert_close("D1's share", by_message.classes["other"].accepted, round_robin.classes["other"].accepted, 0.02);
}
