//! The typed configuration. Every default names its source.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub simulation: SimulationConfig,
    pub topology: TopologyConfig,
    #[serde(default)]
    pub routing: RoutingConfig,
    #[serde(default)]
    pub switch: SwitchConfig,
    #[serde(default)]
    pub nic: NicConfig,
    #[serde(default)]
    pub flow_control: FlowControlConfig,
    #[serde(default)]
    pub cc: CcConfig,
    #[serde(default)]
    pub traffic: Vec<TrafficConfig>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SimulationConfig {
    /// Seed of every random stream in the run.
    pub seed: u64,
    /// Time before measurement starts; statistics ignore it.
    pub warmup_ns: f64,
    /// Length of the measurement window; the run ends at `warmup_ns + measure_ns`.
    pub measure_ns: f64,
    /// Width of the time-series bins (covering the whole run, warm-up included).
    pub bin_ns: f64,
    /// Cycle length of the time base that Bernoulli arrivals use: 1 ns, the SRP paper's 1 GHz
    /// routers (§4).
    pub cycle_ns: f64,
    /// The run stops as deadlocked when packets are in the network and none has crossed a
    /// channel for this long (at least twice the longest hop); 0 turns the watchdog off. Our
    /// choice, as no paper gives one: 1 ms, about 4,900 packet times on the SRP reference
    /// network, where even a saturated hot spot moves a packet every 205 ns.
    pub watchdog_ns: f64,
    /// Keep a row per completed message (`flows.csv`, Python's `Result.flows`): for
    /// flow-completion studies; off, a run keeps only each class's FCT and slowdown
    /// distributions.
    pub record_flows: bool,
    /// Threads one run uses (0: one per core). Results are identical for every count; more
    /// threads only run a large network sooner. Default 1: sweeps and reproductions already run
    /// one configuration per core.
    pub threads: u32,
    /// How a run on several threads divides the network among them (`sim::partition`).
    pub partition: Partitioner,
    /// Blocks a one-thread run serves one after another in each window (`sim::blocks`); 0:
    /// chosen from the run's size, 1: none. Results are identical for every count.
    pub blocks: u32,
}

impl Default for SimulationConfig {
    fn default() -> Self {
        SimulationConfig {
            seed: 1,
            warmup_ns: 20_000.0,
            measure_ns: 100_000.0,
            bin_ns: 1_000.0,
            cycle_ns: 1.0,
            watchdog_ns: 1_000_000.0,
            record_flows: false,
            threads: 1,
            partition: Partitioner::Linear,
            blocks: 0,
        }
    }
}

/// How a run split over threads assigns switches, each with its hosts, to threads (SST's
/// partitioner names).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Partitioner {
    /// Each tree level's switches in contiguous blocks, one per thread: pods of a fat tree,
    /// groups of a dragonfly or flattened butterfly stay together.
    #[default]
    Linear,
    /// Switches dealt to threads in turn: every channel between switches crosses threads (for
    /// checking that the division never changes results).
    RoundRobin,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[strum(serialize_all = "snake_case")]
pub enum TopologyConfig {
    /// k-ary n-tree (Petrini & Vanneschi): k^n hosts, n levels of k^(n-1) switches with 2k ports
    /// (the top level uses only its k down ports). The SRP reference network is the 16-ary 2-tree.
    KaryNtree {
        k: u32,
        n: u32,
        #[serde(flatten)]
        link: LinkConfig,
    },
    /// Two-level folded Clos: `leaves` leaf switches with `hosts_per_leaf` hosts each, and
    /// `spines` spine switches, one link from every leaf to every spine. The thesis' 648-node
    /// fat tree (Paper IV) is 36 leaves x 18 hosts with 18 spines of 36 ports.
    FatTree2 {
        leaves: u32,
        hosts_per_leaf: u32,
        spines: u32,
        #[serde(flatten)]
        link: LinkConfig,
    },
    /// Flattened butterfly (Kim, Dally and Abts, ISCA 2007): `routers_per_dim`^`dims` routers,
    /// each linked to every other router that differs from it in one coordinate, with
    /// `concentration` hosts each. The CBCM paper's networks are 1D, 4 x 4 (16 hosts) and
    /// 16 x 16 (256), and 2D, 8 x 8 routers of 8 hosts (512, radix 22) (CBCM paper §V).
    FlattenedButterfly {
        routers_per_dim: u32,
        dims: u32,
        concentration: u32,
        #[serde(flatten)]
        link: LinkConfig,
    },
    /// Balanced dragonfly (Kim, Dally, Scott and Abts, ISCA 2008): groups of
    /// `routers_per_group` (a) routers, each with `hosts_per_router` (p) hosts, linked to every
    /// other router of its group and by `global_per_router` (h) global channels to routers of
    /// other groups: a x h + 1 groups, each pair joined by one global channel. Global channels
    /// take `global_latency_ns` (default `latency_ns`), local ones `latency_ns`.
    Dragonfly {
        hosts_per_router: u32,
        routers_per_group: u32,
        global_per_router: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        global_latency_ns: Option<f64>,
        #[serde(flatten)]
        link: LinkConfig,
    },
    /// Hosts, switches and links written out, for the papers' small scenarios.
    Explicit {
        hosts: Vec<String>,
        switches: Vec<String>,
        links: Vec<ExplicitLink>,
        #[serde(flatten)]
        link: LinkConfig,
    },
}

impl TopologyConfig {
    pub fn link(&self) -> &LinkConfig {
        match self {
            TopologyConfig::KaryNtree { link, .. }
            | TopologyConfig::FatTree2 { link, .. }
            | TopologyConfig::FlattenedButterfly { link, .. }
            | TopologyConfig::Dragonfly { link, .. }
            | TopologyConfig::Explicit { link, .. } => link,
        }
    }

    pub fn link_mut(&mut self) -> &mut LinkConfig {
        match self {
            TopologyConfig::KaryNtree { link, .. }
            | TopologyConfig::FatTree2 { link, .. }
            | TopologyConfig::FlattenedButterfly { link, .. }
            | TopologyConfig::Dragonfly { link, .. }
            | TopologyConfig::Explicit { link, .. } => link,
        }
    }
}

/// Default channel parameters, used by every link that does not set its own.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// SRP paper §4: every channel, injection and ejection included, is 10 Gb/s.
    #[serde(default = "default_bandwidth_gbps")]
    pub bandwidth_gbps: f64,
    /// SRP paper §4: every channel has 32 ns latency.
    #[serde(default = "default_latency_ns")]
    pub latency_ns: f64,
    /// Rate of the links between hosts and switches, if not `bandwidth_gbps`: hosts that
    /// cannot use their whole link, as the thesis' PCIe-limited hosts (about 13 Gb/s injected
    /// [Paper III §V-A], 13.5 in Paper IV §V-A). Caps injection and reception alike.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_bandwidth_gbps: Option<f64>,
    /// Latency of the links between hosts and switches, if not `latency_ns`: BookSim's
    /// injection and ejection channels take one cycle while the CBCM paper's inter-router
    /// channels take 100 (§V).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_latency_ns: Option<f64>,
}

impl LinkConfig {
    /// Bandwidth of host links (Gb/s).
    pub fn host_gbps(&self) -> f64 {
        self.host_bandwidth_gbps.unwrap_or(self.bandwidth_gbps)
    }

    /// Latency of host links (ns).
    pub fn host_latency(&self) -> f64 {
        self.host_latency_ns.unwrap_or(self.latency_ns)
    }
}

fn default_bandwidth_gbps() -> f64 {
    10.0
}
fn default_latency_ns() -> f64 {
    32.0
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig { bandwidth_gbps: default_bandwidth_gbps(), latency_ns: default_latency_ns(), host_bandwidth_gbps: None, host_latency_ns: None }
    }
}

/// A bidirectional link between two named hosts or switches. A switch's ports are numbered in
/// the order its links appear.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExplicitLink {
    pub a: String,
    pub b: String,
    /// Optional label (e.g. `L0`); link utilization is reported under it.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub bandwidth_gbps: Option<f64>,
    #[serde(default)]
    pub latency_ns: Option<f64>,
}

/// `[routing]`. The algorithm's settings, `[routing.NAME]`, are its own (`routing` types and
/// checks them when the network is built): kept here as a table.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct RoutingConfig {
    /// A routing algorithm in `routing` (`lossless list`), or `auto`: `nca` on trees (SRP paper
    /// §4), `shortest_path` on other topologies.
    pub algorithm: String,
    /// Simulate routes whose channel dependencies form a cycle, which are otherwise refused as
    /// able to deadlock: for studying deadlock itself (the watchdog, `simulation.watchdog_ns`,
    /// stops such a run when it locks).
    pub allow_deadlock: bool,
    /// `[routing.NAME]`: the settings of algorithm NAME, which must be the selected one.
    #[serde(flatten)]
    pub settings: toml::Table,
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig { algorithm: "auto".into(), allow_deadlock: false, settings: toml::Table::new() }
    }
}

/// `[switch]`. The input-queue organization's settings, `[switch.NAME]`, are its own
/// (`switch::queues` types and checks them when the network is built): kept here as a table.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct SwitchConfig {
    /// Zero-load latency from a head arriving at an input to it leaving the output: 26 ns
    /// (SRP paper §4, after [24]).
    pub router_latency_ns: f64,
    /// Crossbar speedup over the channel rate: 2x (SRP paper §4).
    pub speedup: f64,
    /// Packets an input sends across the crossbar at once, each to another output: 1, one
    /// read port per input memory (the SRP paper's switches, §4, and the thesis' IQ switches,
    /// Paper V §2.1). The thesis' Paper VI switches give each virtual output queue a read port
    /// of its own (§3.2: "several VOQs of the same input can send through the crossbar in
    /// parallel"): as many as the switch has ports.
    pub read_ports: u32,
    /// Input buffer per port and VC, in data packets: 16 (SRP paper §4). Exclusive with
    /// `input_buffer_bytes`.
    pub input_buffer_packets: Option<u32>,
    pub input_buffer_bytes: Option<u32>,
    /// Output buffer per port and VC, in data packets: 4 (SRP paper §4).
    pub output_buffer_packets: Option<u32>,
    pub output_buffer_bytes: Option<u32>,
    /// How the data VCs' input buffers queue packets: an organization in `switch::queues`
    /// (`lossless list`). `voq`, virtual output queues: SRP paper §4 (VOQ on the data VC, FIFO
    /// on the others).
    pub input_queues: String,
    /// Which requesting input an output serves: `round_robin` per input port (SRP paper §2,
    /// thesis Paper II) or `oldest_first` by arrival at the switch (Santos et al. footnote 6's
    /// FIFO scheduling).
    pub arbitration: Arbitration,
    /// Which packet of an output's buffer its link sends next: `by_class`, VC classes in
    /// priority order (SRP paper §4: control above data above SRP's speculative VC), or
    /// `oldest_first`, control packets first and then the packet that reached the buffer
    /// first, whatever its VC (the SRP authors' BookSim output buffer).
    pub link_order: LinkOrder,
    /// `[switch.NAME]`: the settings of organization NAME, which must be the selected one.
    #[serde(flatten)]
    pub settings: toml::Table,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Arbitration {
    /// Round-robin over the requesters (SRP paper §2 and §4, thesis Paper II).
    #[default]
    RoundRobin,
    /// The oldest requester first (Santos et al. footnote 6; the thesis' HCAs, Paper IV).
    OldestFirst,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum LinkOrder {
    /// VC classes in priority order, the VCs of a class in turn (SRP paper §4).
    #[default]
    ByClass,
    /// Control packets first, then the oldest packet in the output buffer of any VC (the SRP
    /// authors' BookSim).
    OldestFirst,
}

impl Default for SwitchConfig {
    fn default() -> Self {
        SwitchConfig {
            router_latency_ns: 26.0,
            speedup: 2.0,
            read_ports: 1,
            input_buffer_packets: None,
            input_buffer_bytes: None,
            output_buffer_packets: None,
            output_buffer_bytes: None,
            input_queues: "voq".into(),
            arbitration: Arbitration::RoundRobin,
            link_order: LinkOrder::ByClass,
            settings: toml::Table::new(),
        }
    }
}

/// SRP paper §4: 16 packets of input buffer per VC.
pub const DEFAULT_INPUT_BUFFER_PACKETS: u32 = 16;
/// SRP paper §4: 4-packet output buffer per VC.
pub const DEFAULT_OUTPUT_BUFFER_PACKETS: u32 = 4;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NicConfig {
    /// SRP paper §4: data packets are 2048 bits (32 flits of 64 bits).
    pub data_packet_bytes: u32,
    /// SRP paper §4: control packets are one 64-bit flit.
    pub control_packet_bytes: u32,
    /// Which send queue the NIC serves next: `round_robin` over its per-destination queues (SRP
    /// paper §4), `oldest_first`, the message generated first among the queues the mechanism
    /// lets go (the thesis' HCAs, Paper IV §IV: generation order, no HoL blocking inside),
    /// `fifo`, strictly in generation order, or `message_round_robin`, round-robin over the
    /// queues one whole message at a time.
    pub arbitration: NicArbitration,
    /// What a send queue holds: `per_destination`, the messages to one destination in order
    /// (a queue pair, SRP paper §4), or `per_flow`, one message (an RDMA channel of the
    /// ACCurate paper's multi-channel engine, §II: a short transfer does not wait behind a long
    /// one to the same destination).
    pub send_queues: SendQueueScope,
    /// Bytes of the transmit FIFO between the send queues and the link: 0 (the SRP paper's NIC,
    /// §4) sends a packet from its send queue straight onto the link when that has credits;
    /// more lets the NIC queue packets of all its send queues, in the order it picks them, in
    /// one FIFO whose head alone waits for credits or a PAUSE. That FIFO is where the ACCurate
    /// paper's victim meets head-of-line blocking (§III-B: "inside the queue that f1 shares
    /// with f4"); the paper does not give its size.
    pub tx_fifo_bytes: u32,
    /// Hot-packet queues beside the transmit FIFO (the thesis' HCA, Paper VI §3.2: one CPQ and
    /// two HPQs): a line the first switch's input sends down takes one while one is free, the
    /// FIFO's packets for its destinations move into it, and it waits while the line is
    /// stopped, so they hold back nothing else. They share the FIFO's bytes. 0: none.
    pub hot_queues: u32,
    /// `false`: a control packet (a reservation, grant, ACK or notification) leaves at once,
    /// interleaved into the data packet on the link, as switch outputs interleave control flits
    /// (SRP paper §4: the control VCs have priority over the data VCs). `true`: it waits for the
    /// tail of that data packet, as the SRP authors' BookSim NIC does (`_sent_data_tail` in its
    /// traffic manager; docs/validation.md, issue 24).
    pub control_between_packets: bool,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum SendQueueScope {
    /// One send queue per destination: its messages go in order (SRP paper §4).
    #[default]
    PerDestination,
    /// One send queue per message: messages to one destination are served side by side.
    PerFlow,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum NicArbitration {
    /// Round-robin over the send queues, one per destination (SRP paper §4).
    #[default]
    RoundRobin,
    /// The oldest message among the queues the mechanism lets go (the thesis' HCAs, Paper IV).
    OldestFirst,
    /// Strictly in generation order: a message the mechanism holds back (SRP waiting for its
    /// reservation's start) holds back every later one, as one injection queue per source does
    /// (BookSim; the CBCM paper §III-B: "the source can only transmit one message at any given
    /// time").
    Fifo,
    /// Round-robin over the send queues, one message at a time: a message that has started
    /// keeps the link until its last packet is sent, even while the mechanism holds it back
    /// (the CBCM paper's source, §V-A: "one queue for each network destination ... arbitrated
    /// within the source in a round-robin manner", and §III-B: "the source can only transmit
    /// one message at any given time").
    MessageRoundRobin,
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig {
            data_packet_bytes: 256,
            control_packet_bytes: 8,
            arbitration: NicArbitration::RoundRobin,
            send_queues: SendQueueScope::PerDestination,
            tx_fifo_bytes: 0,
            hot_queues: 0,
            control_between_packets: false,
        }
    }
}

/// `[cc]`: the mechanism and its settings. The settings are the selected mechanism's own
/// (`cc::registry` types and checks them when the network is built), so this layer keeps them
/// as a table.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct CcConfig {
    /// Which congestion control the network runs: a name in `cc::registry` (`lossless list`).
    pub mechanism: String,
    /// The priority class of each of the mechanism's virtual channels, in VC order, instead of
    /// its own (e.g. SRP's speculative VC at `data` priority, against §3's low priority). The
    /// number of VCs is the mechanism's: each carries its own packets (docs/config.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vcs: Option<Vec<VcClass>>,
    /// `[cc.NAME]`: the settings of mechanism NAME, which must be the selected one.
    #[serde(flatten)]
    pub settings: toml::Table,
}

impl Default for CcConfig {
    /// No congestion control: the baseline network of every paper.
    fn default() -> Self {
        CcConfig { mechanism: "none".into(), vcs: None, settings: toml::Table::new() }
    }
}

/// Priority classes of virtual channels: control > data > low (speculative / throttled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VcClass {
    Control = 0,
    Data = 1,
    Low = 2,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OnOff {
    pub mean_on_ns: f64,
    pub mean_off_ns: f64,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TrafficConfig {
    /// Name used in results; defaults to `pattern` plus the index.
    #[serde(default)]
    pub name: Option<String>,
    pub pattern: Pattern,
    /// Offered load per source as a fraction of its injection link rate. Required unless the
    /// class is `greedy` or `burst`.
    #[serde(default)]
    pub load: Option<f64>,
    /// Sources always have a message ready (offered load 1 with a bounded backlog).
    #[serde(default)]
    pub greedy: bool,
    /// Greedy sources alternate ON periods (a flow: sending) and OFF periods (silent), both
    /// exponential (Santos et al. §VI-B.2). Each source starts with an OFF period, so that
    /// sources do not start in lockstep.
    #[serde(default)]
    pub on_off: Option<OnOff>,
    #[serde(default)]
    pub arrival: Arrival,
    #[serde(default)]
    pub message: MessageSize,
    /// Bytes of this class's data packets: its transport's frame, such as TCP's 1,500-byte
    /// segments beside 256-byte RDMA packets (the ACCurate paper, §III). At most
    /// `nic.data_packet_bytes`, the largest packet the network carries (its MTU: buffers,
    /// thresholds and PFC headroom are sized for it), which is also the default.
    #[serde(default)]
    pub packet_bytes: Option<u32>,
    /// Active from this time ...
    #[serde(default)]
    pub start_ns: f64,
    /// ... until this time (exclusive). Defaults to the end of the run.
    #[serde(default)]
    pub stop_ns: Option<f64>,
    /// Sources: all hosts unless given (names or ids). For `hotspot`, the senders.
    #[serde(default)]
    pub sources: Option<Vec<NodeRef>>,
    /// Removes from the source and destination sets the senders and destination of the named
    /// classes (the SRP paper's combined pattern: background among the other nodes).
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Takes its sources from the named class (e.g. the hot-spot senders warming up with
    /// uniform traffic before they switch, SRP paper §5.3).
    #[serde(default)]
    pub sources_from: Option<String>,
    /// `hotspot`: number of senders drawn at random (seeded) when `sources` is not given.
    #[serde(default)]
    pub senders: Option<u32>,
    /// `hotspot` and `flow`: the destination.
    #[serde(default)]
    pub dest: Option<NodeRef>,
    /// `hotspot`: the destination moves to another host (drawn at random, seeded, never one of
    /// the class's sources) every this many ns: the thesis' moving trees (Paper IV §V-C
    /// [Paper IV §V-C], hot-spot lifetimes of 10 to 1 ms). `dest` is the first.
    #[serde(default)]
    pub move_every_ns: Option<f64>,
    /// Each source of the class starts its packets at least one packet time / `rate_limit`
    /// apart (a fraction of its injection link rate): a static rate limit set by hand, as
    /// InfiniBand's static rate and Santos et al.'s Fig. 3(d) ("the rate limit for each flow
    /// is set manually"). It caps how fast a source sends, not what it offers.
    #[serde(default)]
    pub rate_limit: Option<f64>,
    /// `flow`: the source.
    #[serde(default)]
    pub src: Option<NodeRef>,
    /// `shift`: destination = (source + shift) mod N.
    #[serde(default)]
    pub shift: Option<u32>,
}

/// A class's destination rule with the settings only it uses, checked out of the flat
/// `[[traffic]]` table by `TrafficConfig::pattern_settings`, the one place that does. The table
/// stays flat for serde so that every typing error names its key (an internally tagged enum
/// would report them at `traffic[i]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PatternSettings<'a> {
    Uniform,
    Hotspot { dest: &'a NodeRef, senders: Option<u32>, move_every_ns: Option<f64> },
    Flow { src: &'a NodeRef, dest: &'a NodeRef },
    Shift { shift: u32 },
    Tornado,
    Bitreverse,
    Randperm,
    Burst { dest: &'a NodeRef },
}

/// A host named in the config: its name (explicit topologies) or its id.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum NodeRef {
    Id(u32),
    Name(String),
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Pattern {
    /// Uniform random destination among the class's destinations, never the source itself.
    Uniform,
    /// All sources send to `dest`.
    Hotspot,
    /// One source, one destination (`src`, `dest`).
    Flow,
    /// destination = (source + shift) mod N.
    Shift,
    /// destination = (source + ceil(N/2) - 1) mod N (Dally & Towles ch. 3).
    Tornado,
    /// destination = source with its log2(N) address bits reversed.
    Bitreverse,
    /// A random permutation with no fixed point (Sattolo's algorithm), seeded.
    Randperm,
    /// Every source sends one message to `dest` at `start_ns` (the SRP paper's impulse, §6.5).
    Burst,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Arrival {
    /// A message starts in each cycle (`simulation.cycle_ns`) with a fixed probability, as in
    /// BookSim's injection process.
    #[default]
    Bernoulli,
    /// Exponential inter-arrival times.
    Poisson,
    /// Evenly spaced messages.
    Periodic,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[strum(serialize_all = "snake_case")]
pub enum MessageSize {
    /// Every message has `packets` packets.
    Fixed { packets: u32 },
    /// `packets[i]` with probability proportional to `weights[i]` (per message).
    Bimodal {
        packets: Vec<u32>,
        #[serde(default)]
        weights: Option<Vec<f64>>,
    },
    /// Uniform on `min..=max` packets.
    Uniform { min: u32, max: u32 },
    /// Sizes in bytes from an empirical distribution, linear between its points (as ns-2's and
    /// ns-3's empirical random variables), rounded up to whole packets: a shipped `table`
    /// (`web_search`, `data_mining`) or a `file` of lines `bytes cumulative-probability`.
    Cdf {
        #[serde(default)]
        table: Option<CdfTable>,
        #[serde(default)]
        file: Option<String>,
    },
}

/// The flow-size distributions every datacenter transport paper uses (docs/flows.md).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, strum::EnumIter, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum CdfTable {
    /// A web-search cluster (DCTCP, SIGCOMM 2010, Fig. 4): mean 1.7 MB, 30 MB at most.
    WebSearch,
    /// A data-mining cluster (VL2, SIGCOMM 2009, Fig. 2): half below 1.1 KB, mean 12.7 MB, up to
    /// 1 GB.
    DataMining,
}

impl Default for MessageSize {
    /// SRP paper §4 default experiment (and the default example): 4-packet messages.
    fn default() -> Self {
        MessageSize::Fixed { packets: 4 }
    }
}

/// `[flow_control]`: how a receiving buffer holds back its sender, on every link.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[strum(serialize_all = "snake_case")]
pub enum FlowControlConfig {
    /// Credits: a sender sends only into room its receiver has granted (InfiniBand; the SRP
    /// paper's and the thesis' networks). A variant with no fields, not a unit one: serde
    /// ignores every other key beside the tag of a unit variant, and another kind's keys here
    /// must be refused.
    Credits {},
    /// Priority flow control (IEEE 802.1Qbb, lossless Ethernet): per VC, a buffer holding more
    /// than `xoff_bytes` sends a PAUSE upstream and one that drains to `xon_bytes` a resume; the
    /// sender stops starting packets on that VC while paused. Each frame takes its channel's
    /// latency and `pause_frame_bytes` of serialization to arrive. Unset thresholds leave the
    /// headroom the longest link needs (docs/config.md).
    Pfc {
        #[serde(default)]
        xoff_bytes: Option<u32>,
        #[serde(default)]
        xon_bytes: Option<u32>,
        /// An Ethernet PAUSE frame: 64 bytes (IEEE 802.3 minimum frame).
        #[serde(default = "default_pause_frame_bytes")]
        pause_frame_bytes: u32,
        /// How long a PAUSE holds its sender, in quanta of 512 bit times at the link's rate:
        /// 65,535, the longest the frame's 2-byte field carries (IEEE 802.3 Annex 31B). The
        /// receiver refreshes a PAUSE at half that while its buffer stays above XON.
        #[serde(default = "default_pause_quanta")]
        pause_quanta: u16,
    },
    /// Lossy Ethernet (the ACCurate paper's lossy TCP baselines, §III): no credits and no PAUSE,
    /// a sender sends whenever its link is free and a switch drops a packet that finds no room
    /// (drop-tail), at `drop = "input"`: its input buffer; or `"output"`: the bytes its switch
    /// holds for its output on its VC, at most `output_queue_bytes` (an output-queued switch).
    Lossy {
        #[serde(default)]
        drop: DropPoint,
        /// With `drop = "output"`: an output's queue; default the input buffer's size (the
        /// ACCurate paper gives one buffer size per port, §III).
        #[serde(default)]
        output_queue_bytes: Option<u32>,
    },
}

/// Where a lossy switch drops (ACCurate paper §III: "one performing tail-drop at switch inputs
/// and one at switch outputs").
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, strum::EnumIter, strum::EnumMessage, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum DropPoint {
    /// An arrival its input buffer has no room for.
    #[default]
    Input,
    /// An arrival whose output's queue (the bytes all inputs hold for it on the VC) is full, or
    /// whose input buffer is.
    Output,
}

impl Default for FlowControlConfig {
    /// Credits, as in every paper in papers/ (InfiniBand and the SRP paper's §4 network).
    fn default() -> Self {
        FlowControlConfig::Credits {}
    }
}

fn default_pause_frame_bytes() -> u32 {
    64
}

fn default_pause_quanta() -> u16 {
    u16::MAX
}
