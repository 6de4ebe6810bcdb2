//! Valiant routing on flattened butterflies: to a random intermediate router, then to the
//! destination, each leg in dimension order (Valiant and Brebner, STOC 1981; on flattened
//! butterflies Kim, Dally and Abts, ISCA 2007, §4.1). It balances any permutation over the
//! network at the cost of up to twice the hops: about half of the capacity on every pattern.
//!
//! Deadlock: each leg alone is dimension order (acyclic, see `minimal`), and the second leg runs
//! on its own VCs (phase 1), entered only at the intermediate router, so no dependency leads back
//! from the second set to the first (a test checks the graph of (channel, phase) pairs).

use super::grid::DimensionOrder;
use super::{Leg, Registered, Route};
use crate::config::RoutingConfig;
use crate::error::ConfigResult;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::plugin::NoSettings;
use crate::rng::Stream;
use crate::switch::Output;
use crate::topology::Topology;

pub struct Valiant(DimensionOrder);

impl Registered for Valiant {
    const ABOUT: &'static str = "Valiant: via a random intermediate router, then to the destination, on flattened butterflies (two VC sets).";
    const DOC: &'static str = "Flattened butterflies only. The first switch picks an intermediate router at random (any coordinate in the dimensions where source and destination routers differ, as BookSim2 does for the CBCM paper, §V); the packet goes there in dimension order on the first VC set, then to its destination on the second. Twice the mechanism's VCs; deadlock-free. No settings.\n";
    type Settings = NoSettings;
    const PHASES: u8 = 2;

    fn build(_: NoSettings, _: &RoutingConfig, topo: &Topology) -> ConfigResult<Valiant> {
        DimensionOrder::build(topo, "valiant").map(Valiant)
    }
}

impl Route for Valiant {
    #[inline]
    fn route(&self, sw: SwitchId, dst: NodeId, leg: &mut Leg, _: &[Output], rng: &mut Stream) -> PortId {
        if leg.is_start() {
            if leg.minimal {
                leg.phase = 1;
            } else {
                leg.via = self.0.random_via(sw, self.0.router_of(dst), rng);
            }
        }
        onward(&self.0, sw, dst, leg)
    }
}

/// The next port of a packet whose route is chosen: towards `leg.via` in phase 0, switching to
/// phase 1 there; to `dst` in phase 1.
#[inline]
pub(super) fn onward(grid: &DimensionOrder, sw: SwitchId, dst: NodeId, leg: &mut Leg) -> PortId {
    if leg.phase == 0 && sw == leg.via {
        leg.phase = 1;
    }
    if leg.phase == 0 {
        grid.toward(sw, leg.via)
    } else {
        grid.port(sw, dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{LinkConfig, TopologyConfig};
    use crate::ids::{ChannelId, Endpoint};
    use crate::routing::cycles::first_cycle;

    /// Every route of every (source router, intermediate router, destination) triple, as
    /// dependencies between (channel, phase) pairs: acyclic.
    #[test]
    fn two_phases_have_no_channel_dependency_cycle() {
        for (k, n, c) in [(4, 1, 2), (3, 2, 1), (3, 3, 1)] {
            let shape = TopologyConfig::FlattenedButterfly { routers_per_dim: k, dims: n, concentration: c, link: LinkConfig::default() };
            let topo = Topology::build(&shape).unwrap();
            let grid = DimensionOrder::build(&topo, "valiant").unwrap();
            let nodes = 2 * topo.channels.len();
            let mut next = vec![Vec::new(); nodes];
            let routers = topo.switches.len() as u32;
            for src in 0..routers {
                for via in 0..routers {
                    for dst in 0..topo.hosts() as u32 {
                        let mut leg = Leg { via: SwitchId(via), ..Leg::START };
                        let (mut sw, mut prev) = (SwitchId(src), None::<usize>);
                        loop {
                            let out = topo.switches[sw.idx()].ports[onward(&grid, sw, NodeId(dst), &mut leg).idx()].out;
                            let node = 2 * out.idx() + leg.phase as usize;
                            if let Some(p) = prev {
                                next[p].push(ChannelId::new(node));
                            }
                            match topo.channels[out.idx()].to {
                                Endpoint::Switch(t, _) => (sw, prev) = (t, Some(node)),
                                Endpoint::Host(h) => {
                                    assert_eq!(h, NodeId(dst));
                                    break;
                                }
                            }
                        }
                    }
                }
            }
            let cycle = first_cycle(nodes, (0..nodes).map(ChannelId::new), |c| std::mem::take(&mut next[c.idx()]));
            assert!(cycle.is_empty(), "{k}^{n} x {c}: {cycle:?}");
        }
    }
}
