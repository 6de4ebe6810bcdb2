//! Minimal routing on direct networks. Flattened butterflies: dimension order, correcting the
//! lowest differing coordinate first, one hop per dimension (Kim, Dally and Abts, ISCA 2007, §4;
//! the CBCM paper's MIN, §III and §V). Each dimension's routers are fully connected and
//! dimensions are taken in order, so channel dependencies only lead from a dimension to a higher
//! one: no cycle, and one VC suffices (a test checks it; the build does not, as the check takes
//! time in the square of the hosts). Dragonflies: local, global, local, the last local hop on a
//! second VC set (`groups`).

use super::direct::Direct;
use super::{Flow, Leg, PortLoads, Registered, Route};
use crate::config::{RoutingConfig, TopologyConfig};
use crate::error::ConfigResult;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::plugin::NoSettings;
use crate::rng::Stream;
use crate::topology::Topology;

pub struct Minimal(Direct);

impl Registered for Minimal {
    const ABOUT: &'static str = "Minimal: dimension order on flattened butterflies (the CBCM paper's MIN, §V), local-global-local on dragonflies.";
    const DOC: &'static str = "Flattened butterflies and dragonflies; `auto` picks it there. Flattened butterflies: corrects the lowest differing coordinate first, one hop per dimension: at most `dims` router-to-router hops, deadlock-free on one VC set. Dragonflies: to the router of the group holding the global channel to the destination's group, over it, then to the destination's router: at most 3 hops, the last on a second VC set. No settings.\n";
    type Settings = NoSettings;

    fn build(_: NoSettings, _: &RoutingConfig, topo: &Topology) -> ConfigResult<Minimal> {
        Direct::build(topo, "minimal").map(Minimal)
    }

    fn phases(topology: &TopologyConfig) -> u8 {
        Direct::phases(topology, false)
    }
}

impl Route for Minimal {
    #[inline]
    fn route<L: PortLoads + ?Sized>(&self, sw: SwitchId, dst: NodeId, _: Flow, leg: &mut Leg, _: &L, _: &mut Stream) -> PortId {
        self.0.minimal(sw, dst, leg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LinkConfig;
    use crate::routing::cycles::{self, PhasedGraph};
    use crate::routing::grid::DimensionOrder;
    use crate::routing::Route;

    #[test]
    fn dimension_order_has_no_channel_dependency_cycle() {
        for (k, n, c) in [(4, 1, 4), (3, 2, 2), (3, 3, 1)] {
            let shape = TopologyConfig::FlattenedButterfly { routers_per_dim: k, dims: n, concentration: c, link: LinkConfig::default() };
            let topo = Topology::build(&shape).unwrap();
            let routing = DimensionOrder::new(&topo, topo.grid.unwrap());
            assert_eq!(cycles::find(&topo, |s, d| routing.port(s, d)), None, "{k}^{n} x {c}");
        }
    }

    #[test]
    fn local_global_local_has_no_channel_dependency_cycle_on_two_vc_sets() {
        for (p, a, h) in [(1, 2, 1), (2, 4, 2), (1, 3, 3)] {
            let shape = TopologyConfig::Dragonfly { hosts_per_router: p, routers_per_group: a, global_per_router: h, global_latency_ns: None, link: LinkConfig::default() };
            let topo = Topology::build(&shape).unwrap();
            let routing = Minimal::build(NoSettings {}, &RoutingConfig::default(), &topo).unwrap();
            let mut graph = PhasedGraph::new(&topo, Minimal::phases(&shape));
            let mut rng = crate::rng::stream(1, crate::rng::Family::Switch, 0);
            for src in 0..topo.switches.len() as u32 {
                for dst in (0..topo.hosts() as u32).map(NodeId) {
                    let hops = graph.add_route(SwitchId(src), dst, Leg::START, |sw, leg| routing.route(sw, dst, Flow { src: NodeId(0), id: 0 }, leg, &crate::routing::Idle, &mut rng));
                    assert!(hops <= 3, "{p} {a} {h}: {src} -> {dst:?} took {hops} hops");
                }
            }
            let cycle = graph.cycle();
            assert!(cycle.is_empty(), "({p}, {a}, {h}): {cycle:?}");
        }
    }
}
