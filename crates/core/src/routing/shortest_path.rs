//! Minimal-hop routing tables for explicit topologies, with per-switch overrides.

use super::{Table, NO_PORT};
use crate::config::ExplicitRoute;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{Endpoint, PortId};
use crate::topology::Topology;
use std::collections::VecDeque;

pub fn build(topo: &Topology, routes: &[ExplicitRoute]) -> ConfigResult<Table> {
    let hosts = topo.hosts();
    let n = topo.switches.len();
    let mut next = vec![NO_PORT; n * hosts];
    for d in 0..hosts {
        // BFS backwards from the destination's switch over switch-to-switch links.
        let mut dist = vec![u32::MAX; n];
        let mut q = VecDeque::new();
        if let Endpoint::Switch(s, p) = topo.channels[topo.host_in[d] as usize].from {
            dist[s as usize] = 0;
            next[s as usize * hosts + d] = p;
            q.push_back(s as usize);
        }
        while let Some(s) = q.pop_front() {
            for port in &topo.switches[s].ports {
                if let Endpoint::Switch(t, _) = topo.channels[port.out as usize].to {
                    if dist[t as usize] == u32::MAX {
                        dist[t as usize] = dist[s] + 1;
                        q.push_back(t as usize);
                    }
                }
            }
        }
        for s in 0..n {
            if dist[s] == 0 || dist[s] == u32::MAX {
                continue;
            }
            // Lowest-numbered port whose neighbour is one hop closer.
            let best = topo.switches[s].ports.iter().position(|port| match topo.channels[port.out as usize].to {
                Endpoint::Switch(t, _) => dist[t as usize] + 1 == dist[s],
                Endpoint::Host(_) => false,
            });
            next[s * hosts + d] = best.expect("a switch at finite distance has a closer neighbour") as PortId;
        }
    }
    for (i, r) in routes.iter().enumerate() {
        let key = format!("routing.routes[{i}]");
        let s = topo
            .switches
            .iter()
            .position(|s| s.name == r.switch)
            .ok_or_else(|| ConfigError::new(format!("{key}.switch"), format!("no switch is named `{}`", r.switch)))?;
        let d = topo.host_by_name(&r.dest).ok_or_else(|| ConfigError::new(format!("{key}.dest"), format!("no host is named `{}`", r.dest)))?;
        let p = topo.switches[s].ports.iter().position(|port| {
            let name = match topo.channels[port.out as usize].to {
                Endpoint::Host(h) => &topo.host_names[h as usize],
                Endpoint::Switch(t, _) => &topo.switches[t as usize].name,
            };
            *name == r.next
        });
        let p = p.ok_or_else(|| ConfigError::new(format!("{key}.next"), format!("switch `{}` has no link to `{}`", r.switch, r.next)))?;
        next[s * hosts + d as usize] = p as PortId;
    }
    // Every host must reach every other host.
    for src in 0..hosts {
        let Endpoint::Switch(first, _) = topo.channels[topo.host_out[src] as usize].to else { unreachable!("hosts attach to switches") };
        for d in 0..hosts {
            if d != src && !reaches(topo, &next, hosts, first as usize, d) {
                return Err(ConfigError::new(
                    "topology.links",
                    format!("host `{}` cannot reach host `{}`: the routes or links are incomplete", topo.host_names[src], topo.host_names[d]),
                ));
            }
        }
    }
    Ok(Table { hosts, next })
}

/// Follows the table from switch `s`; false on a missing entry or a loop.
fn reaches(topo: &Topology, next: &[PortId], hosts: usize, mut s: usize, d: usize) -> bool {
    for _ in 0..=topo.switches.len() {
        let p = next[s * hosts + d];
        if p == NO_PORT {
            return false;
        }
        match topo.channels[topo.switches[s].ports[p as usize].out as usize].to {
            Endpoint::Host(h) => return h as usize == d,
            Endpoint::Switch(t, _) => s = t as usize,
        }
    }
    false
}
