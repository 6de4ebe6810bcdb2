//! UGAL with local queue information on direct networks (Singh, PhD thesis, Stanford 2005; the
//! CBCM paper's adaptive routing, §III and §V; on dragonflies Kim et al., ISCA 2008, §4.2): the
//! first switch weighs the minimal route against a Valiant detour through a random intermediate
//! router by queue length times hops, and takes the detour only when it is shorter by more than
//! a threshold. The rest of the way is Valiant's (`Direct::onward`), on the same VC sets, so it
//! is deadlock-free for the same reason.
//!
//! The queue length of a port counts every byte the switch knows is waiting for it or in flight
//! beyond it: in its inputs' virtual output queues for the port, in its output buffer, and sent
//! downstream but not yet credited back, over all VCs. BookSim2's UGAL (the CBCM paper's
//! simulator) reads the credits alone; in our input-queued switch a saturated port's backlog
//! waits in the input VOQs, where credits do not see it (on the worst-case permutation of
//! `tests/flattened_butterfly.rs`, credits alone give 0.41 of capacity, with the VOQs 0.50, as
//! Valiant).

use super::direct::Direct;
use super::{Flow, Leg, PortLoads, Registered, Route};
use crate::config::{RoutingConfig, TopologyConfig};
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, PortId, SwitchId};
use crate::plugin::Settings;
use crate::rng::Stream;
use crate::topology::Topology;
use serde::{Deserialize, Serialize};

/// `[routing.ugal]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct UgalSettings {
    /// The margin by which the detour's queue length times hops must beat the minimal route's.
    /// BookSim2's flattened-butterfly UGAL (the CBCM paper's simulator, §V) uses 2 flits: 16
    /// bytes with the 64-bit flits of docs/config.md's cycle conversion.
    pub threshold_bytes: u32,
}

impl Default for UgalSettings {
    fn default() -> Self {
        UgalSettings { threshold_bytes: 16 }
    }
}

impl Settings for UgalSettings {
    fn validate(&self) -> ConfigResult<()> {
        if self.threshold_bytes > u32::MAX / 2 {
            return Err(ConfigError::new("routing.ugal.threshold_bytes", "is larger than any queue; give a margin in bytes below 2^31"));
        }
        Ok(())
    }
}

pub struct Ugal {
    direct: Direct,
    threshold_bytes: u64,
}

impl Registered for Ugal {
    const ABOUT: &'static str = "UGAL: minimal or a Valiant detour, chosen at the first switch from its queue lengths, on flattened butterflies and dragonflies (CBCM paper §V).";
    const DOC: &'static str = "Flattened butterflies and dragonflies (traffic within a dragonfly group goes minimally). The first switch draws an intermediate router as `valiant` does and detours through it when hops x queue length of the detour's first port, plus the threshold, is below that of the minimal port; otherwise the packet goes minimally. A port's queue length is the bytes waiting for it in the switch's input VOQs, in its output buffer and downstream (credits in use), over all VCs. The VC sets of `valiant`; deadlock-free.\n\n| key | default | meaning |\n|---|---|---|\n| `threshold_bytes` | `16` | The margin a detour must win by: BookSim2's 2 flits of 8 bytes (the CBCM paper's simulator, §V). |\n";
    type Settings = UgalSettings;
    const READS_OUTPUTS: bool = true;

    fn build(settings: UgalSettings, _: &RoutingConfig, topo: &Topology) -> ConfigResult<Ugal> {
        Ok(Ugal { direct: Direct::build(topo, "ugal")?, threshold_bytes: settings.threshold_bytes as u64 })
    }

    fn phases(topology: &TopologyConfig) -> u8 {
        Direct::phases(topology, true)
    }
}

impl Ugal {
    /// Whether a packet at router `here` for router `there` should detour through `via`.
    fn detours<L: PortLoads + ?Sized>(&self, here: SwitchId, there: SwitchId, via: SwitchId, outputs: &L) -> bool {
        let Some((minimal_port, detour_port)) = self.direct.detour(here, there, via) else { return false };
        let d = &self.direct;
        let queue = |port: PortId| outputs.load_bytes(port) as u64;
        let minimal = d.distance(here, there) as u64 * queue(minimal_port);
        let detour = (d.distance(here, via) + d.distance(via, there)) as u64 * queue(detour_port);
        minimal > detour + self.threshold_bytes
    }
}

impl Route for Ugal {
    #[inline]
    fn route<L: PortLoads + ?Sized>(&self, sw: SwitchId, dst: NodeId, _: Flow, leg: &mut Leg, outputs: &L, rng: &mut Stream) -> PortId {
        if leg.is_start() {
            let there = self.direct.router_of(dst);
            let via = if leg.minimal { sw } else { self.direct.random_via(sw, there, rng) };
            if self.detours(sw, there, via, outputs) {
                leg.via = via;
            } else {
                leg.phase = 1;
            }
        }
        self.direct.onward(sw, dst, leg)
    }
}
