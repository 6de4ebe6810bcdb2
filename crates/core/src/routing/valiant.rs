//! Valiant routing on direct networks: to a random intermediate router, then to the destination
//! (Valiant and Brebner, STOC 1981). It balances any permutation over the network at the cost of
//! up to twice the hops: about half of the capacity on every pattern. Flattened butterflies (Kim,
//! Dally and Abts, ISCA 2007, §4.1): each leg in dimension order, the second on its own VC set
//! (phase 1), entered only at the intermediate router, so no dependency leads back from the
//! second set to the first (a test checks the graph of (channel, phase) pairs). Dragonflies (Kim
//! et al., ISCA 2008, §4.2): through a random intermediate group, on three VC sets (`groups`).

use super::direct::Direct;
use super::{Flow, Leg, PortLoads, Registered, Route};
use crate::config::{RoutingConfig, TopologyConfig};
use crate::error::ConfigResult;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::plugin::NoSettings;
use crate::rng::Stream;
use crate::topology::Topology;

pub struct Valiant(Direct);

impl Registered for Valiant {
    const ABOUT: &'static str = "Valiant: via a random intermediate router, then to the destination, on flattened butterflies and dragonflies.";
    const DOC: &'static str = "Flattened butterflies: the first switch picks an intermediate router at random (any coordinate in the dimensions where source and destination routers differ, as BookSim2 does for the CBCM paper, §V); the packet goes there in dimension order on the first VC set, then to its destination on the second: twice the mechanism's VCs. Dragonflies: through a random router of a random group, minimally to that group on the first VC set, on to the destination's group on the second, within it on the third: three times the mechanism's VCs. Deadlock-free. No settings.\n";
    type Settings = NoSettings;

    fn build(_: NoSettings, _: &RoutingConfig, topo: &Topology) -> ConfigResult<Valiant> {
        Direct::build(topo, "valiant").map(Valiant)
    }

    fn phases(topology: &TopologyConfig) -> u8 {
        Direct::phases(topology, true)
    }
}

impl Route for Valiant {
    #[inline]
    fn route<L: PortLoads + ?Sized>(&self, sw: SwitchId, dst: NodeId, _: Flow, leg: &mut Leg, _: &L, rng: &mut Stream) -> PortId {
        if leg.is_start() {
            if leg.minimal {
                leg.phase = 1;
            } else {
                leg.via = self.0.random_via(sw, self.0.router_of(dst), rng);
            }
        }
        self.0.onward(sw, dst, leg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LinkConfig;
    use crate::routing::cycles::PhasedGraph;

    fn fb(k: u32, n: u32, c: u32) -> TopologyConfig {
        TopologyConfig::FlattenedButterfly { routers_per_dim: k, dims: n, concentration: c, link: LinkConfig::default() }
    }

    fn dragonfly(p: u32, a: u32, h: u32) -> TopologyConfig {
        TopologyConfig::Dragonfly { hosts_per_router: p, routers_per_group: a, global_per_router: h, global_latency_ns: None, link: LinkConfig::default() }
    }

    /// Every route of every (source router, intermediate router, destination) triple, as
    /// dependencies between (channel, phase) pairs: acyclic, within the VC sets `phases` counts.
    #[test]
    fn the_phases_have_no_channel_dependency_cycle() {
        for shape in [fb(4, 1, 2), fb(3, 2, 1), fb(3, 3, 1), dragonfly(1, 2, 1), dragonfly(1, 3, 2), dragonfly(2, 4, 2)] {
            let topo = Topology::build(&shape).unwrap();
            let direct = Direct::build(&topo, "valiant").unwrap();
            let mut graph = PhasedGraph::new(&topo, Valiant::phases(&shape));
            let routers = topo.switches.len() as u32;
            for src in 0..routers {
                for via in 0..routers {
                    for dst in (0..topo.hosts() as u32).map(NodeId) {
                        graph.add_route(SwitchId(src), dst, Leg { via: SwitchId(via), ..Leg::START }, |sw, leg| direct.onward(sw, dst, leg));
                    }
                }
            }
            let cycle = graph.cycle();
            assert!(cycle.is_empty(), "{shape:?}: {cycle:?}");
        }
    }
}
