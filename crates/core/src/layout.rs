//! Which partition of a run split over threads (`sim::parallel`), or which block of one thread
//! (`sim::blocks`), owns each switch, host and channel end. Below the switch and the NIC, which
//! record where the far ends of their links are served; the rules that move events between
//! partitions are `sim::partition`'s.

use crate::config::Partitioner;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::Endpoint;
use crate::time::Time;
use crate::topology::Topology;

/// Which partition owns each switch, host and channel end, and the lookahead that follows.
pub struct Layout {
    pub parts: usize,
    pub of_switch: Vec<u16>,
    pub of_host: Vec<u16>,
    /// Per channel: the partitions of its sending and receiving ends.
    pub up: Vec<u16>,
    pub down: Vec<u16>,
    /// The shortest latency of a channel between two partitions: no event one partition causes
    /// in another happens sooner, so partitions run this far ahead of each other's messages
    /// (`Time::MAX` when no channel joins two partitions).
    pub lookahead: Time,
}

impl Layout {
    /// Divides `topo` into `parts` partitions (fewer if it has fewer switches).
    ///
    /// `linear` (SST's name for it) cuts each tree level, in switch order, into `parts`
    /// contiguous blocks: on trees a block of leaves is a pod with the switches above it, on
    /// flattened butterflies and dragonflies consecutive routers share a group. `round_robin`
    /// deals switches out in turn: a poor cut (every channel crosses), for checking that the cut
    /// never changes results.
    pub fn new(topo: &Topology, parts: usize, how: Partitioner) -> ConfigResult<Layout> {
        let parts = parts.clamp(1, topo.switches.len().max(1)).min(u16::MAX as usize);
        let of_switch: Vec<u16> = match how {
            Partitioner::RoundRobin => (0..topo.switches.len()).map(|s| (s % parts) as u16).collect(),
            Partitioner::Linear => {
                let levels = topo.switches.iter().map(|s| s.level).max().map_or(0, |l| l as usize + 1);
                let mut at_level = vec![0usize; levels];
                let sizes: Vec<usize> = (0..levels).map(|l| topo.switches.iter().filter(|s| s.level as usize == l).count()).collect();
                topo.switches
                    .iter()
                    .map(|s| {
                        let l = s.level as usize;
                        let i = at_level[l];
                        at_level[l] += 1;
                        (i * parts / sizes[l]) as u16
                    })
                    .collect()
            }
        };
        let of_host: Vec<u16> = topo
            .host_out
            .iter()
            .map(|&ch| match topo.channels[ch.idx()].to {
                Endpoint::Switch(s, _) => of_switch[s.idx()],
                Endpoint::Host(_) => unreachable!("a host's injection channel ends at a switch"),
            })
            .collect();
        let side = |e: Endpoint| match e {
            Endpoint::Host(h) => of_host[h.idx()],
            Endpoint::Switch(s, _) => of_switch[s.idx()],
        };
        let up: Vec<u16> = topo.channels.iter().map(|c| side(c.from)).collect();
        let down: Vec<u16> = topo.channels.iter().map(|c| side(c.to)).collect();
        let mut lookahead = Time::MAX;
        for (i, c) in topo.channels.iter().enumerate() {
            if up[i] != down[i] {
                if c.latency == 0 {
                    return Err(ConfigError::new(
                        "simulation.threads",
                        format!(
                            "channel `{}` joins two partitions and has no latency, so neither could run ahead of the other: give links a latency above 0, or run on one thread",
                            topo.channel_names[i]
                        ),
                    ));
                }
                lookahead = lookahead.min(c.latency);
            }
        }
        Ok(Layout { parts, of_switch, of_host, up, down, lookahead })
    }
}
