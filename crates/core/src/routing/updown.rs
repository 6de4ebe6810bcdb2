//! Up*/down* routing on fat trees (SRP paper §4: "routed up the tree using randomly assigned up
//! channels ... then down deterministically"), with the D-mod-K variant of the thesis (Paper II,
//! L1125) where the up port is digit `(d / stride) mod ups` of the destination, so that every
//! down link carries the traffic of a single destination.

use super::NO_PORT;
use crate::ids::{Endpoint, NodeId, PortId, SwitchId};
use crate::rng::Stream;
use crate::topology::Topology;
use rand::RngExt;

pub struct UpDown {
    hosts: usize,
    /// Down port towards each destination in the switch's subtree, else `NO_PORT`.
    down: Vec<PortId>,
    /// Up ports of each switch, in port order.
    up: Vec<Vec<PortId>>,
    /// D-mod-K divisor of each switch (product of the up-port counts of the levels below).
    stride: Vec<u32>,
    dmodk: bool,
}

impl UpDown {
    pub fn build(topo: &Topology, dmodk: bool) -> UpDown {
        let hosts = topo.hosts();
        let mut down = vec![NO_PORT; topo.switches.len() * hosts];
        let mut order: Vec<usize> = (0..topo.switches.len()).collect();
        order.sort_by_key(|&s| topo.switches[s].level);
        for &s in &order {
            for (p, port) in topo.switches[s].ports.iter().enumerate() {
                if port.up {
                    continue;
                }
                match topo.channels[port.out as usize].to {
                    Endpoint::Host(h) => down[s * hosts + h as usize] = p as PortId,
                    Endpoint::Switch(c, _) => {
                        for d in 0..hosts {
                            let i = s * hosts + d;
                            if down[i] == NO_PORT && down[c as usize * hosts + d] != NO_PORT {
                                down[i] = p as PortId;
                            }
                        }
                    }
                }
            }
        }
        let up = topo
            .switches
            .iter()
            .map(|s| s.ports.iter().enumerate().filter(|(_, p)| p.up).map(|(i, _)| i as PortId).collect())
            .collect();
        let stride = topo
            .switches
            .iter()
            .map(|s| topo.up_ports_per_level.iter().take(s.level as usize).product())
            .collect();
        UpDown { hosts, down, up, stride, dmodk }
    }

    #[inline]
    pub fn route(&self, sw: SwitchId, dst: NodeId, rng: &mut Stream) -> PortId {
        let d = self.down[sw as usize * self.hosts + dst as usize];
        if d != NO_PORT {
            return d;
        }
        let ups = &self.up[sw as usize];
        let i = if self.dmodk {
            (dst / self.stride[sw as usize]) as usize % ups.len()
        } else {
            rng.random_range(0..ups.len())
        };
        ups[i]
    }
}
