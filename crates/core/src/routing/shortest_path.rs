//! Minimal-hop routing tables for explicit topologies, with per-switch overrides.

use super::{Flow, cycles, Leg, PortLoads, Registered, Route, Table, NO_PORT};
use crate::config::RoutingConfig;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{Endpoint, NodeId, PortId, SwitchId};
use crate::plugin::Settings;
use crate::rng::Stream;
use crate::topology::Topology;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[routing.shortest_path]`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ShortestPathSettings {
    /// Per-switch next hops for explicit topologies; they take precedence over shortest paths
    /// (the papers' small scenarios fix their routes).
    pub routes: Vec<ExplicitRoute>,
}

/// A route of `[routing.shortest_path] routes`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExplicitRoute {
    pub switch: String,
    /// Destination host name.
    pub dest: String,
    /// Next hop: the name of the neighbouring host or switch.
    pub next: String,
}

impl Settings for ShortestPathSettings {
    /// Names are checked against the topology when the table is built.
    fn validate(&self) -> ConfigResult<()> {
        Ok(())
    }
}

pub struct ShortestPath(Table);

impl Registered for ShortestPath {
    const ABOUT: &'static str = "Minimal hop count; among equal choices the lowest port number.";
    const DOC: &'static str = "Any topology; `auto` picks it on explicit ones. Routes whose channel dependencies form a cycle are refused as able to deadlock, naming the cycle, unless `routing.allow_deadlock` is set.\n\n| key | default | meaning |\n|---|---|---|\n| `routes` | `[]` | Next hops that override the shortest paths: a list of `{ switch = \"s0\", dest = \"h3\", next = \"s1\" }` (names of the explicit topology). |\n";
    type Settings = ShortestPathSettings;

    fn build(s: ShortestPathSettings, cfg: &RoutingConfig, topo: &Topology) -> ConfigResult<ShortestPath> {
        let table = build(topo, &s.routes)?;
        if let Some(cycle) = cycles::find(topo, |s, d| table.port(s, d)).filter(|_| !cfg.allow_deadlock) {
            let names: Vec<&str> = cycle.iter().map(|&c| topo.channel_name(c)).collect();
            return Err(ConfigError::new(
                if s.routes.is_empty() { "routing.algorithm" } else { "routing.shortest_path.routes" },
                format!(
                    "these routes can deadlock: channels {} => {} each wait for the next (a cycle of channel dependencies); change the routes so that no cycle forms, or set routing.allow_deadlock = true to simulate it (the watchdog stops the run)",
                    names.join(" => "),
                    names[0]
                ),
            ));
        }
        Ok(ShortestPath(table))
    }
}

impl Route for ShortestPath {
    #[inline]
    fn route<L: PortLoads + ?Sized>(&self, sw: SwitchId, dst: NodeId, _: Flow, _: &mut Leg, _: &L, _: &mut Stream) -> PortId {
        self.0.port(sw, dst)
    }
}

fn build(topo: &Topology, routes: &[ExplicitRoute]) -> ConfigResult<Table> {
    let hosts = topo.hosts();
    let n = topo.switches.len();
    let mut next = vec![NO_PORT; n * hosts];
    for d in 0..hosts {
        // BFS backwards from the destination's switch over switch-to-switch links.
        let mut dist = vec![u32::MAX; n];
        let mut q = VecDeque::new();
        if let Endpoint::Switch(s, p) = topo.channels[topo.host_in[d].idx()].from {
            dist[s.idx()] = 0;
            next[s.idx() * hosts + d] = p;
            q.push_back(s.idx());
        }
        while let Some(s) = q.pop_front() {
            for port in &topo.switches[s].ports {
                if let Endpoint::Switch(t, _) = topo.channels[port.out.idx()].to {
                    if dist[t.idx()] == u32::MAX {
                        dist[t.idx()] = dist[s] + 1;
                        q.push_back(t.idx());
                    }
                }
            }
        }
        for s in 0..n {
            if dist[s] == 0 || dist[s] == u32::MAX {
                continue;
            }
            // Lowest-numbered port whose neighbour is one hop closer.
            let best = topo.switches[s].ports.iter().position(|port| match topo.channels[port.out.idx()].to {
                Endpoint::Switch(t, _) => dist[t.idx()] + 1 == dist[s],
                Endpoint::Host(_) => false,
            });
            next[s * hosts + d] = PortId::new(best.expect("a switch at finite distance has a closer neighbour"));
        }
    }
    for (i, r) in routes.iter().enumerate() {
        let key = format!("routing.shortest_path.routes[{i}]");
        let s = topo
            .switches
            .iter()
            .position(|s| s.name == r.switch)
            .ok_or_else(|| ConfigError::new(format!("{key}.switch"), format!("no switch is named `{}`", r.switch)))?;
        let d = topo.host_by_name(&r.dest).ok_or_else(|| ConfigError::new(format!("{key}.dest"), format!("no host is named `{}`", r.dest)))?;
        let p = topo.switches[s].ports.iter().position(|port| {
            let name = match topo.channels[port.out.idx()].to {
                Endpoint::Host(h) => &topo.host_names[h.idx()],
                Endpoint::Switch(t, _) => &topo.switches[t.idx()].name,
            };
            *name == r.next
        });
        let p = p.ok_or_else(|| ConfigError::new(format!("{key}.next"), format!("switch `{}` has no link to `{}`", r.switch, r.next)))?;
        next[s * hosts + d.idx()] = PortId::new(p);
    }
    // Every host must reach every other host.
    for src in 0..hosts {
        let Endpoint::Switch(first, _) = topo.channels[topo.host_out[src].idx()].to else { unreachable!("hosts attach to switches") };
        for d in 0..hosts {
            if d != src && !reaches(topo, &next, hosts, first.idx(), d) {
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
        match topo.channels[topo.switches[s].ports[p.idx()].out.idx()].to {
            Endpoint::Host(h) => return h.idx() == d,
            Endpoint::Switch(t, _) => s = t.idx(),
        }
    }
    false
}
