//! Message completion (flow completion time, FCT, and slowdown; docs/metrics.md): a message is
//! complete when the last of its packets arrives, and its slowdown is its FCT over the time it
//! would take alone in the empty network (`ZeroLoad`).

use super::Latency;
use crate::ids::{ClassId, Endpoint, NodeId, SwitchId};
use crate::time::{Rate, Time};
use crate::topology::Topology;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A message created in the window whose packets are still arriving, named by its source host,
/// class and creation time: a source creates its messages at distinct times (arrival gaps are
/// at least 1 ps) and a class lists a host once.
#[derive(Clone, Copy)]
struct Pending {
    created: Time,
    dst: NodeId,
    packets: u32,
    /// Packets still to arrive; 0 once complete, until every message before it is (`Queue`).
    left: u32,
}

/// The pending messages of one source host and class, oldest first. Completions come mostly
/// from the front, the oldest messages, so a message is found by galloping from there, and a
/// complete one stays (`left` 0) until those before it have gone. A saturated source queues far
/// more messages than it sends (IB-T4.2's B nodes: 95% of them at p = 30 without CC); kept in
/// one map keyed by message, their entries went to random places of a table of millions,
/// each insert a miss and each growth a rehash of all.
#[derive(Default)]
struct Queue(VecDeque<Pending>);

impl Queue {
    /// The index of the first message created at or after `created`.
    fn find(&self, created: Time) -> usize {
        let q = &self.0;
        let mut hi = 1;
        while hi < q.len() && q[hi - 1].created < created {
            hi *= 2;
        }
        let (mut lo, mut hi) = (hi / 2, hi.min(q.len()));
        while lo < hi {
            let mid = (lo + hi) / 2;
            if q[mid].created < created {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Where the message created at `created` is, if still pending.
    fn position(&self, created: Time) -> Option<usize> {
        let i = self.find(created);
        self.0.get(i).is_some_and(|m| m.created == created && m.left > 0).then_some(i)
    }

    /// The message created at `created`, if still pending.
    fn get_mut(&mut self, created: Time) -> Option<&mut Pending> {
        self.position(created).map(|i| &mut self.0[i])
    }

    fn insert(&mut self, m: Pending) {
        let at = if self.0.back().is_none_or(|b| b.created < m.created) { self.0.len() } else { self.find(m.created) };
        self.0.insert(at, m);
    }

    /// Drops the complete messages at the front.
    fn trim(&mut self) {
        while self.0.front().is_some_and(|m| m.left == 0) {
            self.0.pop_front();
        }
    }
}

/// One completed message (`simulation.record_flows`).
#[derive(Clone, Copy, Debug)]
pub struct FlowRecord {
    pub class: ClassId,
    pub src: NodeId,
    pub dst: NodeId,
    pub packets: u32,
    pub created: Time,
    pub fct: Time,
    pub ideal: Time,
}

pub struct Flows {
    /// Per source host and class (`slot`; the classes are `fct`'s): a vector rather than a map,
    /// so that a delivery finds its source's queue in one load (a hash map's bucket and entry
    /// were two cache misses per delivery at 65,536 hosts). Hosts times classes entries of 32
    /// bytes: per source, never per destination.
    pending: Vec<Queue>,
    /// Per class: FCT of the messages created in the window and completed.
    pub fct: Vec<Latency>,
    /// Per class: their slowdown in thousandths (a `Latency` reads it back divided by 1,000:
    /// in units of slowdown).
    pub slowdown_milli: Vec<Latency>,
    pub records: Option<Vec<FlowRecord>>,
    ideal: ZeroLoad,
}

impl Flows {
    pub fn new(classes: usize, ideal: ZeroLoad, record: bool) -> Flows {
        Flows {
            pending: (0..ideal.hosts.len() * classes).map(|_| Queue::default()).collect(),
            fct: (0..classes).map(|_| Latency::default()).collect(),
            slowdown_milli: (0..classes).map(|_| Latency::default()).collect(),
            records: record.then(Vec::new),
            ideal,
        }
    }

    fn slot(&self, src: NodeId, class: ClassId) -> usize {
        src.idx() * self.fct.len() + class as usize
    }

    pub fn created(&mut self, src: NodeId, dst: NodeId, class: ClassId, created: Time, packets: u32) {
        let slot = self.slot(src, class);
        self.pending[slot].insert(Pending { created, dst, packets, left: packets });
    }

    /// Stops following a message just `created` (its destination's part of a split run does):
    /// its packet count, if it was followed.
    pub fn withdraw(&mut self, src: NodeId, class: ClassId, created: Time) -> Option<u32> {
        let slot = self.slot(src, class);
        let q = &mut self.pending[slot];
        let i = q.position(created)?;
        q.0.remove(i).map(|m| m.packets)
    }

    /// A packet of `packet_bytes` of a message created at `created` arrived (its first copy) at
    /// `now` (a message's packets are all its class's size).
    pub fn arrived(&mut self, src: NodeId, class: ClassId, created: Time, packet_bytes: u32, now: Time) {
        let slot = self.slot(src, class);
        let q = &mut self.pending[slot];
        let Some(m) = q.get_mut(created) else { return };
        m.left -= 1;
        if m.left > 0 {
            return;
        }
        let (dst, packets) = (m.dst, m.packets);
        q.trim();
        let fct = now - created;
        let ideal = self.ideal.time(src, dst, packets, packet_bytes);
        self.fct[class as usize].record(fct);
        self.slowdown_milli[class as usize].record((fct as u128 * 1_000 / ideal as u128) as Time);
        if let Some(r) = &mut self.records {
            r.push(FlowRecord { class, src, dst, packets, created, fct, ideal });
        }
    }

    /// Adds another partition's messages (`Stats::absorb`). Completed records are appended:
    /// `sort_records` puts them back in the order one thread completes them.
    pub fn absorb(&mut self, o: Flows) {
        for (ours, theirs) in self.pending.iter_mut().zip(o.pending).filter(|(_, theirs)| !theirs.0.is_empty()) {
            ours.0.extend(theirs.0);
            ours.0.make_contiguous().sort_unstable_by_key(|m| m.created);
        }
        for (a, b) in self.fct.iter_mut().zip(&o.fct) {
            a.merge(b);
        }
        for (a, b) in self.slowdown_milli.iter_mut().zip(&o.slowdown_milli) {
            a.merge(b);
        }
        if let (Some(r), Some(or)) = (&mut self.records, o.records) {
            r.extend(or);
        }
    }

    /// Orders completed records as one thread records them: by completion time, then by the
    /// entity of the delivery that completed them (`rank` of the destination), as the event
    /// queue orders deliveries at one time.
    pub fn sort_records(&mut self, rank: impl Fn(NodeId) -> u64) {
        if let Some(r) = &mut self.records {
            r.sort_by_key(|f| (f.created + f.fct, rank(f.dst)));
        }
    }

    /// Per class: messages created in the window that had not completed when the run ended.
    pub fn unfinished(&self) -> Vec<u64> {
        let classes = self.fct.len();
        let mut n = vec![0; classes];
        for (slot, q) in self.pending.iter().enumerate() {
            n[slot % classes] += q.0.iter().filter(|m| m.left > 0).count() as u64;
        }
        n
    }
}

/// The time a message takes alone in the empty network on a minimal path: the head crosses
/// every channel (its latency) and every switch (the router pipeline), then the packets follow
/// back to back at the slower of the two host links. Exact where all links on the path run at
/// one rate (tests/flows.rs checks it against single messages).
pub struct ZeroLoad {
    router_latency: Time,
    /// Per host: its switch's index among the switches with hosts (`edges`), its injection and
    /// ejection channels' latencies and rates.
    hosts: Vec<(u32, Time, Time, Rate, Rate)>,
    /// The switches with hosts attached.
    edges: Vec<SwitchId>,
    /// Per switch: neighbouring switches and the latency of the channel to each.
    links: Vec<Vec<(SwitchId, Time)>>,
    /// Per switch: its index among `edges`, or `u32::MAX`.
    edge_of: Vec<u32>,
    /// Per switch with hosts, computed on first use: the head's way to each switch with hosts
    /// from entering its pipeline. Only those: a 16-ary 4-tree (65,536 hosts) has 4,096 of its
    /// 16,384 switches at the edge. Still quadratic in edge switches, so a row is as small as
    /// the network allows (`Row`).
    from: Vec<Option<Row>>,
    /// The latency of every channel between switches, if they all have the same: then the
    /// fastest path is the one with fewest hops, found breadth first (a 65,536-host tree's 4,096
    /// rows took most of a short run's time by Dijkstra's heap).
    uniform: Option<Time>,
    /// Per-switch times of the last search, kept between calls.
    best: Vec<Time>,
}

/// Edge switches whose rows one breadth-first search finds together: a bit each in a word.
const BATCH: usize = 64;

/// A switch with hosts a breadth-first search has not reached (yet).
const UNREACHED: u8 = u8::MAX;

/// The way from one switch with hosts to each of them.
#[derive(Clone)]
enum Row {
    /// Channels crossed, where every channel takes `ZeroLoad::uniform` (a byte each: the 4,096
    /// rows of a 65,536-host tree take 16 MiB, where times took 128 MiB).
    Hops(Box<[u8]>),
    /// The head's time (channels differ, or a path is longer than a byte counts).
    Times(Box<[Time]>),
}

impl ZeroLoad {
    pub fn new(topo: &Topology, router_latency: Time) -> ZeroLoad {
        let mut edge_of = vec![u32::MAX; topo.switches.len()];
        let mut edges = Vec::new();
        let hosts = (0..topo.hosts())
            .map(|h| {
                let (out, inp) = (&topo.channels[topo.host_out[h].idx()], &topo.channels[topo.host_in[h].idx()]);
                let Endpoint::Switch(sw, _) = out.to else { unreachable!("a host's injection channel ends at a switch") };
                if edge_of[sw.idx()] == u32::MAX {
                    edge_of[sw.idx()] = edges.len() as u32;
                    edges.push(sw);
                }
                (edge_of[sw.idx()], out.latency, inp.latency, out.rate, inp.rate)
            })
            .collect();
        let links: Vec<Vec<(SwitchId, Time)>> = topo
            .switches
            .iter()
            .map(|s| {
                s.ports
                    .iter()
                    .filter_map(|p| {
                        let c = &topo.channels[p.out.idx()];
                        match c.to {
                            Endpoint::Switch(next, _) => Some((next, c.latency)),
                            Endpoint::Host(_) => None,
                        }
                    })
                    .collect()
            })
            .collect();
        let from = vec![None; edges.len()];
        let mut latencies = links.iter().flatten().map(|&(_, latency)| latency);
        let first = latencies.next();
        let uniform = first.filter(|&l| latencies.all(|m| m == l));
        ZeroLoad { router_latency, hosts, edges, edge_of, links, from, uniform, best: Vec::new() }
    }

    /// `packets` packets of `packet_bytes` each, from `src` to `dst`.
    pub fn time(&mut self, src: NodeId, dst: NodeId, packets: u32, packet_bytes: u32) -> Time {
        let (s, out_latency, _, out_rate, _) = self.hosts[src.idx()];
        let (d, _, in_latency, _, in_rate) = self.hosts[dst.idx()];
        let between = self.between(s, d);
        let rate = if out_rate.mbps < in_rate.mbps { out_rate } else { in_rate };
        out_latency + between + in_latency + packets as Time * rate.serialization(packet_bytes)
    }

    /// The fastest time from the `e`-th switch with hosts to the `d`-th: each switch costs a
    /// router pipeline, each channel its latency.
    fn between(&mut self, e: u32, d: u32) -> Time {
        if self.from[e as usize].is_none() {
            match self.uniform {
                Some(_) => self.breadth_first(e as usize / BATCH * BATCH),
                None => self.from[e as usize] = Some(Row::Times(self.times_from(e as usize))),
            }
        }
        match self.from[e as usize].as_ref().expect("computed above") {
            Row::Hops(hops) => match hops[d as usize] {
                UNREACHED => Time::MAX,
                h => self.router_latency + h as Time * (self.uniform.expect("hops only where channels are alike") + self.router_latency),
            },
            Row::Times(times) => times[d as usize],
        }
    }

    /// The row of the `e`-th switch with hosts, by Dijkstra.
    fn times_from(&mut self, e: usize) -> Box<[Time]> {
        self.dijkstra(self.edges[e]);
        self.edges.iter().map(|d| self.best[d.idx()]).collect()
    }

    fn dijkstra(&mut self, source: SwitchId) {
        self.best.clear();
        self.best.resize(self.links.len(), Time::MAX);
        let mut heap = BinaryHeap::from([Reverse((self.router_latency, source.0))]);
        while let Some(Reverse((t, u))) = heap.pop() {
            if t >= self.best[u as usize] {
                continue;
            }
            self.best[u as usize] = t;
            for &(v, latency) in &self.links[u as usize] {
                let tv = t + latency + self.router_latency;
                if tv < self.best[v.idx()] {
                    heap.push(Reverse((tv, v.0)));
                }
            }
        }
    }

    /// Every channel takes the same latency: a switch first reached at depth d is d hops away.
    /// The rows of edge switches `first..first + BATCH` come from one search that carries a bit
    /// per source in each switch's frontier word (multi-source BFS, Then et al., VLDB 2014): a
    /// 65,536-host tree's 4,096 rows in 64 passes over the switches instead of 4,096.
    fn breadth_first(&mut self, first: usize) {
        let sources = &self.edges[first..self.edges.len().min(first + BATCH)];
        let batch = sources.len();
        let mut rows = vec![vec![UNREACHED; self.edges.len()]; batch];
        let (mut seen, mut frontier, mut next) = (vec![0u64; self.links.len()], vec![0u64; self.links.len()], vec![0u64; self.links.len()]);
        for (j, s) in sources.iter().enumerate() {
            seen[s.idx()] |= 1 << j;
            frontier[s.idx()] |= 1 << j;
        }
        let mut hops = 0u8;
        loop {
            for (v, &reached) in frontier.iter().enumerate() {
                let e = self.edge_of[v];
                let mut bits = reached;
                while e != u32::MAX && bits != 0 {
                    rows[bits.trailing_zeros() as usize][e as usize] = hops;
                    bits &= bits - 1;
                }
            }
            for (u, &reached) in frontier.iter().enumerate().filter(|(_, &r)| r != 0) {
                for &(v, _) in &self.links[u] {
                    next[v.idx()] |= reached;
                }
            }
            let mut any = 0;
            for (n, s) in next.iter_mut().zip(&mut seen) {
                *n &= !*s;
                *s |= *n;
                any |= *n;
            }
            if any == 0 {
                break;
            }
            if hops + 1 == UNREACHED {
                // Paths too long for a byte: these rows take times.
                for e in first..first + batch {
                    self.from[e] = Some(Row::Times(self.times_from(e)));
                }
                return;
            }
            std::mem::swap(&mut frontier, &mut next);
            next.fill(0);
            hops += 1;
        }
        for (j, row) in rows.into_iter().enumerate() {
            self.from[first + j] = Some(Row::Hops(row.into_boxed_slice()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ExplicitLink, LinkConfig, TopologyConfig};

    /// A source's pending messages are found by time wherever they sit (galloping from the
    /// front), complete out of order, and leave once the older ones have: what a message left
    /// and the counts of unfinished ones are what a map by message gave.
    #[test]
    fn pending_messages_complete_in_any_order() {
        let mut q = Queue::default();
        // Created out of order (a split run's messages from two windows), by 10 ps steps.
        for t in (0..100).rev().chain(100..300) {
            q.insert(Pending { created: t * 10, dst: NodeId(1), packets: 2, left: 2 });
        }
        assert!(q.0.iter().zip(q.0.iter().skip(1)).all(|(a, b)| a.created < b.created), "kept in creation order");
        for t in [0, 5, 9, 10, 11, 1_234, 2_990, 2_995, 3_000] {
            assert_eq!(q.find(t), q.0.iter().position(|m| m.created >= t).unwrap_or(q.0.len()), "first message at or after {t} ps");
        }
        assert!(q.get_mut(15).is_none(), "no message was created at 15 ps");
        // Complete the second message, then the first: both go together.
        let arrive = |q: &mut Queue, created: Time| {
            q.get_mut(created).expect("pending").left -= 1;
            q.trim();
        };
        arrive(&mut q, 10);
        arrive(&mut q, 10);
        assert_eq!(q.0.len(), 300, "the second stays, complete, behind the first");
        assert!(q.get_mut(10).is_none(), "a complete message is found no more");
        arrive(&mut q, 0);
        arrive(&mut q, 0);
        assert_eq!((q.0.len(), q.0.front().map(|m| m.created)), (298, Some(20)));
    }

    /// Breadth first (all channels alike) finds what Dijkstra finds, in one batch of sources
    /// (16 edge switches) or several (256), asked for in any order; a dragonfly with slower
    /// global channels takes Dijkstra.
    #[test]
    fn breadth_first_rows_are_dijkstras_where_every_channel_is_alike() {
        for n in [3, 5] {
            let tree = Topology::build(&TopologyConfig::KaryNtree { k: 4, n, link: LinkConfig::default() }).unwrap();
            let mut fast = ZeroLoad::new(&tree, 26_000);
            assert!(fast.uniform.is_some());
            let mut slow = ZeroLoad::new(&tree, 26_000);
            slow.uniform = None;
            let edges = fast.edges.len() as u32;
            assert_eq!(edges, 4u32.pow(n - 1));
            for e in (0..edges).rev() {
                let row: Vec<Time> = (0..edges).map(|d| fast.between(e, d)).collect();
                assert!(row.iter().all(|&t| t < Time::MAX), "every edge switch reached from {e}");
                assert_eq!(row, (0..edges).map(|d| slow.between(e, d)).collect::<Vec<_>>(), "edge switch {e} of a 4-ary {n}-tree");
            }
            assert!(fast.from.iter().all(|r| matches!(r, Some(Row::Hops(_)))), "a byte per edge switch");
        }
        let shape = TopologyConfig::Dragonfly {
            hosts_per_router: 1,
            routers_per_group: 2,
            global_per_router: 1,
            global_latency_ns: Some(500.0),
            link: LinkConfig::default(),
        };
        assert!(ZeroLoad::new(&Topology::build(&shape).unwrap(), 26_000).uniform.is_none());
    }

    /// A path longer than a byte counts (a chain of 300 switches, a host at each end): the rows
    /// take times, and they are Dijkstra's.
    #[test]
    fn rows_of_paths_longer_than_a_byte_counts_take_times() {
        let switches: Vec<String> = (0..300).map(|i| format!("s{i}")).collect();
        let mut links: Vec<ExplicitLink> = switches.windows(2).map(|w| link(&w[0], &w[1])).collect();
        links.push(link("h0", "s0"));
        links.push(link("h1", "s299"));
        let chain = Topology::build(&TopologyConfig::Explicit { hosts: vec!["h0".into(), "h1".into()], switches, links, link: LinkConfig::default() }).unwrap();
        let mut fast = ZeroLoad::new(&chain, 26_000);
        assert!(fast.uniform.is_some());
        let mut slow = ZeroLoad::new(&chain, 26_000);
        slow.uniform = None;
        for (e, d) in [(0, 1), (1, 0), (0, 0)] {
            assert_eq!(fast.between(e, d), slow.between(e, d), "edge switch {e} to {d}");
        }
        assert!(fast.from.iter().all(|r| matches!(r, Some(Row::Times(_)))));
        let hop = fast.uniform.unwrap() + 26_000;
        assert_eq!(fast.between(0, 1), 26_000 + 299 * hop);
    }

    fn link(a: &str, b: &str) -> ExplicitLink {
        ExplicitLink { a: a.into(), b: b.into(), name: None, bandwidth_gbps: None, latency_ns: None }
    }
}
