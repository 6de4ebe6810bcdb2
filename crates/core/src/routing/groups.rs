//! The arithmetic of dragonflies that `minimal`, `valiant` and `ugal` share (Kim, Dally, Scott
//! and Abts, ISCA 2008, §4): a minimal route is local, global, local; a Valiant route goes
//! minimally to a router of a random intermediate group first.
//!
//! VC sets: a packet's phase grows when it enters a new group on its way (the intermediate
//! group, then the destination's), so each phase has at most one local and one global channel
//! before the next begins and dependencies never lead back to an earlier set: minimal routing
//! needs two sets, Valiant three (the paper's VC assignment, §4.2).

use crate::ids::{Endpoint, NodeId, PortId, SwitchId};
use crate::rng::Stream;
use crate::topology::{Groups, Topology};
use rand::RngExt;

pub struct GroupOrder {
    /// p hosts per router, a routers per group, g groups.
    p: u32,
    a: u32,
    groups: u32,
    /// Per router and index in its group: the port to that router (its own: unused).
    local: Vec<PortId>,
    /// Per group and other group: the router of the first holding the channel to the second, and
    /// its port.
    global: Vec<(SwitchId, PortId)>,
}

impl GroupOrder {
    /// The arithmetic of dragonfly `topo`, of shape `shape`.
    pub fn new(topo: &Topology, shape: Groups) -> GroupOrder {
        let (p, a) = (shape.hosts_per_router, shape.routers_per_group);
        let groups = a * shape.global_per_router + 1;
        let mut local = vec![PortId::MAX; topo.switches.len() * a as usize];
        let mut global = vec![(SwitchId::MAX, PortId::MAX); (groups * groups) as usize];
        for (r, sw) in topo.switches.iter().enumerate() {
            let r = r as u32;
            for (port, link) in sw.ports.iter().enumerate() {
                let Endpoint::Switch(t, _) = topo.channels[link.out.idx()].to else { continue };
                if t.0 / a == r / a {
                    local[(r * a + t.0 % a) as usize] = PortId::new(port);
                } else {
                    global[((r / a) * groups + t.0 / a) as usize] = (SwitchId(r), PortId::new(port));
                }
            }
        }
        GroupOrder { p, a, groups, local, global }
    }

    #[inline]
    pub fn group(&self, r: SwitchId) -> u32 {
        r.0 / self.a
    }

    #[inline]
    pub fn router_of(&self, dst: NodeId) -> SwitchId {
        SwitchId(dst.0 / self.p)
    }

    /// The port of router `sw` towards group `g` (another group): over its global channel if it
    /// holds the one to `g`, else to the router of its group that does.
    #[inline]
    pub fn toward_group(&self, sw: SwitchId, g: u32) -> PortId {
        let (owner, port) = self.global[(self.group(sw) * self.groups + g) as usize];
        if owner == sw {
            port
        } else {
            self.local[(sw.0 * self.a + owner.0 % self.a) as usize]
        }
    }

    /// The port of router `sw` on the minimal route to host `dst`.
    #[inline]
    pub fn port(&self, sw: SwitchId, dst: NodeId) -> PortId {
        let target = self.router_of(dst);
        if sw == target {
            PortId((dst.0 % self.p) as u16)
        } else if self.group(sw) == self.group(target) {
            self.local[(sw.0 * self.a + target.0 % self.a) as usize]
        } else {
            self.toward_group(sw, self.group(target))
        }
    }

    /// Router-to-router hops on the minimal route from router `x` to router `y`.
    pub fn distance(&self, x: SwitchId, y: SwitchId) -> u32 {
        if x == y {
            return 0;
        }
        if self.group(x) == self.group(y) {
            return 1;
        }
        let (owner, _) = self.global[(self.group(x) * self.groups + self.group(y)) as usize];
        let (landing, _) = self.global[(self.group(y) * self.groups + self.group(x)) as usize];
        (owner != x) as u32 + 1 + (landing != y) as u32
    }

    /// A random router of a random group, the intermediate of a Valiant route.
    pub fn random_via(&self, rng: &mut Stream) -> SwitchId {
        SwitchId(rng.random_range(0..self.groups * self.a))
    }

    /// The next port of a packet at `sw` for `dst` whose route is chosen (through `leg.via`'s
    /// group unless it has started at phase 1): phase 0 towards the intermediate group, 1 from
    /// there to the destination's group, 2 within it.
    #[inline]
    pub fn onward(&self, sw: SwitchId, dst: NodeId, leg: &mut super::Leg) -> PortId {
        let here = self.group(sw);
        if leg.phase == 0 && here == self.group(leg.via) {
            leg.phase = 1;
        }
        if leg.phase == 1 && here == self.group(self.router_of(dst)) {
            leg.phase = 2;
        }
        if leg.phase == 0 {
            self.toward_group(sw, self.group(leg.via))
        } else {
            self.port(sw, dst)
        }
    }
}
