//! Minimal routing on flattened butterflies: dimension order, correcting the lowest differing
//! coordinate first, one hop per dimension (Kim, Dally and Abts, ISCA 2007, §4; the CBCM paper's
//! MIN, §III and §V). Each dimension's routers are fully connected and dimensions are taken in
//! order, so channel dependencies only lead from a dimension to a higher one: no cycle, and one
//! VC suffices (a test checks it; the build does not, as the check takes time in the square of
//! the hosts).

use super::{Registered, Route};
use crate::config::RoutingConfig;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{Endpoint, NodeId, PortId, SwitchId};
use crate::plugin::NoSettings;
use crate::rng::Stream;
use crate::topology::Topology;

pub struct Minimal {
    /// k, the routers per dimension, and c, the hosts per router.
    k: u32,
    c: u32,
    /// k^i for each dimension i.
    strides: Vec<u32>,
    /// Per router, dimension and coordinate: the port to the router with that coordinate.
    port_to: Vec<PortId>,
}

impl Registered for Minimal {
    const ABOUT: &'static str = "Minimal: dimension order on flattened butterflies (the CBCM paper's MIN, §V).";
    const DOC: &'static str = "Flattened butterflies only; `auto` picks it there. Corrects the lowest differing coordinate first, one hop per dimension: at most `dims` router-to-router hops, deadlock-free on one VC. No settings.\n";
    type Settings = NoSettings;

    fn build(_: NoSettings, _: &RoutingConfig, topo: &Topology) -> ConfigResult<Minimal> {
        let Some(g) = topo.grid else {
            return Err(ConfigError::new("routing.algorithm", "minimal routes flattened butterflies; use nca on trees and shortest_path on explicit topologies"));
        };
        let (k, n) = (g.routers_per_dim, g.dims);
        let strides: Vec<u32> = (0..n).map(|i| k.pow(i)).collect();
        let mut port_to = vec![PortId::MAX; topo.switches.len() * (n * k) as usize];
        for (r, sw) in topo.switches.iter().enumerate() {
            for (p, port) in sw.ports.iter().enumerate() {
                let Endpoint::Switch(t, _) = topo.channels[port.out.idx()].to else { continue };
                let (r, t) = (r as u32, t.0);
                let i = strides.iter().position(|&st| (r / st) % k != (t / st) % k).expect("linked routers differ in a coordinate");
                port_to[(r * n * k + i as u32 * k + (t / strides[i]) % k) as usize] = PortId::new(p);
            }
        }
        Ok(Minimal { k, c: g.concentration, strides, port_to })
    }
}

impl Minimal {
    #[inline]
    fn port(&self, sw: SwitchId, dst: NodeId) -> PortId {
        let (r, target) = (sw.0, dst.0 / self.c);
        if r == target {
            return PortId((dst.0 % self.c) as u16);
        }
        let n = self.strides.len() as u32;
        let i = self.strides.iter().position(|&st| (r / st) % self.k != (target / st) % self.k).expect("a router other than the target differs in a coordinate");
        self.port_to[(r * n * self.k + i as u32 * self.k + (target / self.strides[i]) % self.k) as usize]
    }
}

impl Route for Minimal {
    #[inline]
    fn route(&self, sw: SwitchId, dst: NodeId, _: &mut Stream) -> PortId {
        self.port(sw, dst)
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
            let routing = Minimal::build(NoSettings {}, &RoutingConfig::default(), &topo).unwrap();
            assert_eq!(cycles::find(&topo, |s, d| routing.port(s, d)), None, "{k}^{n} x {c}");
        }
    }
}
