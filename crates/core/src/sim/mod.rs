//! The simulation: the network built from a config, the event loop, and the dispatch of events
//! to the switch and NIC behaviour (`switch_ops`, `nic_ops`).
//!
//! Packet timing (virtual cut-through, docs/architecture.md "Simulation model"): a head crosses a channel in
//! its latency and the tail follows one serialization time later; at a switch the head may
//! compete for the crossbar after the router latency (one event: `Event::HeadArrive`); the
//! crossbar moves it at `speedup` times the switch's fastest port rate into a per-VC output
//! buffer; the output sends it when the downstream buffer
//! has credits for the whole packet, never so early that its tail would leave before it arrived.
//! Credits return over the reverse direction once the tail has left the input buffer.
//!
//! Control packets (one flit) interleave: as with BookSim's flit-level VC arbitration, a control
//! packet does not wait for a lower-class packet to finish crossing a link or a crossbar. The
//! link stays busy longer by the control packet's serialization, so bandwidth is exact; the
//! interrupted packet's tail is not delayed by those few nanoseconds (an approximation of at most
//! one control serialization per interleaved packet).

/// A [`Ctx`] over the simulation's fields for a hook at entity `at` (`RngAt`), leaving
/// `self.mech` free to be borrowed beside it.
macro_rules! mech_ctx {
    ($s:ident, $at:expr) => {
        Ctx {
            now: $s.now,
            events: &mut $s.events,
            slab: &mut $s.slab,
            control_queues: &mut $s.control,
            control_bytes: $s.p.control_bytes,
            rngs: &mut $s.mech_rngs,
            at: $at,
            control_sent: &mut $s.stats.counters.control_sent,
            deferred: &mut $s.deferred,
            copies: &mut $s.copies,
        }
    };
}

mod barrier;
mod blocks;
mod deadlock;
mod hugepages;
mod invariants;
mod isolation;
mod lazy_link;
mod lossy;
pub mod memory;
mod nic_ops;
pub mod oom;
pub(crate) mod parallel;
pub(crate) mod partition;
mod pfc;
mod prefetch;
mod switch_ops;

use crate::cc::{Ctx, Deferred, Mechanism, RngAt, VcClass};
use crate::config::{Arbitration, Config, LinkOrder, NicArbitration, SendQueueScope};
use crate::event::{Event, Events};
use crate::stats::Deadlock;
use crate::error::{ConfigError, ConfigResult, RunError};
use crate::ids::{ClassId, Endpoint, NodeId, PortId, SwitchId, Vc};
use crate::nic::{ControlQueues, Copies, Nic, SendQueues};
use crate::packet::Slab;
use crate::rng::{stream, Family};
use crate::routing::Routing;
use crate::stats::{Flows, Stats, Summary, SummaryContext, ZeroLoad};
use crate::switch::queues::Spec;
use crate::switch::{Credits, Switch, VcSpec};
use crate::time::{ps_from_ns, Rate, Time};
use crate::topology::Topology;
use crate::traffic::{self, Traffic};
use std::collections::VecDeque;
use std::ops::ControlFlow;


/// Where a run is, for progress reports. The callback that receives it returns
/// `ControlFlow::Break(())` to stop the run (`RunError::Interrupted`).
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub now: Time,
    pub end: Time,
    pub events: u64,
}

/// What a run reports its progress to; it returns `ControlFlow::Break(())` to stop the run.
pub type OnProgress<'a> = dyn FnMut(&Progress) -> ControlFlow<()> + 'a;

/// Builds and runs the configured mechanism. A deadlocked run stops early with
/// `Summary::deadlock` set.
pub fn run(cfg: &Config, progress: &mut OnProgress) -> Result<Summary, RunError> {
    crate::with_mechanism!(cfg, m => {
        fits_in_memory(cfg, &m)?;
        match parallel::threads(cfg) {
            1 => Sim::new(cfg, m)?.run(progress),
            n => parallel::run(cfg, m, n, progress),
        }
    })?
}

/// Checks that a config builds (topology, routing, traffic, mechanism) without running it.
pub fn check(cfg: &Config) -> ConfigResult<()> {
    crate::with_mechanism!(cfg, m => {
        fits_in_memory(cfg, &m)?;
        parallel::layout(cfg, &m, parallel::threads(cfg))?;
        Sim::new(cfg, m).map(|_| ())
    })?
}

/// `cfg` with every default the file left open written out, as a run's `config.toml` records
/// it: buffer sizes (in packets, unless given in bytes), the host link rate, the mechanism's VC
/// classes and settings. It runs to the same results as `cfg`, or is the error `check` gives.
pub fn resolved_config(cfg: &Config) -> ConfigResult<Config> {
    let mut r = cfg.clone();
    let s = &mut r.switch;
    if s.input_buffer_bytes.is_none() {
        s.input_buffer_packets.get_or_insert(crate::config::DEFAULT_INPUT_BUFFER_PACKETS);
    }
    if s.output_buffer_bytes.is_none() {
        s.output_buffer_packets.get_or_insert(crate::config::DEFAULT_OUTPUT_BUFFER_PACKETS);
    }
    let link = r.topology.link_mut();
    link.host_bandwidth_gbps.get_or_insert(link.bandwidth_gbps);
    link.host_latency_ns.get_or_insert(link.latency_ns);
    let (classes, settings) = crate::with_mechanism!(cfg, m => (m.vcs().iter().map(|v| v.class).collect(), crate::cc::registry::resolved_settings(&m, cfg)))?;
    r.cc.vcs.get_or_insert(classes);
    r.cc.settings = settings?;
    r.switch.settings = Spec::of_data_vcs(&cfg.switch)?.resolved();
    r.routing.settings = Routing::resolved(&cfg.routing, &Topology::build(&cfg.topology)?)?;
    Ok(r)
}

/// The estimated peak memory of running `cfg`, in bytes (`sim::memory`).
pub fn memory_estimate(cfg: &Config) -> ConfigResult<f64> {
    crate::with_mechanism!(cfg, m => memory::estimate_bytes(cfg, m.vcs().len()))
}

/// How long no packet may cross a channel, while some are in the network, before the run is
/// declared deadlocked: `simulation.watchdog_ns` (0: never), but at least twice the longest hop
/// (a channel's latency and serialization of a data packet, plus the router latency), so that
/// a packet on a slow or long link is not taken for a stuck one.
fn watchdog_timeout(cfg: &Config, topo: &Topology) -> Time {
    let configured = ps_from_ns(cfg.simulation.watchdog_ns);
    if configured == 0 {
        return 0;
    }
    let router = ps_from_ns(cfg.switch.router_latency_ns);
    let hop = topo.channels.iter().map(|c| c.latency + c.rate.serialization(cfg.nic.data_packet_bytes) + router).max().unwrap_or(0);
    configured.max(2 * hop)
}

/// A run may take at most this share of the machine's memory; the rest is the system's.
const MEMORY_SHARE: f64 = 0.8;

/// Refuses, before building anything, a run estimated to need more memory than the machine has.
fn fits_in_memory<M: Mechanism>(cfg: &Config, mech: &M) -> ConfigResult<()> {
    let need = memory::estimate_bytes(cfg, mech.vcs().len());
    match memory::available_bytes() {
        Some((have, what)) if need > MEMORY_SHARE * have => Err(ConfigError::new(
            "topology",
            format!(
                "this run needs about {} (estimated from its hosts, switches, ports and virtual channels), more than {:.0}% of {what}, {}: simulate a smaller network",
                memory::human(need),
                MEMORY_SHARE * 100.0,
                memory::human(have)
            ),
        )),
        _ => Ok(()),
    }
}

/// The class of each of the mechanism's VCs: its own, or `cc.vcs`. The override may re-rank the
/// VCs but not merge or drop one (SRP's reservations and replies on one VC could deadlock, §3),
/// and the data VC stays `data`: its VOQs are what the mechanisms' thresholds read.
fn vc_classes<M: Mechanism>(cfg: &Config, mech: &M) -> ConfigResult<Vec<VcClass>> {
    let roles = mech.vcs();
    if roles.is_empty() {
        return Err(ConfigError::new("cc.mechanism", "the mechanism defines no virtual channel"));
    }
    let Some(classes) = &cfg.cc.vcs else { return Ok(roles.iter().map(|r| r.class).collect()) };
    let layout = || roles.iter().enumerate().map(|(i, r)| format!("{i}: {}", r.carries)).collect::<Vec<_>>().join(", ");
    if classes.len() != roles.len() {
        return Err(ConfigError::new(
            "cc.vcs",
            format!("`{}` needs {} virtual channels ({}); give one class for each, in that order (got {})", mech.name(), roles.len(), layout(), classes.len()),
        ));
    }
    let data = mech.data_vc() as usize;
    if classes[data] != VcClass::Data {
        return Err(ConfigError::new("cc.vcs", format!("VC {data} carries `{}`'s data packets and must stay \"data\" ({})", mech.name(), layout())));
    }
    Ok(classes.clone())
}

/// At most this many network VCs: [`Sim::reach`] is a bit mask of them.
const MAX_NETWORK_VCS: usize = 64;

/// Refuses a mechanism, or a mechanism and routing, whose VCs (the mechanism's, once per routing
/// phase) are more than the switch tracks, naming the key that asks for them.
fn network_vcs(mechanism: &str, mech_vcs: usize, phases: usize, algorithm: &str) -> ConfigResult<()> {
    if mech_vcs > MAX_NETWORK_VCS {
        return Err(ConfigError::new("cc.mechanism", format!("`{mechanism}` needs {mech_vcs} virtual channels here; at most {MAX_NETWORK_VCS} are supported")));
    }
    let total = mech_vcs * phases;
    if total > MAX_NETWORK_VCS {
        return Err(ConfigError::new(
            "routing.algorithm",
            format!("`{algorithm}` takes {phases} sets of the mechanism's {mech_vcs} virtual channels, {total} in all; at most {MAX_NETWORK_VCS} are supported: pick a routing with fewer phases or a mechanism with fewer VCs"),
        ));
    }
    Ok(())
}

pub(crate) struct Params {
    pub router_latency: Time,
    pub in_cap: u32,
    pub out_cap: u32,
    /// The largest data packet (`nic.data_packet_bytes`): what a buffer needs room for to take
    /// any packet.
    pub data_bytes: u32,
    /// The smallest data packet of any class (`traffic[i].packet_bytes`).
    pub min_data_bytes: u32,
    pub control_bytes: u32,
    pub oldest_first: bool,
    /// Output links send the oldest data packet of any VC after control packets
    /// (`switch.link_order = "oldest_first"`).
    pub link_oldest_first: bool,
    /// NICs keep their send queues ordered by age (`oldest_first` and `fifo`).
    pub nic_by_age: bool,
    /// ... and serve only the oldest (`fifo`).
    pub nic_fifo: bool,
    /// NICs finish a started message before serving another queue (`message_round_robin`).
    pub nic_whole_messages: bool,
    /// Every message has a send queue of its own (`nic.send_queues = "per_flow"`).
    pub queue_per_flow: bool,
    /// Some traffic class has a `rate_limit`: only then does injection look up pacing.
    pub paced: bool,
    /// Bytes of each NIC's transmit FIFO (`nic.tx_fifo_bytes`; 0: none).
    pub tx_fifo: u32,
    /// Hot-packet queues beside it (`nic.hot_queues`).
    pub nic_hot_queues: usize,
    /// A NIC's control packets wait for the tail of the data packet on its link
    /// (`nic.control_between_packets`).
    pub control_between_packets: bool,
    /// The data VCs' input organization isolates congested flows (`fbicm`, `hfdi`): only then
    /// can a change to an input have effects beyond it (`sim::isolation`).
    pub isolates: bool,
    /// Packets an input moves across the crossbar at once (`switch.read_ports`).
    pub read_ports: u8,
    /// How receivers hold back senders (`[flow_control]`).
    pub flow: FlowControl,
}

/// `[flow_control]` as the engine runs it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FlowControl {
    Credits,
    Pfc(pfc::Pfc),
    Lossy(lossy::DropTail),
}

impl FlowControl {
    /// Senders count down credits their receivers return; otherwise a sender's credit counter
    /// is `pfc::OPEN`, or 0 while paused.
    pub fn credits(self) -> bool {
        matches!(self, FlowControl::Credits)
    }
}

/// Per flow (source, destination): the latest data packet delivered (its injection order,
/// `Packet::uid`); and how many data packets arrived after a later one of their flow.
type FlowOrder = (rustc_hash::FxHashMap<(NodeId, NodeId), u64>, u64);

pub struct Sim<M: Mechanism> {
    pub(crate) mech: M,
    pub(crate) now: Time,
    pub(crate) end: Time,
    pub(crate) seed: u64,
    pub(crate) events: Events,
    pub(crate) slab: Slab<M::Header>,
    pub(crate) topo: Topology,
    pub(crate) routing: Routing,
    /// The network's VCs: the mechanism's, once per routing phase (`routing` module doc).
    pub(crate) vcs: Vec<VcSpec>,
    /// The mechanism's VCs: network VC v carries the packets of mechanism VC `v % mech_vcs`.
    pub(crate) mech_vcs: usize,
    /// Per network VC: the VCs its packets may leave a switch on (bit per VC), its own and those
    /// of the same mechanism VC in later phases.
    pub(crate) reach: Vec<u64>,
    /// VCs grouped by priority class, highest first; round-robin inside a group.
    pub(crate) vc_groups: Vec<Vec<Vc>>,
    /// When the run asks for huge pages (a split run's first partition asks for all).
    pub(crate) huge_pages: hugepages::Advisor,
    /// Whether events prefetch what the next ones touch (`sim::prefetch`): only where the
    /// state outgrows the caches (`memory::LARGE_RUN_BYTES`).
    prefetching: bool,
    /// Whether a packet's arrival also prefetches the routing's state and the output it
    /// predicts (`sim::prefetch`): only where the state outgrows the last-level cache too. A
    /// 4,096-host run (80 MiB) fits these machines' 260 MiB and gained nothing for 6% more
    /// instructions; a 65,536-host run gained about 1.12x.
    predicting: bool,
    /// The lines of a switch output its events read (`Output::read_lines`), which the
    /// prefetch asks for: every output of a run has the same VCs.
    output_lines: u8,
    pub(crate) switches: Vec<Switch>,
    pub(crate) nics: Vec<Nic>,
    pub(crate) control: ControlQueues,
    pub(crate) qps: SendQueues<M::Header>,
    pub(crate) traffic: Traffic,
    pub(crate) stats: Stats,
    pub(crate) mech_rngs: crate::cc::Streams,
    /// Actions hooks asked for, carried out after the current event.
    pub(crate) deferred: Vec<Deferred<M::Header>>,
    /// Data packets that may be delivered twice.
    pub(crate) copies: Copies,
    /// Reused buffer for the contents handed to `Mechanism::on_input_full`.
    pub(crate) scratch: Vec<(u64, PortId)>,
    /// What an isolating input's last change asks (`isolation::isolation_effects`), reused.
    effects: Vec<crate::switch::queues::isolation::Effect>,
    /// The destinations of line allocations travelling upstream (`Event::Isolation`'s `dests`),
    /// and the free slots.
    line_dests: Vec<Vec<crate::ids::NodeId>>,
    free_line_dests: Vec<u32>,
    pub(crate) watchdog: deadlock::Watchdog,
    /// Set when the watchdog stopped the run.
    pub(crate) deadlock: Option<Deadlock>,
    /// Kept only once `track_order` asked for it.
    order: Option<FlowOrder>,
    /// Under PFC, per channel and VC: who holds whom paused (`pfc`).
    pub(crate) pfc: Vec<pfc::PfcVc>,
    pub(crate) p: Params,
    /// In a run split over threads: this partition, and what it sends the others.
    pub(crate) part: Option<partition::Part<M::Header>>,
    /// In a run served block by block (`sim::blocks`): the blocks (in a split run, those of
    /// the whole division, of which this partition's get events).
    blocks: Option<blocks::Blocks<M::Header>>,
}

impl<M: Mechanism> Sim<M> {
    /// Whether the switches count their virtual output queues' bytes (`Switch::voq_row`):
    /// only for mechanisms that read them.
    const COUNTS_VOQS: bool = M::HOOKS.voq_detail || M::HOOKS.switch_arrival;

    pub fn new(cfg: &Config, mech: M) -> ConfigResult<Sim<M>> {
        Sim::build(cfg, mech, None)
    }

    /// The simulation of `cfg`, or of partition `part` of it: then only the partition's traffic
    /// sources start.
    pub(crate) fn build(cfg: &Config, mech: M, part: Option<partition::Part<M::Header>>) -> ConfigResult<Sim<M>> {
        const { assert!(std::mem::size_of::<M::Header>() <= crate::cc::MAX_HEADER_BYTES, "a mechanism's header may take at most MAX_HEADER_BYTES") };
        let topo = Topology::build(&cfg.topology)?;
        let routing = Routing::build(&cfg.routing, &topo)?;
        let warmup = ps_from_ns(cfg.simulation.warmup_ns);
        let end = warmup + ps_from_ns(cfg.simulation.measure_ns);
        let traffic = traffic::resolve(cfg, &topo, end)?;
        let classes = vc_classes(cfg, &mech)?;
        let phases = Routing::phases(&cfg.routing, &cfg.topology) as usize;
        network_vcs(mech.name(), classes.len(), phases, &cfg.routing.algorithm)?;
        if M::STATE_PER_DESTINATION_QUEUE && cfg.nic.send_queues == SendQueueScope::PerFlow {
            return Err(ConfigError::new(
                "nic.send_queues",
                format!(
                    "`per_flow` gives every message a queue of its own, but {} keeps a queue's state across its messages: use `per_destination`",
                    mech.name()
                ),
            ));
        }
        if let Some(i) = cfg.traffic.iter().position(|t| M::TIMES_PACKETS_AT_MTU && t.packet_bytes.is_some_and(|b| b != cfg.nic.data_packet_bytes)) {
            return Err(ConfigError::new(
                format!("traffic[{i}].packet_bytes"),
                format!(
                    "{} times messages in packets of nic.data_packet_bytes ({}): remove packet_bytes, or set nic.data_packet_bytes instead",
                    mech.name(),
                    cfg.nic.data_packet_bytes
                ),
            ));
        }
        if M::HOOKS.inject_gate && !M::GATE_ONLY_READS && cfg.nic.tx_fifo_bytes > 0 {
            return Err(ConfigError::new(
                "nic.tx_fifo_bytes",
                format!("{} decides as a packet takes the link (its gate sends control packets or picks the VC by what is free); it cannot sit behind a transmit FIFO: set 0", mech.name()),
            ));
        }
        let data_queue = Spec::of_data_vcs(&cfg.switch)?;
        if cfg.nic.hot_queues > 0 && !data_queue.isolates() {
            return Err(ConfigError::new(
                "nic.hot_queues",
                format!(
                    "`{}` sends no lines down to the NICs: hot-packet queues need switch.input_queues = \"hfdi\" or \"fbicm\", or set 0",
                    cfg.switch.input_queues
                ),
            ));
        }
        let vcs: Vec<VcSpec> = (0..phases)
            .flat_map(|_| classes.iter().map(|&class| VcSpec { class, queue: if class == VcClass::Data { data_queue.clone() } else { Spec::fifo() } }))
            .collect();
        let in_cap = cfg.switch.input_buffer_bytes(&cfg.nic);
        let out_cap = cfg.switch.output_buffer_bytes(&cfg.nic);
        let seed = cfg.simulation.seed;
        let (nv, mech_vcs) = (vcs.len(), classes.len());
        let estimate = memory::estimate_bytes(cfg, mech_vcs);
        let large = estimate >= memory::LARGE_RUN_BYTES;
        let flow = match (pfc::Pfc::for_network(cfg, &topo, in_cap)?, lossy::DropTail::for_network(cfg, in_cap)?) {
            (Some(p), _) => FlowControl::Pfc(p),
            (_, Some(d)) => FlowControl::Lossy(d),
            _ => FlowControl::Credits,
        };
        if data_queue.divided() {
            // The setting that divides the buffers, and how to undo it.
            let (key, undo) = match data_queue {
                Spec::VoqNet(_) => ("switch.input_queues", "choose another organization"),
                _ => ("switch.voq.per_output_buffers", "set it to false"),
            };
            if !flow.credits() {
                return Err(ConfigError::new(
                    key,
                    format!("credits per downstream buffer need credit flow control: {undo}, or flow_control.kind = \"credits\""),
                ));
            }
            if M::HOOKS.input_full {
                return Err(ConfigError::new(
                    key,
                    format!("`{}` reacts to a whole input buffer filling, which divided buffers do not have: {undo}", mech.name()),
                ));
            }
        }
        if let Spec::VoqNet(q) = &data_queue {
            if q.queue_bytes < cfg.nic.data_packet_bytes {
                return Err(ConfigError::new(
                    "switch.voqnet.queue_bytes",
                    format!(
                        "a destination's buffer must take a whole packet: at least nic.data_packet_bytes ({}), got {}",
                        cfg.nic.data_packet_bytes, q.queue_bytes
                    ),
                ));
            }
        }
        // Congested-flow isolation: which organization, and the occupancies its thresholds need.
        let isolation = match &data_queue {
            Spec::Fbicm(q) => Some(("fbicm", vec![("switch.fbicm.detect_bytes", q.detect_bytes), ("switch.fbicm.stop_bytes", q.stop_bytes)])),
            Spec::Hfdi(q) => Some(("hfdi", vec![("switch.hfdi.hth_bytes", q.hth_bytes)])),
            _ => None,
        };
        if let Some((name, thresholds)) = isolation {
            let refuse = |why: String| Err(ConfigError::new("switch.input_queues", format!("`{name}` {why}")));
            if !flow.credits() {
                return refuse("holds a congested destination's packets upstream with Stop & Go beside credits: set flow_control.kind = \"credits\"".into());
            }
            if phases > 1 {
                return refuse(format!(
                    "names a congested flow by its destinations on one VC, and `{}` moves packets to another VC along the route: choose a routing with one VC set (e.g. a fat tree's nca or dmodk)",
                    cfg.routing.algorithm
                ));
            }
            for (key, bytes) in thresholds {
                if bytes >= in_cap {
                    return Err(ConfigError::new(
                        key,
                        format!("{bytes} is not below the input buffer ({in_cap} bytes, switch.input_buffer_*), which never holds that much: lower it or enlarge the buffer"),
                    ));
                }
            }
            if M::HOOKS.queue_head || M::HOOKS.request {
                return refuse(format!(
                    "moves packets between an input's queues, which `{}` watches packet by packet at the queue heads: choose another organization",
                    mech.name()
                ));
            }
        }
        let neighbour = |node: &crate::topology::SwitchNode, p: PortId| match topo.channels[node.ports[p.idx()].out.idx()].to {
            Endpoint::Switch(n, _) => Some(topo.switches[n.idx()].ports.len()),
            Endpoint::Host(_) => None,
        };
        let links = |node: &crate::topology::SwitchNode, p: PortId| {
            let (inp, out) = (node.ports[p.idx()].inp, node.ports[p.idx()].out);
            let c = &topo.channels[out.idx()];
            (
                crate::switch::InLink { ch: inp, latency: topo.channels[inp.idx()].latency, home: 0 },
                crate::switch::OutLink { ch: out, rate: c.rate, latency: c.latency, to_host: matches!(c.to, Endpoint::Host(_)), home: 0 },
            )
        };
        let mut switches: Vec<Switch> = topo
            .switches
            .iter()
            .enumerate()
            .map(|(s, node)| {
                // A partition's other switches never get an event: they stay without ports.
                let ports = if part.as_ref().is_none_or(|p| p.owns_switch(SwitchId::new(s))) { node.ports.len() } else { 0 };
                // The crossbar runs at `speedup` times the fastest port, for every output: with
                // mixed link rates (the thesis' testbed) a slow input must not throttle a fast link.
                let fastest = node.ports.iter().map(|p| topo.channels[p.out.idx()].rate).max().unwrap_or(Rate { mbps: 0 });
                Switch::new(
                    ports,
                    topo.hosts(),
                    &vcs,
                    in_cap,
                    // Validated: an output buffer holds a data packet, so a control packet.
                    out_cap - cfg.nic.control_packet_bytes,
                    |p| links(node, p),
                    fastest.scaled(cfg.switch.speedup),
                    |p| neighbour(node, p),
                    Self::COUNTS_VOQS,
                    stream(seed, Family::Switch, s as u64),
                )
            })
            .collect();
        // A NIC's credits for each VC of its switch's input, divided as that input is.
        let nic_credits: Vec<Credits> = vcs
            .iter()
            .map(|v| {
                let pooling = v.queue.pooling(false);
                let (own, capacity) = v.queue.buffers(pooling, 0, topo.hosts(), in_cap);
                Credits::new(pooling, own.max(1), capacity)
            })
            .collect();
        let mut nics: Vec<Nic> = (0..topo.hosts()).map(|h| Nic::new(topo.host_out[h], topo.host_in[h], nic_credits.clone(), topo.hosts())).collect();
        // Where a message may wait outside its send queue unseen (`nic_ops::enqueue`): oldest
        // first puts every queue of an earlier message ahead of it; a greedy source refills
        // its queue as it sends, and a mechanism with `Hooks::message` sees each arrival.
        if cfg.nic.arbitration == NicArbitration::OldestFirst && cfg.nic.send_queues != SendQueueScope::PerFlow && !M::HOOKS.message {
            for nic in &mut nics {
                nic.defers = true;
            }
            for src in traffic.sources.iter().filter(|s| traffic.classes[s.class as usize].greedy) {
                nics[src.node.idx()].defers = false;
            }
        }
        // Under PFC a sender's credits only say whether it is paused; lossy senders never wait.
        if !flow.credits() {
            let outputs = switches.iter_mut().flat_map(|s| s.outputs.iter_mut()).flat_map(|o| o.vcs.iter_mut()).map(|v| &mut v.credits);
            for c in outputs.chain(nics.iter_mut().flat_map(|n| n.credits.iter_mut())) {
                c.set_shared(pfc::OPEN);
            }
        }
        let mut vc_groups = Vec::new();
        for class in [VcClass::Control, VcClass::Data, VcClass::Low] {
            let g: Vec<Vc> = (0..nv).filter(|&v| vcs[v].class == class).map(|v| v as Vc).collect();
            if !g.is_empty() {
                vc_groups.push(g);
            }
        }
        let mut stats = Stats::new(
            warmup,
            end,
            ps_from_ns(cfg.simulation.bin_ns).max(1),
            traffic.classes.iter().map(|c| c.greedy).collect(),
            topo.hosts(),
            topo.channels.len(),
            Flows::new(traffic.classes.len(), ZeroLoad::new(&topo, ps_from_ns(cfg.switch.router_latency_ns)), cfg.simulation.record_flows),
        );
        // Greedy classes without ON-OFF periods send from start to stop (ON periods are counted
        // as they open, `nic_ops::arrival`).
        let ours = |h: NodeId| part.as_ref().is_none_or(|p| p.owns_host(h));
        for (i, c) in traffic.classes.iter().enumerate().filter(|(_, c)| c.greedy && c.on_off.is_none() && c.pattern != crate::config::Pattern::Burst) {
            let mbps = c.sources.iter().filter(|&&h| ours(h)).map(|&h| topo.channels[topo.host_out[h.idx()].idx()].rate.mbps).sum();
            stats.active(i as ClassId, mbps, c.start, c.stop);
        }
        let min_data_bytes = traffic.classes.iter().map(|c| c.packet_bytes).min().unwrap_or(cfg.nic.data_packet_bytes);
        let mut sim = Sim {
            mech,
            now: 0,
            end,
            seed,
            events: Events::new(large),
            slab: Slab::default(),
            control: vec![VecDeque::new(); topo.hosts()],
            routing,
            reach: (0..nv).map(|v| (v / mech_vcs..phases).fold(0, |mask, phase| mask | 1 << (phase * mech_vcs + v % mech_vcs))).collect(),
            mech_vcs,
            vcs,
            vc_groups,
            huge_pages: hugepages::Advisor::new(estimate),
            prefetching: large,
            output_lines: switches.iter().find_map(|sw| sw.outputs.first()).map_or(0, crate::switch::Output::read_lines),
            predicting: large && memory::last_level_cache_bytes().is_none_or(|llc| estimate > llc),
            switches,
            nics,
            qps: SendQueues::default(),
            traffic,
            stats,
            mech_rngs: crate::cc::Streams::new(seed),
            deferred: Vec::new(),
            copies: Copies::new(part.as_ref().map(|p| p.copies_away())),
            scratch: Vec::new(),
            effects: Vec::new(),
            line_dests: Vec::new(),
            free_line_dests: Vec::new(),
            watchdog: deadlock::Watchdog::new(watchdog_timeout(cfg, &topo)),
            deadlock: None,
            order: None,
            pfc: vec![pfc::PfcVc::default(); if matches!(flow, FlowControl::Pfc(_)) { topo.channels.len() * nv } else { 0 }],
            p: Params {
                router_latency: ps_from_ns(cfg.switch.router_latency_ns),
                in_cap,
                out_cap,
                data_bytes: cfg.nic.data_packet_bytes,
                min_data_bytes,
                control_bytes: cfg.nic.control_packet_bytes,
                oldest_first: cfg.switch.arbitration == Arbitration::OldestFirst,
                link_oldest_first: cfg.switch.link_order == LinkOrder::OldestFirst,
                nic_by_age: matches!(cfg.nic.arbitration, NicArbitration::OldestFirst | NicArbitration::Fifo),
                nic_fifo: cfg.nic.arbitration == NicArbitration::Fifo,
                nic_whole_messages: cfg.nic.arbitration == NicArbitration::MessageRoundRobin,
                queue_per_flow: cfg.nic.send_queues == SendQueueScope::PerFlow,
                paced: cfg.traffic.iter().any(|t| t.rate_limit.is_some()),
                tx_fifo: cfg.nic.tx_fifo_bytes,
                nic_hot_queues: cfg.nic.hot_queues as usize,
                control_between_packets: cfg.nic.control_between_packets,
                isolates: data_queue.isolates(),
                read_ports: cfg.switch.read_ports as u8,
                flow,
            },
            topo,
            part,
            blocks: None,
        };
        for s in 0..sim.traffic.sources.len() {
            let node = sim.traffic.sources[s].node;
            if sim.part.as_ref().is_some_and(|p| !p.owns_host(node)) {
                continue;
            }
            if let Some(t) = sim.traffic.first(s) {
                sim.events.push(t, Event::Arrival { source: s as u32 });
            }
        }
        if let Some(p) = &sim.part {
            for sw in sim.switches.iter_mut() {
                sw.set_homes(&p.layout);
            }
        }
        let threads = sim.part.as_ref().map_or(1, |p| p.layout.parts);
        if let Some(layout) = blocks::layout::<M>(cfg, &sim.topo, estimate, threads)? {
            sim.divide(layout);
        }
        Ok(sim)
    }

    /// Runs to the end of the measurement window, or to a deadlock, and summarizes.
    pub fn run(mut self, progress: &mut OnProgress) -> Result<Summary, RunError> {
        let wall = std::time::Instant::now();
        let ran = self.run_until(self.end, progress);
        // Tests run with debug assertions: every run of theirs checks the invariants where it
        // stopped, between two events, at its end or interrupted (split runs check at their end,
        // `parallel::run`).
        if cfg!(debug_assertions) {
            if let Err(e) = self.check_invariants() {
                panic!("invariant violated: {e}");
            }
        }
        ran?;
        Ok(self.summary(wall.elapsed().as_secs_f64()))
    }

    /// Processes every event before `until`: a window of a split run (`parallel`), which
    /// reports progress and watches for deadlocks between windows.
    fn run_window(&mut self, until: Time) {
        if self.blocks.is_some() {
            return self.run_in_blocks(until);
        }
        while let Some((t, ev)) = self.events.pop_before(until) {
            self.step(t, ev);
        }
    }

    /// Runs event `ev`, due at `t`, and the actions its hooks deferred.
    #[inline(always)]
    fn step(&mut self, t: Time, ev: Event) {
        self.now = t;
        if self.prefetching {
            self.prefetch_next();
        }
        self.dispatch(ev);
        if !self.deferred.is_empty() {
            self.run_deferred();
        }
    }

    /// Processes every event before `until`, unless the watchdog finds a deadlock first (then
    /// `deadlock()` says what and the time stays where it stopped) or `progress` breaks.
    pub fn run_until(&mut self, until: Time, progress: &mut OnProgress) -> Result<(), RunError> {
        let ran = self.advance(until, progress);
        self.order_records();
        ran
    }

    /// `run_until`'s loop, event by event or window by window in blocks.
    fn advance(&mut self, until: Time, progress: &mut OnProgress) -> Result<(), RunError> {
        loop {
            // The watchdog looks before the first event at or after its check time runs.
            let bound = until.min(self.watchdog.next_check);
            if self.blocks.is_some() {
                while let Some(start) = self.next_time().filter(|&t| t < bound) {
                    let before = self.processed();
                    self.run_block_window(start, bound);
                    // Reported as the plain loop does: each time another 65,536 events ran.
                    let events = self.processed();
                    if events >> 16 != before >> 16 {
                        let at = Progress { now: self.now, end: self.end, events };
                        self.huge_pages.tick(&at);
                        if progress(&at).is_break() {
                            return Err(RunError::Interrupted);
                        }
                    }
                }
            } else {
                while let Some((t, ev)) = self.events.pop_before(bound) {
                    self.step(t, ev);
                    if self.events.processed() & 0xFFFF == 0 {
                        let at = Progress { now: self.now, end: self.end, events: self.events.processed() };
                        self.huge_pages.tick(&at);
                        if progress(&at).is_break() {
                            return Err(RunError::Interrupted);
                        }
                    }
                }
            }
            match self.next_time() {
                Some(t) if t < until => {
                    self.now = t;
                    self.deadlock = self.watch(false);
                    if self.deadlock.is_some() {
                        return Ok(());
                    }
                }
                _ => break,
            }
        }
        // With no event left before `until`, packets still inside never will move.
        self.deadlock = self.watch(self.drained());
        if self.deadlock.is_none() {
            self.now = until;
        }
        Ok(())
    }

    /// What the watchdog found, if it stopped the run.
    pub fn deadlock(&self) -> Option<&Deadlock> {
        self.deadlock.as_ref()
    }

    /// From now on, counts data packets delivered after a later packet of their flow (source,
    /// destination): `reordered`. Off by default, as it keeps a counter per flow.
    pub fn track_order(&mut self) {
        self.order.get_or_insert_with(Default::default);
    }

    /// Data packets delivered out of their flow's order since `track_order` (0 if not tracked).
    pub fn reordered(&self) -> u64 {
        self.order.as_ref().map_or(0, |(_, n)| *n)
    }

    fn run_deferred(&mut self) {
        // Actions may defer further actions: take the list each round.
        while !self.deferred.is_empty() {
            for action in std::mem::take(&mut self.deferred) {
                match action {
                    Deferred::SwitchControl { sw, pkt } => self.local_inject(sw, pkt),
                    Deferred::Retransmit { node, qp, pkt } => self.requeue(node, qp, pkt),
                    Deferred::OfferRelease { node, qp } => self.offer_release(node, qp),
                }
            }
        }
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Pause { ch, vc, quanta } => self.pause_arrived(ch, vc, quanta),
            Event::PauseEnd { ch, vc } => self.pause_end(ch, vc),
            Event::PauseRefresh { ch, vc } => self.pause_refresh(ch, vc),
            Event::Credit { ch, vc, pool, bytes } => match self.topo.channels[ch.idx()].from {
                Endpoint::Host(n) => {
                    self.nics[n.idx()].credits[vc as usize].give(pool as usize, bytes);
                    self.try_inject(n);
                }
                Endpoint::Switch(s, p) => {
                    let ovc = &mut self.switches[s.idx()].outputs[p.idx()].vcs[vc as usize];
                    ovc.credits.give(pool as usize, bytes);
                    // Divided buffers: credits are taken at the crossbar, where a packet may wait for them.
                    if ovc.pooled() {
                        self.try_allocate(s, p);
                    }
                    self.try_link(s, p);
                }
            },
            Event::LinkFree { ch } => match self.topo.channels[ch.idx()].from {
                Endpoint::Host(n) => {
                    let nic = &mut self.nics[n.idx()];
                    if nic.stretch > 0 {
                        let extra = std::mem::take(&mut nic.stretch);
                        self.events.push(self.now + extra, Event::LinkFree { ch });
                        return;
                    }
                    nic.link_busy = false;
                    self.try_inject(n);
                }
                Endpoint::Switch(s, p) => self.link_free(s, p),
            },
            Event::Isolation { ch, vc, line, signal, dests } => self.isolation_signal(ch, vc, line, signal, dests),
            Event::XbarDone { sw, inp, out, vc, bytes, occupied } => self.xbar_done(sw, inp, out, vc, bytes, occupied),
            Event::HeadArrive { ch, pkt } => self.head_arrive(ch, pkt),
            Event::TailIn { sw, port, vc } => self.tail_in(sw, port, vc),
            Event::HeadCheck { sw, port, pkt, generation } => self.head_check(sw, port, pkt, generation),
            Event::Deliver { ch, pkt } => self.deliver(ch, pkt),
            Event::NicWake { node } => {
                let nic = &mut self.nics[node.idx()];
                if nic.wake_at.is_some_and(|t| t <= self.now) {
                    nic.wake_at = None;
                }
                self.try_inject(node);
            }
            Event::Arrival { source } => self.arrival(source as usize),
            Event::Timer { token } => {
                let mut ctx = mech_ctx!(self, RngAt::Timer);
                self.mech.on_timer(&mut ctx, token);
            }
        }
    }

    /// The mechanism, for its own counters and state after a run.
    pub fn mechanism(&self) -> &M {
        &self.mech
    }

    /// End of the measurement window.
    pub fn end(&self) -> Time {
        self.end
    }

    /// The results so far; `wall_s` is reported as the run's wall-clock time.
    pub fn summary(&self, wall_s: f64) -> Summary {
        self.summary_of(wall_s, self.processed(), self.mech.counters(), self.queued_packets(), self.isolation_counters())
    }

    /// Data packets of messages still waiting in send queues, or to be put in them.
    fn queued_packets(&self) -> u64 {
        let queued: u64 = self.qps.slots.iter().flat_map(|q| q.messages.iter()).map(|m| (m.packets - m.sent) as u64).sum();
        queued + self.nics.iter().flat_map(|n| n.unqueued.iter()).map(|w| w.packets as u64).sum::<u64>()
    }

    /// The summary of this simulation's statistics with the run-wide figures given (a split run
    /// adds its partitions' up, `parallel`).
    fn summary_of(
        &self,
        wall_s: f64,
        events: u64,
        mechanism_counters: Vec<(&'static str, u64)>,
        queued: u64,
        isolation: Option<isolation::IsolationCounters>,
    ) -> Summary {
        Summary::build(SummaryContext {
            stats: &self.stats,
            topo: &self.topo,
            traffic: &self.traffic,
            seed: self.seed,
            events,
            wall_s,
            mechanism: self.mech.name().to_string(),
            mechanism_counters,
            queued,
            deadlock: self.deadlock.clone(),
            isolation: isolation.map(isolation::IsolationCounters::table),
        })
    }
}
