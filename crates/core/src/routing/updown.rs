//! Up*/down* routing on fat trees (SRP paper §4: "routed up the tree using randomly assigned up
//! channels ... then down deterministically"), with the D-mod-K variant of the thesis (Paper II §V)
//! where the up port is digit `(d / stride) mod ups` of the destination, so that every
//! down link carries the traffic of a single destination, and the ECMP variant where it is a
//! hash of the packet's flow, so that a flow keeps one path.
//!
//! The tree builders number hosts so that every switch's subtree is a contiguous range of hosts
//! split evenly among its down ports, in port order. Routing is then arithmetic on the
//! destination id, with O(ports) state per switch: nothing proportional to hosts x switches.

use super::Flow;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{Endpoint, NodeId, PortId, SwitchId};
use crate::rng::Stream;
use crate::topology::Topology;
use rand::RngExt;
use smallvec::SmallVec;

/// A switch's routing state. Its ports are inline up to a radix of 32 (16 down, 16 up), so
/// that routing a packet reads one struct, not a struct and then a vector that also misses the
/// cache on large networks.
struct Subtree {
    /// First host of the subtree.
    lo: u32,
    /// Hosts below each down port.
    span: u32,
    /// Down ports in host order.
    down: SmallVec<[PortId; 16]>,
    /// Up ports in port order.
    up: SmallVec<[PortId; 16]>,
    /// D-mod-K divisor (product of the up-port counts of the levels below).
    stride: u32,
}

/// How a packet picks its up port.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Climb {
    /// At random, per packet (NCA).
    Random,
    /// By the destination's digit (D-mod-K).
    DmodK,
    /// By a hash of the flow and the switch (ECMP).
    Hash,
}

pub struct UpDown {
    switches: Vec<Subtree>,
    climb: Climb,
}

impl UpDown {
    /// The routing of tree `topo` (for algorithm `name`), refused on other topologies.
    pub fn build(topo: &Topology, climb: Climb, name: &str) -> ConfigResult<UpDown> {
        let Some(up_ports_per_level) = &topo.up_ports_per_level else {
            return Err(ConfigError::new("routing.algorithm", format!("{name} needs a tree topology (kary_ntree or fat_tree2); use shortest_path")));
        };
        // Host ranges below every switch, leaves first.
        let mut range: Vec<Option<(u32, u32)>> = vec![None; topo.switches.len()];
        let mut order: Vec<usize> = (0..topo.switches.len()).collect();
        order.sort_by_key(|&s| topo.switches[s].level);
        let mut switches: Vec<Option<Subtree>> = (0..topo.switches.len()).map(|_| None).collect();
        for &s in &order {
            let node = &topo.switches[s];
            let mut children: Vec<(u32, u32, PortId)> = Vec::new();
            for (p, port) in node.ports.iter().enumerate().filter(|(_, p)| !p.up) {
                let (lo, hi) = match topo.channels[port.out.idx()].to {
                    Endpoint::Host(h) => (h.0, h.0 + 1),
                    Endpoint::Switch(c, _) => range[c.idx()].expect("children are built before parents"),
                };
                children.push((lo, hi, PortId::new(p)));
            }
            children.sort_unstable();
            let lo = children[0].0;
            let span = children[0].1 - children[0].0;
            for (i, &(clo, chi, _)) in children.iter().enumerate() {
                assert!(clo == lo + i as u32 * span && chi - clo == span, "tree builders give every switch contiguous, equal host ranges per down port");
            }
            range[s] = Some((lo, lo + span * children.len() as u32));
            switches[s] = Some(Subtree {
                lo,
                span,
                down: children.iter().map(|c| c.2).collect(),
                up: node.ports.iter().enumerate().filter(|(_, p)| p.up).map(|(i, _)| PortId::new(i)).collect(),
                stride: up_ports_per_level.iter().take(node.level as usize).product(),
            });
        }
        Ok(UpDown { switches: switches.into_iter().map(|s| s.expect("every switch visited")).collect(), climb })
    }

    #[inline]
    pub fn route(&self, sw: SwitchId, dst: NodeId, flow: Flow, rng: &mut Stream) -> PortId {
        self.port(sw, dst, flow, |ups| rng.random_range(0..ups))
    }

    /// `route`'s port, an up port drawn by `draw` (given how many there are) under NCA.
    #[inline(always)]
    fn port(&self, sw: SwitchId, dst: NodeId, flow: Flow, draw: impl FnOnce(usize) -> usize) -> PortId {
        let t = &self.switches[sw.idx()];
        if let Some(p) = t.down_to(dst) {
            return p;
        }
        let j = match self.climb {
            Climb::Random => draw(t.up.len()),
            Climb::DmodK => (dst.0 / t.stride) as usize % t.up.len(),
            Climb::Hash => (flow_hash(flow, dst, sw) % t.up.len() as u64) as usize,
        };
        t.up[j]
    }

    /// Asks memory for switch `sw`'s routing state, and its stream under NCA (`Route::prefetch`).
    #[inline]
    pub fn prefetch(&self, sw: SwitchId, rng: &Stream) {
        crate::hint::prefetch_lines(&self.switches[sw.idx()]);
        if self.climb == Climb::Random {
            crate::hint::prefetch_lines(rng);
        }
    }

    /// `route`'s port, a draw from a copy of the stream (`Route::predict`).
    #[inline]
    pub fn predict(&self, sw: SwitchId, dst: NodeId, flow: Flow, rng: &Stream) -> PortId {
        self.port(sw, dst, flow, |ups| rng.clone().random_range(0..ups))
    }
}

impl Subtree {
    /// The down port towards `dst`, if `dst` is below.
    #[inline]
    fn down_to(&self, dst: NodeId) -> Option<PortId> {
        let d = dst.0.checked_sub(self.lo)?;
        self.down.get((d / self.span) as usize).copied()
    }
}

/// A fixed hash of a flow to `dst` at a switch: SplitMix64's finalizer (Steele, Lea and Flood,
/// OOPSLA 2014) over source, flow, destination and switch, so that a flow's choices at
/// successive levels are independent, and the same in every run.
fn flow_hash(flow: Flow, dst: NodeId, sw: SwitchId) -> u64 {
    let mut x = (u64::from(flow.src.0) << 32 | u64::from(flow.id))
        ^ u64::from(dst.0).wrapping_mul(0xD1B5_4A32_D192_ED03)
        ^ u64::from(sw.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
