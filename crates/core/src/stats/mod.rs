//! Statistics collectors (definitions in docs/metrics.md).
//!
//! Everything measured "in the window" counts events with `warmup <= t < end`. Time series cover
//! the whole run, warm-up included, in bins of `simulation.bin_ns`.

mod fairness;
mod flows;
mod histogram;
mod summary;

pub use fairness::Fairness;
pub use flows::{FlowRecord, Flows, ZeroLoad};
pub use histogram::{Latency, LatencySummary};
pub(crate) use summary::Context as SummaryContext;
pub use summary::{ClassSummary, Counters, Deadlock, FlowRow, LinkRow, SeriesRow, Summary};

use crate::ids::{ChannelId, ClassId, NodeId};
use crate::packet::Packet;
use crate::time::Time;

#[derive(Default)]
pub struct ClassStats {
    pub offered_bytes: u64,
    /// Greedy classes: the sum over sources of link rate x time active (Mb/s x ps): they offer
    /// their whole link while they send (docs/metrics.md).
    pub active_mbps_ps: u128,
    pub accepted_bytes: u64,
    pub total: Latency,
    pub inflight: Latency,
    pub network: Latency,
    /// Data packets delivered marked (`Packet::marked`).
    pub marked: u64,
}

#[derive(Default, Clone, Copy)]
pub struct Bin {
    pub offered_bytes: u64,
    pub active_mbps_ps: u128,
    pub accepted_bytes: u64,
    pub packets: u64,
    pub total_ps: u128,
    pub inflight_ps: u128,
}

/// Run-wide packet counters (whole run, not only the window): they must balance.
#[derive(Default, Clone, Copy, Debug)]
pub struct RawCounters {
    /// Data packets that left their source NIC.
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub control_sent: u64,
    pub control_delivered: u64,
    /// Data packets of messages generated (queued or injected).
    pub generated_packets: u64,
    /// Messages generated.
    pub messages: u64,
    /// Packets (data and control) put on any channel: the packet-hops of the benchmark.
    pub hops: u64,
    /// Data packets injected again after a drop (included in `injected`).
    pub retransmitted: u64,
    /// Second arrivals of a data packet (a resent copy and its original), not in `delivered`.
    pub duplicates: u64,
    /// PFC PAUSE frames sent (`flow_control.kind = "pfc"`).
    pub pauses: u64,
    /// Control packets dropped (lossy links; data packets are in `dropped`).
    pub control_dropped: u64,
}

impl RawCounters {
    pub(crate) fn absorb(&mut self, o: &RawCounters) {
        let RawCounters {
            injected,
            delivered,
            dropped,
            control_sent,
            control_delivered,
            generated_packets,
            messages,
            hops,
            retransmitted,
            duplicates,
            pauses,
            control_dropped,
        } = *o;
        self.injected += injected;
        self.delivered += delivered;
        self.dropped += dropped;
        self.control_sent += control_sent;
        self.control_delivered += control_delivered;
        self.generated_packets += generated_packets;
        self.messages += messages;
        self.hops += hops;
        self.retransmitted += retransmitted;
        self.duplicates += duplicates;
        self.pauses += pauses;
        self.control_dropped += control_dropped;
    }
}

pub struct Stats {
    pub warmup: Time,
    pub end: Time,
    pub bin: Time,
    pub classes: Vec<ClassStats>,
    /// Per class: greedy, so offered is counted by time active, not by messages generated.
    greedy: Vec<bool>,
    /// Data bytes delivered per source node in the window.
    pub source_accepted: Vec<u64>,
    pub source_offered: Vec<u64>,
    /// Bytes sent per channel in the window.
    pub channel_bytes: Vec<u64>,
    /// Packets dropped at the receiving end of each channel in the window (lossy links).
    pub channel_drops: Vec<u64>,
    /// `bins * classes`, bin-major, grown as time reaches each bin: a long warm-up in fine bins
    /// costs memory only as the run gets there.
    pub series: Vec<Bin>,
    pub counters: RawCounters,
    pub flows: Flows,
}

impl Stats {
    pub fn new(warmup: Time, end: Time, bin: Time, greedy: Vec<bool>, hosts: usize, channels: usize, flows: Flows) -> Stats {
        Stats {
            warmup,
            end,
            bin,
            classes: greedy.iter().map(|_| ClassStats::default()).collect(),
            greedy,
            source_accepted: vec![0; hosts],
            source_offered: vec![0; hosts],
            channel_bytes: vec![0; channels],
            channel_drops: vec![0; channels],
            series: Vec::new(),
            counters: RawCounters::default(),
            flows,
        }
    }

    #[inline]
    fn in_window(&self, t: Time) -> bool {
        t >= self.warmup && t < self.end
    }

    #[inline]
    fn bin_mut(&mut self, t: Time, class: ClassId) -> Option<&mut Bin> {
        let n = self.classes.len();
        let row = (t / self.bin) as usize;
        if (row + 1) * n > self.series.len() {
            if t >= self.end {
                return None;
            }
            self.series.resize((row + 1) * n, Bin::default());
        }
        Some(&mut self.series[row * n + class as usize])
    }

    /// Adds what another partition of a split run counted (`sim::parallel`): each counted its
    /// own NICs' and switches' events, so the sums are the whole run's.
    pub fn absorb(&mut self, o: Stats) {
        for (c, oc) in self.classes.iter_mut().zip(&o.classes) {
            c.offered_bytes += oc.offered_bytes;
            c.active_mbps_ps += oc.active_mbps_ps;
            c.accepted_bytes += oc.accepted_bytes;
            c.total.merge(&oc.total);
            c.inflight.merge(&oc.inflight);
            c.network.merge(&oc.network);
            c.marked += oc.marked;
        }
        let add = |a: &mut Vec<u64>, b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        add(&mut self.source_accepted, &o.source_accepted);
        add(&mut self.source_offered, &o.source_offered);
        add(&mut self.channel_bytes, &o.channel_bytes);
        add(&mut self.channel_drops, &o.channel_drops);
        if o.series.len() > self.series.len() {
            self.series.resize(o.series.len(), Bin::default());
        }
        for (b, ob) in self.series.iter_mut().zip(&o.series) {
            b.offered_bytes += ob.offered_bytes;
            b.active_mbps_ps += ob.active_mbps_ps;
            b.accepted_bytes += ob.accepted_bytes;
            b.packets += ob.packets;
            b.total_ps += ob.total_ps;
            b.inflight_ps += ob.inflight_ps;
        }
        self.counters.absorb(&o.counters);
        self.flows.absorb(o.flows);
    }

    /// A message of `packets` (`bytes`) for `dst` was generated by `src` at `t`.
    pub fn offered(&mut self, t: Time, class: ClassId, src: NodeId, dst: NodeId, bytes: u64, packets: u32) {
        self.counters.generated_packets += packets as u64;
        self.counters.messages += 1;
        if self.greedy[class as usize] {
            return; // counted by `active`; a greedy source's messages have no completion time
        }
        if self.in_window(t) {
            self.flows.created(src, dst, class, t, packets);
        }
        if let Some(b) = self.bin_mut(t, class) {
            b.offered_bytes += bytes;
        }
        if self.in_window(t) {
            self.classes[class as usize].offered_bytes += bytes;
            self.source_offered[src.idx()] += bytes;
        }
    }

    /// Greedy sources of `class` with links of `mbps` (summed) were sending from `from` to
    /// `until`: they offered their links for that time, in the window and in each bin.
    pub fn active(&mut self, class: ClassId, mbps: u64, from: Time, until: Time) {
        let until = until.min(self.end);
        let overlap = |a: Time, b: Time| until.min(b).saturating_sub(from.max(a)) as u128;
        self.classes[class as usize].active_mbps_ps += mbps as u128 * overlap(self.warmup, self.end);
        let mut t = from - from % self.bin;
        while t < until {
            let span = overlap(t, t + self.bin);
            if let Some(b) = self.bin_mut(t, class) {
                b.active_mbps_ps += mbps as u128 * span;
            }
            t += self.bin;
        }
    }

    /// A data packet's tail reached its destination at `t`.
    pub fn delivered<H>(&mut self, t: Time, p: &Packet<H>) {
        self.counters.delivered += 1;
        let total = t - p.created;
        let inflight = t - p.injected;
        if let Some(b) = self.bin_mut(t, p.class) {
            b.accepted_bytes += p.bytes as u64;
            b.packets += 1;
            b.total_ps += total as u128;
            b.inflight_ps += inflight as u128;
        }
        if self.in_window(t) {
            let c = &mut self.classes[p.class as usize];
            c.accepted_bytes += p.bytes as u64;
            c.total.record(total);
            c.inflight.record(inflight);
            c.network.record(t - p.ready);
            c.marked += p.marked as u64;
            self.source_accepted[p.src.idx()] += p.bytes as u64;
        }
        if p.created >= self.warmup && !self.greedy[p.class as usize] {
            self.flows.arrived(p.src, p.class, p.created, p.bytes, t);
        }
    }

    /// A packet of `bytes` started on `ch` at `t`, taking `ser` to serialize: the channel counts
    /// the part of it inside the window, so that a packet across the window's end does not
    /// count whole (a utilization above 1).
    #[inline]
    pub fn sent(&mut self, t: Time, ch: ChannelId, bytes: u32, ser: Time) {
        self.counters.hops += 1;
        let end = t + ser;
        if t >= self.warmup && end <= self.end {
            self.channel_bytes[ch.idx()] += bytes as u64;
        } else if end > self.warmup && t < self.end {
            let inside = end.min(self.end) - t.max(self.warmup);
            self.channel_bytes[ch.idx()] += (bytes as u128 * inside as u128 / ser as u128) as u64;
        }
    }

    /// A packet that came over `ch` was dropped at `t` (lossy links).
    pub fn dropped(&mut self, t: Time, ch: ChannelId) {
        if self.in_window(t) {
            self.channel_drops[ch.idx()] += 1;
        }
    }
}
