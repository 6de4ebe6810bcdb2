//! The channel dependency graph of deterministic routing, checked for cycles before a run.
//!
//! With credit-based flow control a packet holds its buffer while it waits for the next one, so
//! routes whose channel dependencies form a cycle can deadlock (Dally and Seitz, "Deadlock-free
//! message routing in multiprocessor interconnection networks", IEEE Trans. Computers 1987).
//! Every packet shares the data VC's routes here, so one graph covers all of them. A channel c
//! depends on d when a packet from some host to some other host leaves a switch on d right after
//! arriving on c.

use crate::ids::{ChannelId, Endpoint, NodeId, PortId, SwitchId};
#[cfg(test)]
use crate::routing::Leg;
use crate::topology::Topology;

/// A cycle of switch-to-switch channels, each a dependency of the one before, if any, under the
/// deterministic routing function `port(switch, destination)`.
pub fn find(topo: &Topology, port: impl Fn(SwitchId, NodeId) -> PortId) -> Option<Vec<ChannelId>> {
    let n = topo.channels.len();
    let mut next: Vec<Vec<ChannelId>> = vec![Vec::new(); n];
    for src in 0..topo.hosts() {
        let Endpoint::Switch(first, _) = topo.channels[topo.host_out[src].idx()].to else { continue };
        for dst in (0..topo.hosts()).filter(|&d| d != src) {
            let (mut s, mut prev) = (first, None::<ChannelId>);
            // Routes were checked to reach their destination, so this ends within the switches.
            for _ in 0..topo.switches.len() {
                let out = topo.switches[s.idx()].ports[port(s, NodeId::new(dst)).idx()].out;
                if let Some(p) = prev {
                    next[p.idx()].push(out);
                }
                match topo.channels[out.idx()].to {
                    Endpoint::Switch(t, _) => (s, prev) = (t, Some(out)),
                    Endpoint::Host(_) => break,
                }
            }
        }
    }
    for v in &mut next {
        v.sort_unstable();
        v.dedup();
    }
    // Each channel is expanded once: its list can be handed over.
    let cycle = first_cycle(n, (0..n).map(ChannelId::new), |c| std::mem::take(&mut next[c.idx()]));
    (!cycle.is_empty()).then_some(cycle)
}

/// Dependencies between (channel, VC set) pairs, gathered route by route: what `find` checks
/// for one VC set, for the tests of routings with phases.
#[cfg(test)]
pub(crate) struct PhasedGraph<'a> {
    topo: &'a Topology,
    phases: usize,
    next: Vec<Vec<ChannelId>>,
}

#[cfg(test)]
impl<'a> PhasedGraph<'a> {
    pub fn new(topo: &'a Topology, phases: u8) -> PhasedGraph<'a> {
        let phases = phases as usize;
        PhasedGraph { topo, phases, next: vec![Vec::new(); phases * topo.channels.len()] }
    }

    /// Follows the route from switch `start` to host `dst`, `step` giving each switch's port
    /// and advancing `leg`; records its dependencies and returns its router-to-router hops.
    pub fn add_route(&mut self, start: SwitchId, dst: NodeId, mut leg: Leg, mut step: impl FnMut(SwitchId, &mut Leg) -> PortId) -> u32 {
        let (mut sw, mut prev, mut hops) = (start, None::<usize>, 0);
        loop {
            let out = self.topo.switches[sw.idx()].ports[step(sw, &mut leg).idx()].out;
            assert!((leg.phase as usize) < self.phases, "phase {} of {}", leg.phase, self.phases);
            let node = self.phases * out.idx() + leg.phase as usize;
            if let Some(p) = prev {
                self.next[p].push(ChannelId::new(node));
            }
            match self.topo.channels[out.idx()].to {
                Endpoint::Switch(t, _) => (sw, prev, hops) = (t, Some(node), hops + 1),
                Endpoint::Host(h) => {
                    assert_eq!(h, dst);
                    return hops;
                }
            }
        }
    }

    /// The first cycle among the recorded dependencies (empty: none).
    pub fn cycle(mut self) -> Vec<ChannelId> {
        let n = self.next.len();
        first_cycle(n, (0..n).map(ChannelId::new), |c| std::mem::take(&mut self.next[c.idx()]))
    }
}

/// The first cycle a depth-first search meets in a graph of `n` channels, starting from
/// `starts` in order, where `next(c)` lists the channels `c` depends on (empty: no cycle). The
/// path is kept on a stack, so a long dependency chain cannot overflow the call stack. Also the
/// watchdog's search among blocked channels (`sim::deadlock`).
pub(crate) fn first_cycle(n: usize, starts: impl IntoIterator<Item = ChannelId>, mut next: impl FnMut(ChannelId) -> Vec<ChannelId>) -> Vec<ChannelId> {
    let mut state = vec![0u8; n]; // 0 new, 1 on the path, 2 done
    for start in starts {
        if state[start.idx()] != 0 {
            continue;
        }
        state[start.idx()] = 1;
        let mut path = vec![(start, next(start), 0usize)];
        while let Some((c, after, i)) = path.last_mut() {
            let Some(&d) = after.get(*i) else {
                state[c.idx()] = 2;
                path.pop();
                continue;
            };
            *i += 1;
            match state[d.idx()] {
                1 => {
                    let from = path.iter().position(|(x, _, _)| *x == d).expect("d is on the path");
                    return path[from..].iter().map(|(x, _, _)| *x).collect();
                }
                0 => {
                    state[d.idx()] = 1;
                    let after = next(d);
                    path.push((d, after, 0));
                }
                _ => {}
            }
        }
    }
    Vec::new()
}
