//! Routing functions: given a switch and a packet's destination, the output port.
//!
//! Trees route arithmetically (`updown`); other topologies use dense tables
//! (`switch * hosts + dest`), meant for the small explicit networks of the papers.

pub(crate) mod cycles;
mod shortest_path;
mod updown;

use crate::config::{RoutingAlgorithm, RoutingConfig};
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, PortId, SwitchId};
use crate::rng::Stream;
use crate::topology::Topology;

pub(crate) const NO_PORT: PortId = PortId::MAX;

pub enum Routing {
    /// Fat trees: up until the nearest common ancestor, then down along the unique path.
    UpDown(updown::UpDown),
    /// One fixed next port per (switch, destination).
    Table(Table),
}

pub struct Table {
    hosts: usize,
    next: Vec<PortId>,
}

impl Table {
    fn port(&self, sw: SwitchId, dst: NodeId) -> PortId {
        self.next[sw as usize * self.hosts + dst as usize]
    }
}

impl Routing {
    pub fn build(cfg: &RoutingConfig, topo: &Topology) -> ConfigResult<Routing> {
        let algo = match cfg.algorithm {
            RoutingAlgorithm::Auto if topo.is_tree() => RoutingAlgorithm::Nca,
            RoutingAlgorithm::Auto => RoutingAlgorithm::ShortestPath,
            a => a,
        };
        if !cfg.routes.is_empty() && algo != RoutingAlgorithm::ShortestPath {
            return Err(ConfigError::new("routing.routes", "explicit routes apply to explicit topologies (shortest_path routing) only"));
        }
        match algo {
            RoutingAlgorithm::Nca | RoutingAlgorithm::Dmodk => {
                if !topo.is_tree() {
                    return Err(ConfigError::new("routing.algorithm", "nca and dmodk need a tree topology (kary_ntree or fat_tree2); use shortest_path"));
                }
                Ok(Routing::UpDown(updown::UpDown::build(topo, algo == RoutingAlgorithm::Dmodk)))
            }
            RoutingAlgorithm::ShortestPath => {
                let table = shortest_path::build(topo, &cfg.routes)?;
                if let Some(cycle) = cycles::find(topo, &table).filter(|_| !cfg.allow_deadlock) {
                    let names: Vec<&str> = cycle.iter().map(|&c| topo.channels[c as usize].name.as_str()).collect();
                    return Err(ConfigError::new(
                        if cfg.routes.is_empty() { "routing.algorithm" } else { "routing.routes" },
                        format!(
                            "these routes can deadlock: channels {} => {} each wait for the next (a cycle of channel dependencies); change the routes so that no cycle forms, or set routing.allow_deadlock = true to simulate it (the watchdog stops the run)",
                            names.join(" => "),
                            names[0]
                        ),
                    ));
                }
                Ok(Routing::Table(table))
            }
            RoutingAlgorithm::Auto => unreachable!("resolved above"),
        }
    }

    /// The output port at switch `sw` for a packet to `dst`. `rng` is the switch's own stream.
    #[inline]
    pub fn route(&self, sw: SwitchId, dst: NodeId, rng: &mut Stream) -> PortId {
        match self {
            Routing::UpDown(u) => u.route(sw, dst, rng),
            Routing::Table(t) => t.port(sw, dst),
        }
    }
}
