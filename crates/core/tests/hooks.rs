//! The promises a mechanism makes to the engine hold for every mechanism lossless ships: each
//! hook it implements is declared in `Mechanism::HOOKS` (the engine never calls an undeclared
//! one, so an implemented hook left out would silently never run), each declared hook is
//! implemented, and a mechanism that sets `GATE_ONLY_READS` has an injection gate that acts on
//! nothing and answers with its data VC.
//!
//! A probe wraps the mechanism, declares every hook so that the engine calls them all, and asks
//! the inner mechanism each time; the trait's defaults record that they ran (`cc::audit`).

mod common;
use common::example_with;
use lossless_core::cc::audit::{take_default_ran, Hook};
use lossless_core::cc::{Beyond, Ctx, Gate, Held, Hooks, Mechanism, OutputView, QueueView, Request, VcRole, Verdict};
use lossless_core::ids::{NodeId, PortId, SwitchId, Vc};
use lossless_core::packet::Packet;
use lossless_core::{with_mechanism, Config, Sim};
use std::collections::BTreeSet;
use std::ops::ControlFlow;

struct Probe<M> {
    inner: M,
    /// Hooks called on the inner mechanism: those that ran its own code, those that ran the default.
    implemented: BTreeSet<String>,
    defaulted: BTreeSet<String>,
    /// Violations of `GATE_ONLY_READS`.
    gate_faults: Vec<String>,
}

impl<M: Mechanism> Probe<M> {
    fn new(inner: M) -> Probe<M> {
        Probe { inner, implemented: BTreeSet::new(), defaulted: BTreeSet::new(), gate_faults: Vec::new() }
    }

    fn saw(&mut self, hook: Hook) {
        let name = format!("{hook:?}");
        if take_default_ran(hook) {
            self.defaulted.insert(name);
        } else {
            self.implemented.insert(name);
        }
    }
}

const EVERY_HOOK: Hooks = Hooks {
    switch_arrival: true,
    queue_head: true,
    request: true,
    input_full: true,
    transmit: true,
    voq_detail: true,
    message: true,
    inject_gate: true,
    injected: true,
    deliver: true,
    control: true,
    timer: true,
};

impl<M: Mechanism> Mechanism for Probe<M> {
    type Header = M::Header;
    const HOOKS: Hooks = EVERY_HOOK;
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn vcs(&self) -> Vec<VcRole> {
        self.inner.vcs()
    }
    fn data_vc(&self) -> Vc {
        self.inner.data_vc()
    }
    fn on_switch_arrival(&mut self, ctx: &mut Ctx<Self::Header>, sw: SwitchId, port: PortId, pkt: &mut Packet<Self::Header>, held: Held) {
        self.inner.on_switch_arrival(ctx, sw, port, pkt, held);
        self.saw(Hook::SwitchArrival);
    }
    fn at_queue_head(&mut self, ctx: &mut Ctx<Self::Header>, sw: SwitchId, port: PortId, pkt: &Packet<Self::Header>, beyond: Beyond) -> Verdict {
        let v = self.inner.at_queue_head(ctx, sw, port, pkt, beyond);
        self.saw(Hook::QueueHead);
        v
    }
    fn on_request(&mut self, ctx: &mut Ctx<Self::Header>, sw: SwitchId, req: Request, requesting: bool) {
        self.inner.on_request(ctx, sw, req, requesting);
        self.saw(Hook::Request);
    }
    fn on_input_full(&mut self, ctx: &mut Ctx<Self::Header>, sw: SwitchId, port: PortId, vc: Vc, contents: &[(u64, PortId)]) {
        self.inner.on_input_full(ctx, sw, port, vc, contents);
        self.saw(Hook::InputFull);
    }
    fn on_transmit(&mut self, ctx: &mut Ctx<Self::Header>, sw: SwitchId, port: PortId, pkt: &mut Packet<Self::Header>, out: OutputView) {
        self.inner.on_transmit(ctx, sw, port, pkt, out);
        self.saw(Hook::Transmit);
    }
    fn on_message(&mut self, ctx: &mut Ctx<Self::Header>, q: QueueView, packets: u32) {
        self.inner.on_message(ctx, q, packets);
        self.saw(Hook::Message);
    }
    fn inject_gate(&mut self, ctx: &mut Ctx<Self::Header>, q: QueueView) -> Gate {
        let before = ctx.actions();
        let gate = self.inner.inject_gate(ctx, q);
        self.saw(Hook::InjectGate);
        if M::GATE_ONLY_READS {
            if ctx.actions() != before {
                self.gate_faults.push(format!("inject_gate acted at {} ns", ctx.now() / 1000));
            }
            if let Gate::Now(vc) = gate {
                if vc != self.inner.data_vc() {
                    self.gate_faults.push(format!("inject_gate answered VC {vc}, not the data VC"));
                }
            }
        }
        gate
    }
    fn release_queue(&mut self, ctx: &mut Ctx<Self::Header>, q: QueueView) -> bool {
        self.inner.release_queue(ctx, q)
    }
    fn on_injected(&mut self, ctx: &mut Ctx<Self::Header>, q: QueueView, pkt: &mut Packet<Self::Header>) {
        self.inner.on_injected(ctx, q, pkt);
        self.saw(Hook::Injected);
    }
    fn on_deliver(&mut self, ctx: &mut Ctx<Self::Header>, node: NodeId, pkt: &Packet<Self::Header>) {
        self.inner.on_deliver(ctx, node, pkt);
        self.saw(Hook::Deliver);
    }
    fn on_control(&mut self, ctx: &mut Ctx<Self::Header>, node: NodeId, pkt: &Packet<Self::Header>) {
        self.inner.on_control(ctx, node, pkt);
        self.saw(Hook::Control);
    }
    fn on_timer(&mut self, ctx: &mut Ctx<Self::Header>, token: u64) {
        self.inner.on_timer(ctx, token);
        self.saw(Hook::Timer);
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.inner.counters()
    }
}

/// Runs `cfg`'s mechanism inside a probe; returns (implemented, defaulted, gate faults, declared).
fn probe(cfg: &Config) -> (BTreeSet<String>, BTreeSet<String>, Vec<String>, BTreeSet<String>) {
    with_mechanism!(cfg, m => {
        assert_eq!(m.name(), cfg.cc.mechanism, "the name in results is the name in the registry");
        let declared = Hook::ALL.iter().filter(|h| h.declared_in(&mechanism_hooks(&m))).map(|h| format!("{h:?}")).collect();
        let mut sim = Sim::new(cfg, Probe::new(m)).unwrap();
        sim.run_until(sim.end(), &mut |_| ControlFlow::Continue(())).unwrap();
        sim.check_invariants().unwrap();
        let p = sim.mechanism();
        (p.implemented.clone(), p.defaulted.clone(), p.gate_faults.clone(), declared)
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

fn mechanism_hooks<M: Mechanism>(_: &M) -> Hooks {
    M::HOOKS
}

#[test]
fn every_mechanism_declares_exactly_the_hooks_it_implements() {
    // A hot spot over background traffic, with two-packet buffers that fill even under SRP:
    // marks, throttles, drops and full buffers, so every hook a mechanism has gets called.
    for mechanism in lossless_core::cc::registry::NAMES {
        let cfg = example_with(
            "srp/hotspot40_background.toml",
            &[&format!("cc.mechanism=\"{mechanism}\""), "simulation.warmup_ns=0", "simulation.measure_ns=100000", "switch.input_buffer_packets=2"],
        );
        let (implemented, defaulted, gate_faults, declared) = probe(&cfg);
        let undeclared: Vec<_> = implemented.difference(&declared).collect();
        assert!(undeclared.is_empty(), "{mechanism} implements {undeclared:?} without declaring them in HOOKS: the engine would never call them");
        let unimplemented: Vec<_> = declared.iter().filter(|h| defaulted.contains(*h) && !implemented.contains(*h)).collect();
        assert!(unimplemented.is_empty(), "{mechanism} declares {unimplemented:?} but leaves them to the defaults");
        assert!(gate_faults.is_empty(), "{mechanism} sets GATE_ONLY_READS but: {gate_faults:?}");
        // The probe saw every hook but those that only the mechanism's own actions bring about:
        // control packets and timers.
        let seen: BTreeSet<_> = implemented.union(&defaulted).cloned().collect();
        for h in Hook::ALL.iter().filter(|h| !matches!(h, Hook::Timer | Hook::Control)) {
            assert!(seen.contains(&format!("{h:?}")), "{mechanism}: {h:?} was never called; the scenario does not cover it");
        }
    }
}

/// A mechanism that lies: it implements `on_transmit` and declares nothing.
struct Liar;

impl Mechanism for Liar {
    type Header = ();
    const HOOKS: Hooks = Hooks::NONE;
    fn name(&self) -> &'static str {
        "liar"
    }
    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA]
    }
    fn on_transmit(&mut self, _: &mut Ctx<Self::Header>, _: SwitchId, _: PortId, pkt: &mut Packet<Self::Header>, _: OutputView) {
        pkt.marked = true;
    }
}

#[test]
fn the_probe_catches_an_undeclared_hook() {
    let cfg = example_with("fattree256_uniform.toml", &["simulation.measure_ns=5000"]);
    let mut sim = Sim::new(&cfg, Probe::new(Liar)).unwrap();
    sim.run_until(sim.end(), &mut |_| ControlFlow::Continue(())).unwrap();
    let p = sim.mechanism();
    assert!(p.implemented.contains("Transmit") && !Hook::Transmit.declared_in(&Liar::HOOKS));
    assert!(p.defaulted.contains("Deliver") && !p.implemented.contains("Deliver"));
}
