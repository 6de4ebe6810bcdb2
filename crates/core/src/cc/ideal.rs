//! The CBCM paper's Ideal reference (§III, Fig. 2): every traffic class on a VC of its own, all
//! of data priority, so that a congested class (a hot spot) cannot block the others at any
//! buffer. Not a mechanism a network could build for arbitrary traffic, but the upper bound
//! every CBCM figure compares against.

use super::registry::{NoSettings, Registered};
use super::{Ctx, Gate, Hooks, Mechanism, QueueView, VcRole};
use crate::config::{Config, Pattern};
use crate::packet::Packet;
use crate::routing::Leg;

pub struct Ideal {
    /// Per traffic class: whether it is a hot spot's (routed minimally, §III: "the hotspot
    /// traffic is routed minimally").
    hot_spot: Vec<bool>,
}

impl Registered for Ideal {
    const ABOUT: &'static str = "The CBCM paper's Ideal reference (§III): each traffic class on a data VC of its own, so no class blocks another.";
    const DOC: &'static str = "VC i carries traffic class i (the order of `[[traffic]]`), all at data priority, served round-robin at outputs and NICs; `hotspot` classes take minimal routes under adaptive routing (§III). No settings.\n";
    type Settings = NoSettings;

    fn new(cfg: &Config, _: NoSettings) -> Ideal {
        Ideal { hot_spot: cfg.traffic.iter().map(|t| t.pattern == Pattern::Hotspot).collect() }
    }
}

impl Mechanism for Ideal {
    type Header = ();
    const HOOKS: Hooks = Hooks { inject_gate: true, injected: true, ..Hooks::NONE };
    const PARTITIONED: bool = true;

    fn name(&self) -> &'static str {
        "ideal"
    }

    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA; self.hot_spot.len()]
    }

    fn inject_gate(&mut self, _: &mut Ctx<()>, q: QueueView) -> Gate {
        Gate::Now(q.head_class as u8)
    }

    fn on_injected(&mut self, _: &mut Ctx<()>, _: QueueView, pkt: &mut Packet<()>) {
        if self.hot_spot[pkt.class as usize] {
            pkt.leg = Leg::MINIMAL;
        }
    }
}
