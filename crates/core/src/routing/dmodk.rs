//! D-mod-K routing on fat trees (thesis Paper II §V): the up port is a digit of the
//! destination, so every down link carries the traffic of a single destination.

use super::updown::{Climb, UpDown};
use super::{Flow, Leg, PortLoads, Registered, Route};
use crate::config::RoutingConfig;
use crate::error::ConfigResult;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::plugin::NoSettings;
use crate::rng::Stream;
use crate::topology::Topology;

pub struct Dmodk(UpDown);

impl Registered for Dmodk {
    const ABOUT: &'static str = "D-mod-K: the up port is a function of the destination, so each down link carries the traffic of one destination (thesis Paper II §V).";
    const DOC: &'static str = "Trees only (`kary_ntree`, `fat_tree2`). No settings.\n";
    type Settings = NoSettings;

    fn build(_: NoSettings, _: &RoutingConfig, topo: &Topology) -> ConfigResult<Dmodk> {
        UpDown::build(topo, Climb::DmodK, "dmodk").map(Dmodk)
    }
}

impl Route for Dmodk {
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
