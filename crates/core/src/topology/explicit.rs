//! Topologies written out host by host and link by link.

use super::{Builder, Topology};
use crate::config::{ExplicitLink, LinkConfig};
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, SwitchId};
use crate::time::{ps_from_ns, Rate};

enum Named {
    Host(NodeId),
    Switch(SwitchId),
}

pub fn build(hosts: &[String], switches: &[String], links: &[ExplicitLink], default: &LinkConfig) -> ConfigResult<Topology> {
    let mut b = Builder::default();
    let mut names: Vec<(&str, Named)> = Vec::new();
    for (i, h) in hosts.iter().enumerate() {
        check_unique(&names, h, &format!("topology.hosts[{i}]"))?;
        names.push((h, Named::Host(b.add_host(h.clone()))));
    }
    for (i, s) in switches.iter().enumerate() {
        check_unique(&names, s, &format!("topology.switches[{i}]"))?;
        names.push((s, Named::Switch(b.add_switch(s.clone(), 0))));
    }
    let find = |n: &str, key: String| {
        names
            .iter()
            .find(|(m, _)| *m == n)
            .map(|(_, x)| x)
            .ok_or_else(|| ConfigError::new(key, format!("`{n}` is neither a host nor a switch of topology.hosts / topology.switches")))
    };
    let mut host_linked = vec![false; hosts.len()];
    for (i, l) in links.iter().enumerate() {
        let rate = l.bandwidth_gbps.unwrap_or(default.bandwidth_gbps);
        let lat = ps_from_ns(l.latency_ns.unwrap_or(default.latency_ns));
        let a = find(&l.a, format!("topology.links[{i}].a"))?;
        let bb = find(&l.b, format!("topology.links[{i}].b"))?;
        let key = format!("topology.links[{i}]");
        match (a, bb) {
            (Named::Host(h), Named::Switch(s)) | (Named::Switch(s), Named::Host(h)) => {
                let switch_first = matches!(a, Named::Switch(_));
                if host_linked[h.idx()] {
                    return Err(ConfigError::new(key, format!("host `{}` already has a link: a host has one port", hosts[h.idx()])));
                }
                host_linked[h.idx()] = true;
                let rate = Rate::from_gbps(l.bandwidth_gbps.unwrap_or(default.host_gbps()));
                let lat = ps_from_ns(l.latency_ns.unwrap_or(default.host_latency()));
                b.link_host(*h, *s, rate, lat, l.name.clone(), switch_first);
            }
            (Named::Switch(x), Named::Switch(y)) => {
                if x == y {
                    return Err(ConfigError::new(key, "links a switch to itself"));
                }
                b.link_switches(*x, *y, false, Rate::from_gbps(rate), lat, l.name.clone());
            }
            (Named::Host(_), Named::Host(_)) => {
                return Err(ConfigError::new(key, "links two hosts: every host must connect to a switch"));
            }
        }
    }
    if let Some(h) = host_linked.iter().position(|x| !x) {
        return Err(ConfigError::new("topology.links", format!("host `{}` has no link", hosts[h])));
    }
    let topo = b.finish(None);
    if let Some(s) = topo.switches.iter().find(|s| s.ports.len() > crate::config::MAX_SWITCH_PORTS as usize) {
        return Err(ConfigError::new(
            "topology.links",
            format!("switch `{}` has {} ports; at most {} are supported", s.name, s.ports.len(), crate::config::MAX_SWITCH_PORTS),
        ));
    }
    Ok(topo)
}

/// A name links, traffic and results can refer to: not empty, and no other host's or switch's.
fn check_unique(names: &[(&str, Named)], n: &str, key: &str) -> ConfigResult<()> {
    if n.trim().is_empty() {
        Err(ConfigError::new(key, "is empty: give every host and switch a name"))
    } else if names.iter().any(|(m, _)| *m == n) {
        Err(ConfigError::new(key, format!("`{n}` is used twice: host and switch names must be unique")))
    } else {
        Ok(())
    }
}
