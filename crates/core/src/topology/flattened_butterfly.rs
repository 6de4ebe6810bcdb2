//! Flattened butterfly (Kim, Dally and Abts, ISCA 2007; the CBCM paper's networks, §V): k^n
//! routers, each linked to the k - 1 others in each of its n dimensions, with c hosts each.
//! Host h attaches to router h / c at port h mod c; router ports to routers follow.

use super::{Builder, Grid, Topology};
use crate::config::LinkConfig;
use crate::ids::{NodeId, SwitchId};
use crate::time::{ps_from_ns, Rate};

pub fn build(k: u32, n: u32, c: u32, link: &LinkConfig) -> Topology {
    let rate = Rate::from_gbps(link.bandwidth_gbps);
    let host_rate = Rate::from_gbps(link.host_gbps());
    let lat = ps_from_ns(link.latency_ns);
    let host_lat = ps_from_ns(link.host_latency());
    let routers = k.pow(n);
    let mut b = Builder::default();
    for h in 0..routers * c {
        b.add_host(format!("h{h}"));
    }
    for r in 0..routers {
        b.add_switch(format!("r{r}"), 0);
    }
    for h in 0..routers * c {
        b.link_host(NodeId(h), SwitchId(h / c), host_rate, host_lat, None, false);
    }
    // Each pair of routers that differ in exactly one coordinate, once.
    for r in 0..routers {
        for i in 0..n {
            let stride = k.pow(i);
            let coord = (r / stride) % k;
            for other in coord + 1..k {
                b.link_switches(SwitchId(r), SwitchId(r + (other - coord) * stride), false, rate, lat, None);
            }
        }
    }
    let mut topo = b.finish(None);
    topo.grid = Some(Grid { routers_per_dim: k, dims: n, concentration: c });
    topo
}
