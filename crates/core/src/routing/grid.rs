//! The arithmetic of flattened butterflies that `minimal`, `valiant` and `ugal` share: router
//! coordinates, dimension-order next hops (Kim, Dally and Abts, ISCA 2007, §4) and hop counts.

use crate::ids::{Endpoint, NodeId, PortId, SwitchId};
use crate::rng::Stream;
use crate::topology::{Grid, Topology};
use rand::RngExt;

pub struct DimensionOrder {
    /// k, the routers per dimension, and c, the hosts per router.
    k: u32,
    c: u32,
    /// k^i for each dimension i.
    strides: Vec<u32>,
    /// Per router, dimension and coordinate: the port to the router with that coordinate.
    port_to: Vec<PortId>,
}

impl DimensionOrder {
    /// The arithmetic of flattened butterfly `topo`, of shape `g`.
    pub fn new(topo: &Topology, g: Grid) -> DimensionOrder {
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
        DimensionOrder { k, c: g.concentration, strides, port_to }
    }

    /// The router host `dst` hangs off.
    #[inline]
    pub fn router_of(&self, dst: NodeId) -> SwitchId {
        SwitchId(dst.0 / self.c)
    }

    #[inline]
    fn coordinate(&self, r: SwitchId, dim: usize) -> u32 {
        (r.0 / self.strides[dim]) % self.k
    }

    /// The port of router `sw` towards router `target` (another router): to the router that
    /// corrects the lowest differing coordinate.
    #[inline]
    pub fn toward(&self, sw: SwitchId, target: SwitchId) -> PortId {
        let n = self.strides.len();
        let i = (0..n).position(|d| self.coordinate(sw, d) != self.coordinate(target, d)).expect("a router other than the target differs in a coordinate");
        self.port_to[(sw.idx() * n + i) * self.k as usize + self.coordinate(target, i) as usize]
    }

    /// The port of router `sw` on the minimal route to host `dst`: its own port if `dst` hangs
    /// off `sw`, else `toward` the host's router.
    #[inline]
    pub fn port(&self, sw: SwitchId, dst: NodeId) -> PortId {
        let target = self.router_of(dst);
        if sw == target {
            PortId((dst.0 % self.c) as u16)
        } else {
            self.toward(sw, target)
        }
    }

    /// Router-to-router hops between routers `a` and `b` on a minimal route: their differing
    /// coordinates.
    pub fn distance(&self, a: SwitchId, b: SwitchId) -> u32 {
        (0..self.strides.len()).filter(|&d| self.coordinate(a, d) != self.coordinate(b, d)).count() as u32
    }

    /// A random intermediate router for a packet from router `a` to router `b`: any coordinate
    /// in the dimensions where they differ, theirs where they agree, so that the detour stays
    /// within the dimensions the packet has to cross anyway (BookSim2's flattened-butterfly
    /// UGAL, the CBCM paper's simulator, §V).
    pub fn random_via(&self, a: SwitchId, b: SwitchId, rng: &mut Stream) -> SwitchId {
        let via = (0..self.strides.len())
            .map(|d| {
                let x = self.coordinate(a, d);
                let coordinate = if x == self.coordinate(b, d) { x } else { rng.random_range(0..self.k) };
                coordinate * self.strides[d]
            })
            .sum();
        SwitchId(via)
    }

    /// The next port of a packet at `sw` for `dst` whose route is chosen: towards `leg.via` in
    /// phase 0, switching to phase 1 there; to `dst` in phase 1.
    #[inline]
    pub fn onward(&self, sw: SwitchId, dst: NodeId, leg: &mut super::Leg) -> PortId {
        if leg.phase == 0 && sw == leg.via {
            leg.phase = 1;
        }
        if leg.phase == 0 {
            self.toward(sw, leg.via)
        } else {
            self.port(sw, dst)
        }
    }
}
