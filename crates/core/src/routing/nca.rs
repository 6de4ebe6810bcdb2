//! Nearest-common-ancestor routing on fat trees (SRP paper §4: "routed up the tree using
//! randomly assigned up channels ... then down deterministically").

use super::updown::{Climb, UpDown};
use super::{Flow, Leg, PortLoads, Registered, Route};
use crate::config::RoutingConfig;
use crate::error::ConfigResult;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::plugin::NoSettings;
use crate::rng::Stream;
use crate::topology::Topology;

pub struct Nca(UpDown);

impl Registered for Nca {
    const ABOUT: &'static str = "Nearest-common-ancestor: a random up port per packet, then deterministic down (SRP paper §4).";
    const DOC: &'static str = "Trees only (`kary_ntree`, `fat_tree2`); `auto` picks it there. No settings.\n";
    type Settings = NoSettings;

    fn build(_: NoSettings, _: &RoutingConfig, topo: &Topology) -> ConfigResult<Nca> {
        UpDown::build(topo, Climb::Random, "nca").map(Nca)
    }
}

impl Route for Nca {
    #[inline]
    fn route<L: PortLoads + ?Sized>(&self, sw: SwitchId, dst: NodeId, flow: Flow, _: &mut Leg, _: &L, rng: &mut Stream) -> PortId {
        self.0.route(sw, dst, flow, rng)
    }

    fn prefetch(&self, sw: SwitchId, rng: &Stream) {
        self.0.prefetch(sw, rng);
    }

    fn predict(&self, sw: SwitchId, dst: NodeId, flow: Flow, rng: &Stream) -> Option<PortId> {
        Some(self.0.predict(sw, dst, flow, rng))
    }
}
