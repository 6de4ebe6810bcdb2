//! Range and cross-field checks. Host references (names, ids) are resolved, and checked, when
//! the topology is built (`traffic::resolve`), because only then is the host set known.

use super::limits::{self, fraction, gbps, in_range, packet_bytes, span_ns, time_ns};
use super::schema::*;
use crate::error::{ConfigError, ConfigResult};

/// Switches keep per-output request sets as 64-bit masks of inputs: 63 ports and the local
/// input through which a switch sends its own control packets.
pub const MAX_SWITCH_PORTS: u32 = 63;

impl Config {
    pub fn validate(&self) -> ConfigResult<()> {
        self.simulation.validate(self.traffic.len())?;
        validate_topology(&self.topology)?;
        self.nic.validate()?;
        self.switch.validate(&self.nic)?;
        if self.traffic.is_empty() {
            return Err(ConfigError::new("traffic", "no traffic class: add at least one [[traffic]] table"));
        }
        let run_ns = self.simulation.warmup_ns + self.simulation.measure_ns;
        for (i, t) in self.traffic.iter().enumerate() {
            t.validate(&format!("traffic[{i}]"))?;
            if let Some(b) = t.packet_bytes.filter(|b| !(1..=self.nic.data_packet_bytes).contains(b)) {
                return Err(ConfigError::new(
                    format!("traffic[{i}].packet_bytes"),
                    format!(
                        "must be between 1 and nic.data_packet_bytes ({}), the largest packet the network's buffers are sized for; got {b}: raise nic.data_packet_bytes",
                        self.nic.data_packet_bytes
                    ),
                ));
            }
            // A moving hot spot draws its destinations for the whole run up front.
            if let Some(every) = t.move_every_ns.filter(|every| run_ns / every > limits::MAX_SERIES_ROWS) {
                return Err(ConfigError::new(
                    format!("traffic[{i}].move_every_ns"),
                    format!(
                        "moves the hot spot {} times in the run; at most {}: use {} ns or more",
                        limits::num((run_ns / every).ceil()),
                        limits::num(limits::MAX_SERIES_ROWS),
                        limits::num((run_ns / limits::MAX_SERIES_ROWS).ceil())
                    ),
                ));
            }
        }
        let names: Vec<String> = self.traffic.iter().enumerate().map(|(i, t)| t.display_name(i)).collect();
        for (i, n) in names.iter().enumerate() {
            // It labels the class's rows in timeseries.csv, where an empty field reads as missing.
            if n.trim().is_empty() {
                return Err(ConfigError::new(
                    format!("traffic[{i}].name"),
                    "is empty: give the class a name, or leave the key out for the default (its pattern and index)",
                ));
            }
            if names[..i].contains(n) {
                return Err(ConfigError::new(format!("traffic[{i}].name"), format!("`{n}` is used by two classes: names must be unique")));
            }
        }
        for (i, t) in self.traffic.iter().enumerate() {
            if let Some(x) = &t.sources_from {
                if !names.contains(x) || x == &names[i] {
                    return Err(ConfigError::new(
                        format!("traffic[{i}].sources_from"),
                        format!("`{x}` is not the name of another traffic class (names: {})", names.join(", ")),
                    ));
                }
                if t.sources.is_some() || t.senders.is_some() {
                    return Err(ConfigError::new(format!("traffic[{i}].sources_from"), "give the sources one way: sources, senders or sources_from"));
                }
            }
            for x in &t.exclude {
                if !names.contains(x) || x == &names[i] {
                    return Err(ConfigError::new(
                        format!("traffic[{i}].exclude"),
                        format!("`{x}` is not the name of another traffic class (names: {})", names.join(", ")),
                    ));
                }
            }
        }
        Ok(())
    }
}

impl SimulationConfig {
    fn validate(&self, classes: usize) -> ConfigResult<()> {
        time_ns("simulation.warmup_ns", self.warmup_ns)?;
        span_ns("simulation.measure_ns", self.measure_ns)?;
        span_ns("simulation.bin_ns", self.bin_ns)?;
        span_ns("simulation.cycle_ns", self.cycle_ns)?;
        time_ns("simulation.watchdog_ns", self.watchdog_ns)?;
        // The time series covers the whole run, one row per bin and class.
        let rows = ((self.warmup_ns + self.measure_ns) / self.bin_ns).ceil() * classes.max(1) as f64;
        if rows > limits::MAX_SERIES_ROWS {
            let min_bin = ((self.warmup_ns + self.measure_ns) * classes.max(1) as f64 / limits::MAX_SERIES_ROWS).ceil();
            return Err(ConfigError::new(
                "simulation.bin_ns",
                format!(
                    "gives {rows:.0} time-series rows (bins over warm-up and measurement, times classes); at most {:.0}: use bin_ns = {min_bin:.0} or more",
                    limits::MAX_SERIES_ROWS
                ),
            ));
        }
        Ok(())
    }
}

impl Config {
    /// What is valid but probably not what the user meant, one sentence each: a class that
    /// starts after the run ends (common when a run is shortened with `--set`, so not an error).
    pub fn warnings(&self) -> Vec<String> {
        let end_ns = self.simulation.warmup_ns + self.simulation.measure_ns;
        let mut warnings: Vec<String> = self
            .traffic
            .iter()
            .enumerate()
            .filter(|(_, t)| t.start_ns >= end_ns)
            .map(|(i, t)| {
                format!(
                    "`traffic[{i}].start_ns` ({} ns) is not before the end of the run ({end_ns} ns): class `{}` sends nothing",
                    t.start_ns,
                    t.display_name(i)
                )
            })
            .collect();
        // More threads than cores only take turns on them (and wait for each other at every
        // window's barrier).
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if self.simulation.threads as usize > cores {
            warnings.push(format!(
                "`simulation.threads` ({}) is more than this machine's {cores} cores: the run takes longer, its results are the same",
                self.simulation.threads
            ));
        }
        warnings
    }
}

fn validate_link(prefix: &str, l: &LinkConfig) -> ConfigResult<()> {
    gbps(&format!("{prefix}bandwidth_gbps"), l.bandwidth_gbps)?;
    if let Some(h) = l.host_latency_ns {
        time_ns(&format!("{prefix}host_latency_ns"), h)?;
    }
    if let Some(h) = l.host_bandwidth_gbps {
        gbps(&format!("{prefix}host_bandwidth_gbps"), h)?;
    }
    time_ns(&format!("{prefix}latency_ns"), l.latency_ns)
}

fn validate_topology(t: &TopologyConfig) -> ConfigResult<()> {
    validate_link("topology.", t.link())?;
    match t {
        TopologyConfig::KaryNtree { k, n, .. } => {
            if *k < 2 {
                return Err(ConfigError::new("topology.k", format!("must be at least 2, got {k}")));
            }
            if *n < 1 {
                return Err(ConfigError::new("topology.n", format!("must be at least 1, got {n}")));
            }
            if *k > MAX_SWITCH_PORTS / 2 {
                return Err(ConfigError::new(
                    "topology.k",
                    format!("switches would have {} ports; at most {MAX_SWITCH_PORTS} are supported", 2 * u64::from(*k)),
                ));
            }
            if (*k as u64).checked_pow(*n).is_none_or(|h| h > 1 << 20) {
                return Err(ConfigError::new("topology.n", format!("{k}^{n} hosts is more than the 1,048,576 supported")));
            }
        }
        TopologyConfig::FatTree2 { leaves, hosts_per_leaf, spines, .. } => {
            for (key, v) in [("leaves", leaves), ("hosts_per_leaf", hosts_per_leaf), ("spines", spines)] {
                if *v < 1 {
                    return Err(ConfigError::new(format!("topology.{key}"), "must be at least 1"));
                }
            }
            let leaf_ports = u64::from(*hosts_per_leaf) + u64::from(*spines);
            if leaf_ports > u64::from(MAX_SWITCH_PORTS) {
                return Err(ConfigError::new("topology.spines", format!("leaves would have {leaf_ports} ports; at most {MAX_SWITCH_PORTS} are supported")));
            }
            if *leaves > MAX_SWITCH_PORTS {
                return Err(ConfigError::new("topology.leaves", format!("spines would have {leaves} ports; at most {MAX_SWITCH_PORTS} are supported")));
            }
        }
        TopologyConfig::FlattenedButterfly { routers_per_dim, dims, concentration, .. } => {
            if *routers_per_dim < 2 {
                return Err(ConfigError::new("topology.routers_per_dim", format!("must be at least 2, got {routers_per_dim}")));
            }
            if !(1..=3).contains(dims) {
                return Err(ConfigError::new("topology.dims", format!("must be 1, 2 or 3, got {dims}")));
            }
            if *concentration < 1 {
                return Err(ConfigError::new("topology.concentration", "must be at least 1 host per router"));
            }
            let radix = u64::from(*concentration) + u64::from(*dims) * (u64::from(*routers_per_dim) - 1);
            if radix > u64::from(MAX_SWITCH_PORTS) {
                return Err(ConfigError::new(
                    "topology.concentration",
                    format!(
                        "routers would have {radix} ports ({concentration} hosts + {dims} x {} other routers); at most {MAX_SWITCH_PORTS} are supported",
                        routers_per_dim - 1
                    ),
                ));
            }
            if u64::from(*routers_per_dim).pow(*dims) * u64::from(*concentration) > 1 << 20 {
                return Err(ConfigError::new("topology.concentration", "more than the 1,048,576 hosts supported"));
            }
        }
        TopologyConfig::Dragonfly { hosts_per_router: p, routers_per_group: a, global_per_router: h, global_latency_ns, .. } => {
            for (key, v) in [("hosts_per_router", p), ("routers_per_group", a), ("global_per_router", h)] {
                if *v < 1 {
                    return Err(ConfigError::new(format!("topology.{key}"), "must be at least 1"));
                }
            }
            let radix = u64::from(*p) + u64::from(*a) - 1 + u64::from(*h);
            if radix > u64::from(MAX_SWITCH_PORTS) {
                return Err(ConfigError::new(
                    "topology.routers_per_group",
                    format!("routers would have {radix} ports ({p} hosts + {} in the group + {h} global); at most {MAX_SWITCH_PORTS} are supported", a - 1),
                ));
            }
            let hosts = u64::from(*p) * u64::from(*a) * (u64::from(*a) * u64::from(*h) + 1);
            if hosts > 1 << 20 {
                return Err(ConfigError::new("topology.hosts_per_router", format!("{hosts} hosts; at most 1,048,576 are supported")));
            }
            if let Some(l) = global_latency_ns {
                time_ns("topology.global_latency_ns", *l)?;
            }
        }
        TopologyConfig::Explicit { hosts, links, .. } => {
            if hosts.is_empty() {
                return Err(ConfigError::new("topology.hosts", "lists no host"));
            }
            for (i, l) in links.iter().enumerate() {
                if let Some(b) = l.bandwidth_gbps {
                    gbps(&format!("topology.links[{i}].bandwidth_gbps"), b)?;
                }
                if let Some(d) = l.latency_ns {
                    time_ns(&format!("topology.links[{i}].latency_ns"), d)?;
                }
            }
        }
    }
    Ok(())
}

impl SwitchConfig {
    fn validate(&self, nic: &NicConfig) -> ConfigResult<()> {
        time_ns("switch.router_latency_ns", self.router_latency_ns)?;
        in_range("switch.speedup", self.speedup, limits::MIN_SPEEDUP, limits::MAX_SPEEDUP, "times the link rate")?;
        if !(1..=MAX_SWITCH_PORTS).contains(&self.read_ports) {
            return Err(ConfigError::new(
                "switch.read_ports",
                format!("must be between 1 and {MAX_SWITCH_PORTS} (a read port per output at most), got {}", self.read_ports),
            ));
        }
        if self.input_buffer_packets.is_some() && self.input_buffer_bytes.is_some() {
            return Err(ConfigError::new("switch.input_buffer_bytes", "give the input buffer in packets or in bytes, not both"));
        }
        if self.output_buffer_packets.is_some() && self.output_buffer_bytes.is_some() {
            return Err(ConfigError::new("switch.output_buffer_bytes", "give the output buffer in packets or in bytes, not both"));
        }
        let packet = u64::from(nic.data_packet_bytes);
        for (side, packets, bytes, default) in [
            ("input", self.input_buffer_packets, self.input_buffer_bytes, DEFAULT_INPUT_BUFFER_PACKETS),
            ("output", self.output_buffer_packets, self.output_buffer_bytes, DEFAULT_OUTPUT_BUFFER_PACKETS),
        ] {
            let (key, total) = match bytes {
                Some(b) => (format!("switch.{side}_buffer_bytes"), u64::from(b)),
                None => (format!("switch.{side}_buffer_packets"), u64::from(packets.unwrap_or(default)) * packet),
            };
            // Virtual cut-through: a buffer must hold a whole packet.
            if total < packet {
                return Err(ConfigError::new(key, format!("must hold at least one data packet ({packet} bytes) for virtual cut-through")));
            }
            if total > limits::MAX_BUFFER_BYTES {
                return Err(ConfigError::new(key, format!("gives {total} bytes per port and VC; at most {} (1 GiB)", limits::MAX_BUFFER_BYTES)));
            }
        }
        Ok(())
    }

    /// Bytes per port and VC (validated to fit `limits::MAX_BUFFER_BYTES`).
    pub fn input_buffer_bytes(&self, nic: &NicConfig) -> u32 {
        self.input_buffer_bytes.unwrap_or(self.input_buffer_packets.unwrap_or(DEFAULT_INPUT_BUFFER_PACKETS).saturating_mul(nic.data_packet_bytes))
    }

    /// Bytes per port and VC (validated to fit `limits::MAX_BUFFER_BYTES`).
    pub fn output_buffer_bytes(&self, nic: &NicConfig) -> u32 {
        self.output_buffer_bytes.unwrap_or(self.output_buffer_packets.unwrap_or(DEFAULT_OUTPUT_BUFFER_PACKETS).saturating_mul(nic.data_packet_bytes))
    }
}

impl NicConfig {
    fn validate(&self) -> ConfigResult<()> {
        packet_bytes("nic.data_packet_bytes", self.data_packet_bytes)?;
        if self.control_packet_bytes == 0 || self.control_packet_bytes > self.data_packet_bytes {
            return Err(ConfigError::new("nic.control_packet_bytes", format!("must be between 1 and data_packet_bytes ({})", self.data_packet_bytes)));
        }
        if self.tx_fifo_bytes != 0 && !(self.data_packet_bytes as u64..=limits::MAX_BUFFER_BYTES).contains(&(self.tx_fifo_bytes as u64)) {
            return Err(ConfigError::new(
                "nic.tx_fifo_bytes",
                format!(
                    "must be 0 (no FIFO) or between one data packet ({} bytes) and {} bytes (1 GiB), got {}",
                    self.data_packet_bytes,
                    limits::MAX_BUFFER_BYTES,
                    self.tx_fifo_bytes
                ),
            ));
        }
        if self.hot_queues > 16 {
            return Err(ConfigError::new("nic.hot_queues", format!("must be 0 (none) to 16, got {}", self.hot_queues)));
        }
        if self.hot_queues > 0 && self.tx_fifo_bytes == 0 {
            return Err(ConfigError::new("nic.hot_queues", "hot-packet queues share the transmit FIFO's bytes: set nic.tx_fifo_bytes too, or 0 hot queues"));
        }
        Ok(())
    }
}

impl TrafficConfig {
    pub fn display_name(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("{}{index}", serde_plain_pattern(self.pattern)))
    }

    /// The class's pattern with its settings; refuses a setting the pattern does not use (it
    /// would do nothing) and a missing one it needs. `key` is the class's (`traffic[0]`).
    pub fn pattern_settings(&self, key: &str) -> ConfigResult<PatternSettings<'_>> {
        let pattern = serde_plain_pattern(self.pattern);
        // Each pattern-specific key and the patterns that use it.
        let uses: [(&str, bool, &[Pattern]); 5] = [
            ("src", self.src.is_some(), &[Pattern::Flow]),
            ("dest", self.dest.is_some(), &[Pattern::Hotspot, Pattern::Flow, Pattern::Burst]),
            ("shift", self.shift.is_some(), &[Pattern::Shift]),
            ("senders", self.senders.is_some(), &[Pattern::Hotspot]),
            ("move_every_ns", self.move_every_ns.is_some(), &[Pattern::Hotspot]),
        ];
        for (field, given, by) in uses {
            if given && !by.contains(&self.pattern) {
                let names: Vec<&str> = by.iter().map(|p| serde_plain_pattern(*p)).collect();
                return Err(ConfigError::new(format!("{key}.{field}"), format!("applies to pattern {} only, not `{pattern}`: remove it", names.join(", "))));
            }
        }
        fn need<'a>(key: &str, pattern: &str, field: &str, value: Option<&'a NodeRef>) -> ConfigResult<&'a NodeRef> {
            value.ok_or_else(|| ConfigError::new(format!("{key}.{field}"), format!("is required by pattern `{pattern}`")))
        }
        Ok(match self.pattern {
            Pattern::Uniform => PatternSettings::Uniform,
            Pattern::Hotspot => {
                if self.senders == Some(0) {
                    return Err(ConfigError::new(format!("{key}.senders"), "must be at least 1"));
                }
                if let Some(m) = self.move_every_ns {
                    span_ns(&format!("{key}.move_every_ns"), m)?;
                }
                PatternSettings::Hotspot { dest: need(key, pattern, "dest", self.dest.as_ref())?, senders: self.senders, move_every_ns: self.move_every_ns }
            }
            Pattern::Flow => {
                PatternSettings::Flow { src: need(key, pattern, "src", self.src.as_ref())?, dest: need(key, pattern, "dest", self.dest.as_ref())? }
            }
            Pattern::Shift => PatternSettings::Shift {
                shift: self.shift.ok_or_else(|| ConfigError::new(format!("{key}.shift"), format!("is required by pattern `{pattern}`")))?,
            },
            Pattern::Tornado => PatternSettings::Tornado,
            Pattern::Bitreverse => PatternSettings::Bitreverse,
            Pattern::Randperm => PatternSettings::Randperm,
            Pattern::Burst => PatternSettings::Burst { dest: need(key, pattern, "dest", self.dest.as_ref())? },
        })
    }

    fn validate(&self, key: &str) -> ConfigResult<()> {
        self.pattern_settings(key)?;
        if let Some(o) = self.on_off {
            if !self.greedy {
                return Err(ConfigError::new(format!("{key}.on_off"), "applies to greedy classes: set greedy = true"));
            }
            span_ns(&format!("{key}.on_off.mean_on_ns"), o.mean_on_ns)?;
            span_ns(&format!("{key}.on_off.mean_off_ns"), o.mean_off_ns)?;
        }
        if let Some(r) = self.rate_limit {
            fraction(&format!("{key}.rate_limit"), r, "(a fraction of the injection link rate)")?;
        }
        let needs_load = !self.greedy && self.pattern != Pattern::Burst;
        match (self.load, needs_load) {
            (Some(l), true) => fraction(&format!("{key}.load"), l, "(a fraction of the injection link rate)")?,
            (None, true) => return Err(ConfigError::new(format!("{key}.load"), "is required (or set greedy = true)")),
            (Some(_), false) => return Err(ConfigError::new(format!("{key}.load"), "does not apply to greedy or burst classes: remove it")),
            (None, false) => {}
        }
        time_ns(&format!("{key}.start_ns"), self.start_ns)?;
        if let Some(stop) = self.stop_ns {
            time_ns(&format!("{key}.stop_ns"), stop)?;
            if stop <= self.start_ns {
                return Err(ConfigError::new(format!("{key}.stop_ns"), format!("must be after start_ns ({}), got {stop}", self.start_ns)));
            }
        }
        match &self.message {
            MessageSize::Fixed { packets } if *packets == 0 => {
                return Err(ConfigError::new(format!("{key}.message.packets"), "must be at least 1"));
            }
            MessageSize::Bimodal { packets, weights } => {
                if packets.is_empty() || packets.contains(&0) {
                    return Err(ConfigError::new(format!("{key}.message.packets"), "must list sizes of at least 1 packet"));
                }
                if let Some(w) = weights {
                    let total: f64 = w.iter().sum();
                    if w.len() != packets.len() || w.iter().any(|x| !(x.is_finite() && *x >= 0.0)) || !(total.is_finite() && total > 0.0) {
                        return Err(ConfigError::new(
                            format!("{key}.message.weights"),
                            "must give one non-negative weight per size, not all zero, with a finite sum (they are relative: 0.8 and 0.2 do)",
                        ));
                    }
                }
            }
            MessageSize::Uniform { min, max } if *min == 0 || min > max => {
                return Err(ConfigError::new(format!("{key}.message"), format!("needs 1 <= min <= max, got min {min}, max {max}")));
            }
            _ => {}
        }
        if self.senders.is_some() && self.sources.is_some() {
            return Err(ConfigError::new(format!("{key}.senders"), "give either `senders` (a random set) or `sources` (a list), not both"));
        }
        Ok(())
    }
}

pub fn serde_plain_pattern(p: Pattern) -> &'static str {
    match p {
        Pattern::Uniform => "uniform",
        Pattern::Hotspot => "hotspot",
        Pattern::Flow => "flow",
        Pattern::Shift => "shift",
        Pattern::Tornado => "tornado",
        Pattern::Bitreverse => "bitreverse",
        Pattern::Randperm => "randperm",
        Pattern::Burst => "burst",
    }
}
