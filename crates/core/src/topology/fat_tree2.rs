//! Two-level folded Clos ("3-stage fat tree"): leaves with `hosts_per_leaf` hosts and one link to
//! each of `spines` spines. The thesis' 648-node network (Paper IV, Sun DS648) is 36 leaves of
//! 36-port switches (18 hosts, 18 up) under 18 spines of 36 ports.

use super::{Builder, Topology};
use crate::config::LinkConfig;
use crate::ids::{NodeId, SwitchId};
use crate::time::{ps_from_ns, Rate};

pub fn build(leaves: u32, hosts_per_leaf: u32, spines: u32, link: &LinkConfig) -> Topology {
    let rate = Rate::from_gbps(link.bandwidth_gbps);
    let host_rate = Rate::from_gbps(link.host_gbps());
    let lat = ps_from_ns(link.latency_ns);
    let host_lat = ps_from_ns(link.host_latency());
    let mut b = Builder::default();
    for h in 0..leaves * hosts_per_leaf {
        b.add_host(format!("h{h}"));
    }
    for l in 0..leaves {
        b.add_switch(format!("leaf{l}"), 0);
    }
    let spine0 = leaves;
    if leaves > 1 {
        for s in 0..spines {
            b.add_switch(format!("spine{s}"), 1);
        }
    }
    for h in 0..leaves * hosts_per_leaf {
        b.link_host(NodeId(h), SwitchId(h / hosts_per_leaf), host_rate, host_lat, None, false);
    }
    if leaves > 1 {
        // Leaf l's up port j goes to spine j; spine s's down port l goes to leaf l.
        for l in 0..leaves {
            for s in 0..spines {
                b.link_switches(SwitchId(l), SwitchId(spine0 + s), true, rate, lat, None);
            }
        }
        b.finish(Some(vec![spines]))
    } else {
        b.finish(Some(Vec::new()))
    }
}
