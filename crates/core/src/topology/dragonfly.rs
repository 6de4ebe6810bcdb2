//! Balanced dragonfly (Kim, Dally, Scott and Abts, ISCA 2008, §3): g = a x h + 1 groups of a
//! routers; every router has p hosts, a local channel to each other router of its group and h
//! global channels. Group i's global channel k (0 <= k < a x h, on router k / h of the group)
//! leads to group (i + k + 1) mod g, so each pair of groups is joined once.

use super::{Builder, Groups, Topology};
use crate::config::LinkConfig;
use crate::ids::{NodeId, SwitchId};
use crate::time::{ps_from_ns, Rate};

pub fn build(shape: Groups, global_latency_ns: f64, link: &LinkConfig) -> Topology {
    let Groups { hosts_per_router: p, routers_per_group: a, global_per_router: h } = shape;
    let rate = Rate::from_gbps(link.bandwidth_gbps);
    let host_rate = Rate::from_gbps(link.host_gbps());
    let (local, global, host_lat) = (ps_from_ns(link.latency_ns), ps_from_ns(global_latency_ns), ps_from_ns(link.host_latency()));
    let groups = a * h + 1;
    let routers = a * groups;
    let mut b = Builder::default();
    for n in 0..routers * p {
        b.add_host(format!("h{n}"));
    }
    for r in 0..routers {
        b.add_switch(format!("g{}r{}", r / a, r % a), 0);
    }
    for n in 0..routers * p {
        b.link_host(NodeId(n), SwitchId(n / p), host_rate, host_lat, None, false);
    }
    for g in 0..groups {
        for x in 0..a {
            for y in x + 1..a {
                b.link_switches(SwitchId(g * a + x), SwitchId(g * a + y), false, rate, local, None);
            }
        }
    }
    for g in 0..groups {
        for k in 0..a * h {
            let t = (g + k + 1) % groups;
            if t > g {
                // The same channel seen from group t is its channel g - t - 1 mod groups.
                let back = (g + groups - t - 1) % groups;
                b.link_switches(SwitchId(g * a + k / h), SwitchId(t * a + back / h), false, rate, global, None);
            }
        }
    }
    let mut topo = b.finish(None);
    topo.groups = Some(shape);
    topo
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Endpoint;

    #[test]
    fn every_pair_of_groups_is_joined_once_and_every_router_has_its_ports() {
        let (p, a, h) = (2, 4, 2);
        let topo = build(Groups { hosts_per_router: p, routers_per_group: a, global_per_router: h }, 100.0, &LinkConfig::default());
        let groups = (a * h + 1) as usize;
        assert_eq!(topo.switches.len(), a as usize * groups);
        let mut pairs = vec![0; groups * groups];
        for (r, sw) in topo.switches.iter().enumerate() {
            assert_eq!(sw.ports.len(), (p + a - 1 + h) as usize, "router {r}");
            for port in &sw.ports {
                if let Endpoint::Switch(t, _) = topo.channels[port.out.idx()].to {
                    let (gr, gt) = (r / a as usize, t.idx() / a as usize);
                    if gr != gt {
                        pairs[gr * groups + gt] += 1;
                        assert_eq!(topo.channels[port.out.idx()].latency, 100_000);
                    }
                }
            }
        }
        for x in 0..groups {
            for y in 0..groups {
                assert_eq!(pairs[x * groups + y], (x != y) as u32, "groups {x} and {y}");
            }
        }
    }
}
