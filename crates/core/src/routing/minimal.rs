//! Minimal routing on flattened butterflies: dimension order, correcting the lowest differing
//! coordinate first, one hop per dimension (Kim, Dally and Abts, ISCA 2007, §4; the CBCM paper's
//! MIN, §III and §V). Each dimension's routers are fully connected and dimensions are taken in
//! order, so channel dependencies only lead from a dimension to a higher one: no cycle, and one
//! VC suffices (a test checks it; the build does not, as the check takes time in the square of
//! the hosts).

use super::grid::DimensionOrder;
use super::{Leg, Registered, Route};
use crate::config::RoutingConfig;
use crate::error::ConfigResult;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::plugin::NoSettings;
use crate::rng::Stream;
use crate::switch::Output;
use crate::topology::Topology;

pub struct Minimal(DimensionOrder);

impl Registered for Minimal {
    const ABOUT: &'static str = "Minimal: dimension order on flattened butterflies (the CBCM paper's MIN, §V).";
    const DOC: &'static str = "Flattened butterflies only; `auto` picks it there. Corrects the lowest differing coordinate first, one hop per dimension: at most `dims` router-to-router hops, deadlock-free on one VC. No settings.\n";
    type Settings = NoSettings;

    fn build(_: NoSettings, _: &RoutingConfig, topo: &Topology) -> ConfigResult<Minimal> {
        DimensionOrder::build(topo, "minimal").map(Minimal)
    }
}

impl Route for Minimal {
    #[inline]
    fn route(&self, sw: SwitchId, dst: NodeId, _: &mut Leg, _: &[Output], _: &mut Stream) -> PortId {
        self.0.port(sw, dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{LinkConfig, TopologyConfig};
    use crate::routing::cycles;

    #[test]
    fn dimension_order_has_no_channel_dependency_cycle() {
        for (k, n, c) in [(4, 1, 4), (3, 2, 2), (3, 3, 1)] {
            let shape = TopologyConfig::FlattenedButterfly { routers_per_dim: k, dims: n, concentration: c, link: LinkConfig::default() };
            let topo = Topology::build(&shape).unwrap();
            let routing = DimensionOrder::build(&topo, "minimal").unwrap();
            assert_eq!(cycles::find(&topo, |s, d| routing.port(s, d)), None, "{k}^{n} x {c}");
        }
    }
}
