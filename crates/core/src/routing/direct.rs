//! Direct networks as minimal, Valiant and UGAL routing see them: a flattened butterfly
//! (`grid`) or a dragonfly (`groups`), each with its own arithmetic and VC sets.

use super::grid::DimensionOrder;
use super::groups::GroupOrder;
use super::Leg;
use crate::config::TopologyConfig;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, PortId, SwitchId};
use crate::rng::Stream;
use crate::topology::Topology;

pub enum Direct {
    Grid(DimensionOrder),
    Groups(GroupOrder),
}

impl Direct {
    /// The arithmetic of `topo`, or an error naming routing `name` if it is neither.
    pub fn build(topo: &Topology, name: &str) -> ConfigResult<Direct> {
        match (topo.grid, topo.groups) {
            (Some(grid), _) => Ok(Direct::Grid(DimensionOrder::new(topo, grid))),
            (_, Some(groups)) => Ok(Direct::Groups(GroupOrder::new(topo, groups))),
            (None, None) => Err(ConfigError::new(
                "routing.algorithm",
                format!("{name} routes flattened butterflies; use nca on trees and shortest_path on explicit topologies"),
            )),
        }
    }

    /// The VC sets minimal routes (`detour` false) or Valiant routes need on `topology`: one or
    /// two on flattened butterflies, two or three on dragonflies (`groups`).
    pub fn phases(topology: &TopologyConfig, detour: bool) -> u8 {
        let dragonfly = matches!(topology, TopologyConfig::Dragonfly { .. });
        1 + detour as u8 + dragonfly as u8
    }

    #[inline]
    pub fn router_of(&self, dst: NodeId) -> SwitchId {
        match self {
            Direct::Grid(g) => g.router_of(dst),
            Direct::Groups(g) => g.router_of(dst),
        }
    }

    /// The minimal route's next port, the packet's phase set for it.
    #[inline]
    pub fn minimal(&self, sw: SwitchId, dst: NodeId, leg: &mut Leg) -> PortId {
        match self {
            Direct::Grid(g) => g.port(sw, dst),
            Direct::Groups(g) => {
                leg.phase = (g.group(sw) == g.group(g.router_of(dst))) as u8;
                g.port(sw, dst)
            }
        }
    }

    /// The next port of a route through `leg.via` (from phase 0) or straight to `dst` (from
    /// phase 1).
    #[inline]
    pub fn onward(&self, sw: SwitchId, dst: NodeId, leg: &mut Leg) -> PortId {
        match self {
            Direct::Grid(g) => g.onward(sw, dst, leg),
            Direct::Groups(g) => g.onward(sw, dst, leg),
        }
    }

    /// A random intermediate router for a packet from router `here` to router `there`.
    pub fn random_via(&self, here: SwitchId, there: SwitchId, rng: &mut Stream) -> SwitchId {
        match self {
            Direct::Grid(g) => g.random_via(here, there, rng),
            Direct::Groups(g) => g.random_via(rng),
        }
    }

    /// Whether going through `via` differs from the minimal route from `here` to `there`, and
    /// the first port of each way (UGAL compares their queues).
    pub fn detour(&self, here: SwitchId, there: SwitchId, via: SwitchId) -> Option<(PortId, PortId)> {
        match self {
            Direct::Grid(g) => (via != here && here != there).then(|| (g.toward(here, there), g.toward(here, via))),
            Direct::Groups(g) => {
                // Traffic within a group goes minimally: one local hop.
                let (h, t, v) = (g.group(here), g.group(there), g.group(via));
                (h != t && v != h && v != t).then(|| (g.toward_group(here, t), g.toward_group(here, v)))
            }
        }
    }

    /// Router-to-router hops on the minimal route from router `x` to router `y`.
    pub fn distance(&self, x: SwitchId, y: SwitchId) -> u32 {
        match self {
            Direct::Grid(g) => g.distance(x, y),
            Direct::Groups(g) => g.distance(x, y),
        }
    }
}
