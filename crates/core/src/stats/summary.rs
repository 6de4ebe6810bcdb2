//! The results of a run as plain data: what `summary.json`, `timeseries.csv` and `links.csv`
//! hold, and what Python receives.

use super::{Fairness, LatencySummary, Stats};
use crate::ids::NodeId;
use crate::time::{ns_from_ps, Rate, Time};
use crate::topology::Topology;
use crate::traffic::Traffic;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ClassSummary {
    /// Position of the class in the config's `[[traffic]]` list.
    pub index: usize,
    pub pattern: String,
    pub sources: usize,
    /// Host ids of the class's sources (their throughput is in `Summary::sources`).
    pub source_ids: Vec<u32>,
    /// Offered load: data bytes generated in the window / (sum of the sources' injection link
    /// rates x window).
    pub offered: f64,
    /// Accepted throughput: data bytes delivered in the window / (same denominator).
    pub accepted: f64,
    pub packet_latency_ns: LatencySummary,
    pub inflight_latency_ns: LatencySummary,
    pub network_latency_ns: LatencySummary,
    /// Flow completion time: from a message's creation to the arrival of its last packet, for
    /// the messages created in the window that completed (greedy classes have none).
    pub fct_ns: LatencySummary,
    /// Their FCT over the time each would take alone in the empty network (docs/metrics.md).
    pub slowdown: LatencySummary,
    /// Messages created in the window still incomplete when the run ended: the FCTs above
    /// leave them out, which favours short messages if there are many.
    pub unfinished_messages: u64,
    /// Fraction of the data packets delivered in the window that carried a congestion mark
    /// (FECN, ECN or Santos' mark; 0 under mechanisms that do not mark).
    pub marked: f64,
    /// Spread of the accepted throughput of the class's sources (each source's traffic of all
    /// classes, as in `Summary::sources`).
    pub fairness: Fairness,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Counters {
    /// Messages generated over the whole run.
    pub messages: u64,
    /// Data packets generated (in those messages).
    pub generated: u64,
    pub injected: u64,
    pub delivered: u64,
    pub in_flight: u64,
    pub dropped: u64,
    /// Generated but not yet injected: waiting in send queues at the end.
    pub queued: u64,
    pub control_sent: u64,
    pub control_delivered: u64,
    /// Channel traversals by any packet over the whole run.
    pub hops: u64,
    /// Data packets injected again (included in `injected`).
    pub retransmitted: u64,
    /// Second arrivals of a data packet, discarded (not in `delivered`).
    pub duplicates: u64,
    /// PFC PAUSE frames sent (0 under credits).
    pub pauses: u64,
    /// Control packets dropped by lossy links (data packets are in `dropped`).
    pub control_dropped: u64,
}

/// One completed message (`simulation.record_flows`): a row of `flows.csv`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowRow {
    pub class: String,
    pub src: u32,
    pub dst: u32,
    pub packets: u32,
    pub bytes: u64,
    pub start_ns: f64,
    pub fct_ns: f64,
    /// The time it would take alone in the empty network.
    pub ideal_ns: f64,
    pub slowdown: f64,
}

impl FlowRow {
    /// `flows.csv`'s header, written even when no message completed (the fields, in order).
    pub const COLUMNS: [&'static str; 9] = ["class", "src", "dst", "packets", "bytes", "start_ns", "fct_ns", "ideal_ns", "slowdown"];
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkRow {
    pub channel: u32,
    pub name: String,
    pub from: String,
    pub to: String,
    pub utilization: f64,
    /// Packets dropped at the channel's receiving end in the window (lossy links).
    pub drops: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SeriesRow {
    pub class: String,
    pub bin_start_ns: f64,
    pub offered: f64,
    pub accepted: f64,
    pub packets: u64,
    pub packet_latency_mean_ns: f64,
    pub inflight_latency_mean_ns: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    /// The simulator that produced the results (`lossless_core::VERSION`, `COMMIT`).
    pub version: String,
    pub commit: String,
    pub seed: u64,
    pub sim_time_ns: f64,
    pub warmup_ns: f64,
    pub measure_ns: f64,
    pub wall_s: f64,
    pub events: u64,
    pub mechanism: String,
    /// The mechanism's own counters (marks, notifications, ...).
    pub cc: BTreeMap<String, u64>,
    pub classes: BTreeMap<String, ClassSummary>,
    /// Accepted throughput per source host id (fraction of its injection link rate).
    pub sources: BTreeMap<u32, f64>,
    pub counters: Counters,
    pub max_link_utilization: f64,
    /// Set when the watchdog stopped a deadlocked run (`sim::deadlock`): the results cover the
    /// run up to `at_ns` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadlock: Option<Deadlock>,
    /// Congested-flow isolation's counters (`input_queues = "fbicm"` or `"hfdi"`), over the
    /// whole run: hot queues allocated, allocations refused because every hot queue of the input
    /// was taken (a congested packet left among the cold ones; Paper VI's "running out of
    /// HPQs"), the inputs where that happened at least once, and the time inputs had no hot
    /// queue free (input-ns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isolation: Option<BTreeMap<String, u64>>,
    #[serde(skip)]
    pub links: Vec<LinkRow>,
    #[serde(skip)]
    pub series: Vec<SeriesRow>,
    #[serde(skip)]
    pub flows: Vec<FlowRow>,
}

pub(crate) struct Context<'a> {
    pub stats: &'a Stats,
    pub topo: &'a Topology,
    pub traffic: &'a Traffic,
    pub seed: u64,
    pub events: u64,
    pub wall_s: f64,
    pub mechanism: String,
    pub mechanism_counters: Vec<(&'static str, u64)>,
    pub queued: u64,
    pub deadlock: Option<Deadlock>,
    pub isolation: Option<BTreeMap<String, u64>>,
}

impl Summary {
    pub(crate) fn build(c: Context) -> Summary {
        let s = c.stats;
        // A run the watchdog stopped measured only up to then: rates are over the time it ran.
        let ran_to = c.deadlock.as_ref().map_or(s.end, |d| crate::time::ps_from_ns(d.at_ns)).min(s.end);
        let window = ran_to.saturating_sub(s.warmup);
        let host_rate = |h: NodeId| c.topo.channels[c.topo.host_out[h.idx()].idx()].rate;
        let frac = |bytes: u64, rates: f64, span: Time| if rates > 0.0 { bytes as f64 / (rates * span as f64 / 8.0e6) } else { 0.0 };
        // Messages generated, or for greedy classes the links' time active (docs/metrics.md).
        let offered = |bytes: u64, active_mbps_ps: u128, rates: f64, span: Time| {
            frac(bytes, rates, span) + if rates > 0.0 { active_mbps_ps as f64 / (rates * span as f64) } else { 0.0 }
        };
        let source_throughput = |h: NodeId| frac(s.source_accepted[h.idx()], host_rate(h).mbps as f64, window);
        let mut classes = BTreeMap::new();
        let mut class_rates = Vec::new();
        let unfinished = s.flows.unfinished();
        for (i, cl) in c.traffic.classes.iter().enumerate() {
            let rates: f64 = cl.sources.iter().map(|&h| host_rate(h).mbps as f64).sum();
            class_rates.push(rates);
            let st = &s.classes[i];
            let packet_latency_ns = st.total.summary();
            let marked = if packet_latency_ns.count > 0 { st.marked as f64 / packet_latency_ns.count as f64 } else { 0.0 };
            classes.insert(
                cl.name.clone(),
                ClassSummary {
                    index: i,
                    pattern: crate::config::serde_plain_pattern(cl.pattern).to_string(),
                    sources: cl.sources.len(),
                    source_ids: cl.sources.iter().map(|h| h.0).collect(),
                    offered: offered(st.offered_bytes, st.active_mbps_ps, rates, window),
                    accepted: frac(st.accepted_bytes, rates, window),
                    packet_latency_ns,
                    inflight_latency_ns: st.inflight.summary(),
                    network_latency_ns: st.network.summary(),
                    fct_ns: s.flows.fct[i].summary(),
                    slowdown: s.flows.slowdown_milli[i].summary(),
                    unfinished_messages: unfinished[i],
                    marked,
                    fairness: Fairness::of(&cl.sources.iter().map(|&h| source_throughput(h)).collect::<Vec<_>>()),
                },
            );
        }
        let mut sources = BTreeMap::new();
        for cl in &c.traffic.classes {
            for &h in &cl.sources {
                sources.insert(h.0, source_throughput(h));
            }
        }
        let links: Vec<LinkRow> = c
            .topo
            .channels
            .iter()
            .enumerate()
            .map(|(i, ch)| LinkRow {
                channel: i as u32,
                name: c.topo.channel_names[i].clone(),
                from: endpoint_name(c.topo, ch.from),
                to: endpoint_name(c.topo, ch.to),
                utilization: s.channel_bytes[i] as f64 / Rate::bytes_in(ch.rate, window),
                drops: s.channel_drops[i],
            })
            .collect();
        let n = c.traffic.classes.len();
        let mut series = Vec::new();
        for b in 0..s.end.div_ceil(s.bin) {
            let start = b * s.bin;
            let span = s.bin.min(s.end - start);
            for (i, (class, &rate)) in c.traffic.classes.iter().zip(&class_rates).enumerate() {
                // Bins are allocated as time reaches them (`Stats::bin_mut`): later ones are empty.
                let bin = s.series.get(b as usize * n + i).copied().unwrap_or_default();
                let mean = |sum: u128| if bin.packets > 0 { sum as f64 / bin.packets as f64 / 1_000.0 } else { f64::NAN };
                series.push(SeriesRow {
                    class: class.name.clone(),
                    bin_start_ns: ns_from_ps(start),
                    offered: offered(bin.offered_bytes, bin.active_mbps_ps, rate, span),
                    accepted: frac(bin.accepted_bytes, rate, span),
                    packets: bin.packets,
                    packet_latency_mean_ns: mean(bin.total_ps),
                    inflight_latency_mean_ns: mean(bin.inflight_ps),
                });
            }
        }
        let flows = s
            .flows
            .records
            .iter()
            .flatten()
            .map(|f| FlowRow {
                class: c.traffic.classes[f.class as usize].name.clone(),
                src: f.src.0,
                dst: f.dst.0,
                packets: f.packets,
                bytes: f.packets as u64 * c.traffic.classes[f.class as usize].packet_bytes as u64,
                start_ns: ns_from_ps(f.created),
                fct_ns: ns_from_ps(f.fct),
                ideal_ns: ns_from_ps(f.ideal),
                slowdown: f.fct as f64 / f.ideal as f64,
            })
            .collect();
        let k = s.counters;
        Summary {
            version: crate::VERSION.to_string(),
            commit: crate::COMMIT.to_string(),
            seed: c.seed,
            sim_time_ns: ns_from_ps(s.end),
            warmup_ns: ns_from_ps(s.warmup),
            measure_ns: ns_from_ps(window),
            wall_s: c.wall_s,
            events: c.events,
            mechanism: c.mechanism,
            cc: c.mechanism_counters.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            classes,
            sources,
            counters: Counters {
                messages: k.messages,
                generated: k.generated_packets,
                injected: k.injected,
                delivered: k.delivered,
                in_flight: k.injected - k.delivered - k.duplicates - k.dropped,
                dropped: k.dropped,
                queued: c.queued,
                control_sent: k.control_sent,
                control_delivered: k.control_delivered,
                hops: k.hops,
                retransmitted: k.retransmitted,
                duplicates: k.duplicates,
                pauses: k.pauses,
                control_dropped: k.control_dropped,
            },
            max_link_utilization: links.iter().map(|l| l.utilization).fold(0.0, f64::max),
            deadlock: c.deadlock,
            isolation: c.isolation,
            links,
            series,
            flows,
        }
    }

    /// Accepted throughput of the channel named `name` (explicit topologies' link labels get
    /// `>` for the a-to-b direction and `<` for b-to-a).
    pub fn link(&self, name: &str) -> Option<f64> {
        self.links.iter().find(|l| l.name == name).map(|l| l.utilization)
    }

    /// The summary as JSON without the run-dependent wall-clock fields, for determinism checks.
    pub fn deterministic_json(&self) -> String {
        let mut v = serde_json::to_value(self).expect("summary serializes");
        let o = v.as_object_mut().expect("summary is an object");
        o.remove("wall_s");
        serde_json::to_string(&v).expect("summary serializes")
    }
}

fn endpoint_name(topo: &Topology, e: crate::ids::Endpoint) -> String {
    match e {
        crate::ids::Endpoint::Host(h) => topo.host_names[h.idx()].clone(),
        crate::ids::Endpoint::Switch(s, p) => format!("{}:{}", topo.switches[s.idx()].name, p),
    }
}

/// What the watchdog found, as `summary.json`'s `deadlock` (docs/metrics.md).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Deadlock {
    /// When the run was stopped.
    pub at_ns: f64,
    /// The last time a packet crossed a channel.
    pub last_move_ns: f64,
    /// Data and control packets in the network (or, for control packets, waiting to enter it).
    pub in_flight: u64,
    /// Channels whose next packet waits for buffer space downstream that will not free, named
    /// as in `links.csv`.
    pub blocked: Vec<String>,
    /// A cycle among them: each channel's downstream buffer holds packets for the next one
    /// (empty if the blocked channels form no cycle, e.g. a mechanism that stopped all sources).
    pub cycle: Vec<String>,
}
