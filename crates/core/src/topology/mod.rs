//! The network graph: hosts, switches with numbered ports, and channels (one per link
//! direction) each with its own rate and latency. Builders turn a `[topology]` table into it.

mod dragonfly;
mod explicit;
mod fat_tree2;
mod flattened_butterfly;
mod kary_ntree;

use crate::config::TopologyConfig;
use crate::error::ConfigResult;
use crate::ids::{ChannelId, Endpoint, NodeId, PortId, SwitchId};
use crate::time::{Rate, Time};

/// One direction of a link: what events read. Its name, which only reports read, is kept apart
/// (`Topology::channel_names`), so that a channel is 32 bytes, two to a cache line, where with
/// its name it took 56 and some straddled two lines.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
pub struct Channel {
    pub from: Endpoint,
    pub to: Endpoint,
    pub rate: Rate,
    pub latency: Time,
}

const _: () = assert!(std::mem::size_of::<Channel>() == 32);

#[derive(Clone, Debug)]
pub struct Port {
    /// The channel leaving this port.
    pub out: ChannelId,
    /// The channel arriving at this port.
    pub inp: ChannelId,
    /// Whether this port leads towards the roots of a tree (routing uses it).
    pub up: bool,
}

#[derive(Clone, Debug)]
pub struct SwitchNode {
    pub name: String,
    /// Tree level (0 = leaf) for trees; 0 for explicit topologies.
    pub level: u32,
    pub ports: Vec<Port>,
}

#[derive(Clone, Debug)]
pub struct Topology {
    pub host_names: Vec<String>,
    /// Injection channel of each host.
    pub host_out: Vec<ChannelId>,
    /// Ejection channel of each host.
    pub host_in: Vec<ChannelId>,
    pub switches: Vec<SwitchNode>,
    pub channels: Vec<Channel>,
    /// Each channel's label for reports (explicit topologies may name links, e.g. `L0`).
    pub channel_names: Vec<String>,
    /// For trees: the number of up ports per switch at each level but the top (D-mod-K
    /// strides); none for other topologies. A one-switch tree (`n = 1`, one leaf) has no level
    /// with up ports, and is still a tree that up*/down* routing serves.
    pub up_ports_per_level: Option<Vec<u32>>,
    /// For flattened butterflies: their shape, whose port layout minimal routing computes on.
    pub grid: Option<Grid>,
    /// For dragonflies: their shape.
    pub groups: Option<Groups>,
}

/// A dragonfly's shape: router r is in group r / a; host h on router h / p at port h mod p.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Groups {
    pub hosts_per_router: u32,
    pub routers_per_group: u32,
    pub global_per_router: u32,
}

/// A flattened butterfly's shape. Router r has coordinates (r / k^i) mod k; its ports are its
/// `concentration` hosts (host h at port h mod c), then, for each dimension i in order, the k - 1
/// other routers of that dimension in coordinate order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub routers_per_dim: u32,
    pub dims: u32,
    pub concentration: u32,
}

impl Topology {
    pub fn build(cfg: &TopologyConfig) -> ConfigResult<Topology> {
        match cfg {
            TopologyConfig::KaryNtree { k, n, link } => Ok(kary_ntree::build(*k, *n, link)),
            TopologyConfig::FatTree2 { leaves, hosts_per_leaf, spines, link } => Ok(fat_tree2::build(*leaves, *hosts_per_leaf, *spines, link)),
            TopologyConfig::FlattenedButterfly { routers_per_dim, dims, concentration, link } => {
                Ok(flattened_butterfly::build(*routers_per_dim, *dims, *concentration, link))
            }
            TopologyConfig::Dragonfly { hosts_per_router, routers_per_group, global_per_router, global_latency_ns, link } => {
                let shape = Groups { hosts_per_router: *hosts_per_router, routers_per_group: *routers_per_group, global_per_router: *global_per_router };
                Ok(dragonfly::build(shape, global_latency_ns.unwrap_or(link.latency_ns), link))
            }
            TopologyConfig::Explicit { hosts, switches, links, link } => explicit::build(hosts, switches, links, link),
        }
    }

    pub fn hosts(&self) -> usize {
        self.host_names.len()
    }

    pub fn is_tree(&self) -> bool {
        self.up_ports_per_level.is_some()
    }

    /// Looks a host up by name.
    pub fn host_by_name(&self, name: &str) -> Option<NodeId> {
        self.host_names.iter().position(|n| n == name).map(NodeId::new)
    }

    /// Channel `ch`'s label for reports.
    pub fn channel_name(&self, ch: ChannelId) -> &str {
        &self.channel_names[ch.idx()]
    }
}

/// Incremental construction shared by the builders.
#[derive(Default)]
pub(crate) struct Builder {
    host_names: Vec<String>,
    host_out: Vec<Option<ChannelId>>,
    host_in: Vec<Option<ChannelId>>,
    switches: Vec<SwitchNode>,
    channels: Vec<Channel>,
    channel_names: Vec<String>,
}

impl Builder {
    pub fn add_host(&mut self, name: String) -> NodeId {
        self.host_names.push(name);
        self.host_out.push(None);
        self.host_in.push(None);
        NodeId::new(self.host_names.len() - 1)
    }

    pub fn add_switch(&mut self, name: String, level: u32) -> SwitchId {
        self.switches.push(SwitchNode { name, level, ports: Vec::new() });
        SwitchId::new(self.switches.len() - 1)
    }

    fn add_channel(&mut self, from: Endpoint, to: Endpoint, rate: Rate, latency: Time, name: String) -> ChannelId {
        self.channels.push(Channel { from, to, rate, latency });
        self.channel_names.push(name);
        ChannelId::new(self.channels.len() - 1)
    }

    fn next_port(&self, s: SwitchId) -> PortId {
        PortId::new(self.switches[s.idx()].ports.len())
    }

    fn label(&self, e: Endpoint) -> String {
        match e {
            Endpoint::Host(h) => self.host_names[h.idx()].clone(),
            Endpoint::Switch(s, _) => self.switches[s.idx()].name.clone(),
        }
    }

    /// Connects a host to the next free port of a switch. Channels are named `{base}>` in the
    /// a-to-b direction and `{base}<` back; `switch_first` says the link was written switch-host.
    pub fn link_host(&mut self, h: NodeId, s: SwitchId, rate: Rate, latency: Time, name: Option<String>, switch_first: bool) {
        let p = self.next_port(s);
        let sw = Endpoint::Switch(s, p);
        let host = Endpoint::Host(h);
        let (first, second) = if switch_first { (sw, host) } else { (host, sw) };
        let base = name.unwrap_or_else(|| format!("{}-{}", self.label(first), self.label(second)));
        let (up_name, down_name) = if switch_first { (format!("{base}<"), format!("{base}>")) } else { (format!("{base}>"), format!("{base}<")) };
        let up = self.add_channel(host, sw, rate, latency, up_name);
        let down = self.add_channel(sw, host, rate, latency, down_name);
        self.host_out[h.idx()] = Some(up);
        self.host_in[h.idx()] = Some(down);
        self.switches[s.idx()].ports.push(Port { out: down, inp: up, up: false });
    }

    /// Connects two switches through their next free ports; `a_up` marks a's port as leading up.
    pub fn link_switches(&mut self, a: SwitchId, b: SwitchId, a_up: bool, rate: Rate, latency: Time, name: Option<String>) {
        let pa = self.next_port(a);
        let pb = self.next_port(b);
        let ea = Endpoint::Switch(a, pa);
        let eb = Endpoint::Switch(b, pb);
        let base = name.unwrap_or_else(|| format!("{}-{}", self.label(ea), self.label(eb)));
        let ab = self.add_channel(ea, eb, rate, latency, format!("{base}>"));
        let ba = self.add_channel(eb, ea, rate, latency, format!("{base}<"));
        self.switches[a.idx()].ports.push(Port { out: ab, inp: ba, up: a_up });
        self.switches[b.idx()].ports.push(Port { out: ba, inp: ab, up: false });
    }

    pub fn finish(self, up_ports_per_level: Option<Vec<u32>>) -> Topology {
        Topology {
            host_out: self.host_out.into_iter().map(|c| c.expect("every host is linked by the builder")).collect(),
            host_in: self.host_in.into_iter().map(|c| c.expect("every host is linked by the builder")).collect(),
            host_names: self.host_names,
            switches: self.switches,
            channels: self.channels,
            channel_names: self.channel_names,
            up_ports_per_level,
            grid: None,
            groups: None,
        }
    }
}
