//! ECMP on fat trees: the up port is a hash of the packet's flow (its source and destination,
//! and the message where each has a send queue of its own) at each switch, so a flow keeps one
//! path and two flows may collide on a link (the ACCurate paper, §III-A: "routing conflict
//! (e.g. caused by ECMP or d-mod-k routing)").

use super::updown::{Climb, UpDown};
use super::{Flow, Leg, PortLoads, Registered, Route};
use crate::config::RoutingConfig;
use crate::error::ConfigResult;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::plugin::NoSettings;
use crate::rng::Stream;
use crate::topology::Topology;

pub struct Ecmp(UpDown);

impl Registered for Ecmp {
    const ABOUT: &'static str = "ECMP: the up port is a hash of the packet's flow (source and destination), so a flow keeps one path (the ACCurate paper, §III-A).";
    const DOC: &'static str = "Trees only (`kary_ntree`, `fat_tree2`). A flow is the messages from one source to one destination, or one message with `nic.send_queues = \"per_flow\"`. The hash is fixed (the same in every run and for every seed). No settings.\n";
    type Settings = NoSettings;

    fn build(_: NoSettings, _: &RoutingConfig, topo: &Topology) -> ConfigResult<Ecmp> {
        UpDown::build(topo, Climb::Hash, "ecmp").map(Ecmp)
    }
}

impl Route for Ecmp {
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
