//! The memory a run will take, estimated from the config before anything is built, so that a
//! network too large for the machine is refused with the estimate instead of being killed (or
//! swapping) after minutes of construction.
//!
//! The estimate counts what is per host, per switch, per port and VC, and per pair of ports
//! (the data VC's virtual output queues). Its coefficients were fitted to the peak resident
//! memory of `lossless validate` on 16 k-ary n-trees from 4,096 to 65,536 hosts and 768 to
//! 131,072 switches, `none` and `srp`; it is within
//! -3% to +52% of those (it errs high on small networks). A run then grows by about half again
//! (packets, events, send queues: 41 -> 57 MiB on the 4,096-host benchmark), which `RUN_GROWTH`
//! adds.

use crate::config::{Config, TopologyConfig};
use crate::switch::Pooling;

/// Per host: NIC, traffic source and its random stream, statistics, routing entries.
const HOST_BYTES: f64 = 5_910.0;
/// Per switch: its state and random stream.
const SWITCH_BYTES: f64 = 1_950.0;
/// Per port and VC: input and output buffers' queues and counters.
const PORT_VC_BYTES: f64 = 241.0;
/// Per pair of ports: a VOQ of the data VC; and per pair and VC, the VOQ byte counters.
const PORT_PAIR_BYTES: f64 = 14.5;
const PORT_PAIR_VC_BYTES: f64 = 1.66;
/// Per buffer of its own of a VC per pair of ports (`[switch.voq] per_output_buffers`): its
/// byte count, and upstream its credits and round-robin turn (4 + 4 + 1 bytes, counted on
/// every port: an upper bound, host ports have none).
const POOL_BYTES: f64 = 9.0;
/// Per switch port, VC and destination host under `voqnet`: the round-robin turn among inputs
/// for that destination's buffer downstream. Its byte counts and credits are kept only while
/// away from rest (`switch::Counts`), with the packets in flight.
const TURN_BYTES: f64 = 1.0;
/// A packet in the slab (a header of at most 24 bytes) and its id in a NIC's transmit FIFO,
/// rounded up: full FIFOs (`nic.tx_fifo_bytes`) are counted, as an upper bound.
const FIFO_PACKET_BYTES: f64 = 128.0;
/// The program itself.
const BASE_BYTES: f64 = 16.0 * 1024.0 * 1024.0;
/// What a run adds to the network as built.
const RUN_GROWTH: f64 = 1.5;
/// One time-series bin of one class (`stats::Bin`).
const BIN_BYTES: f64 = 48.0;

/// A run estimated at this or more outgrows the caches and the processor's cache of 4 KiB page
/// translations: it prefetches what its events touch (`sim::prefetch`) and asks for huge pages
/// (`sim::hugepages`). Below it both cost time: without prefetching, the 256-host benchmark
/// (about 7 MiB) runs 8% faster and the 512-host flattened butterfly (22 MiB) 25% faster,
/// while 1,024 hosts (34 MiB) run 4% slower and 4,096 (79 MiB) 7% slower (medians,
/// interleaved).
pub const LARGE_RUN_BYTES: f64 = 32.0 * 1024.0 * 1024.0;

/// Estimated peak memory of running `cfg` with a mechanism of `mech_vcs` virtual channels (the
/// network has them once per routing phase), in bytes.
pub fn estimate_bytes(cfg: &Config, mech_vcs: usize) -> f64 {
    let (hosts, ports) = shape(&cfg.topology);
    let smallest_packet = cfg.traffic.iter().map(|t| t.packet_bytes.unwrap_or(cfg.nic.data_packet_bytes)).min().unwrap_or(cfg.nic.data_packet_bytes).max(1);
    let v = (mech_vcs * crate::routing::Routing::phases(&cfg.routing, &cfg.topology) as usize) as f64;
    let sum_p: f64 = ports.iter().map(|&p| p as f64).sum();
    let sum_p2: f64 = ports.iter().map(|&p| (p as f64).powi(2)).sum();
    // Buffers of their own, each with credits upstream: per pair of ports, or per port and host.
    let pools = match crate::switch::queues::Spec::of_data_vcs(&cfg.switch).map(|q| q.pooling(true)) {
        Ok(Pooling::PerOutput) => POOL_BYTES * sum_p2 * v,
        Ok(Pooling::PerDestination) => TURN_BYTES * sum_p * hosts as f64 * v,
        _ => 0.0,
    };
    let network = HOST_BYTES * hosts as f64
        + SWITCH_BYTES * ports.len() as f64
        + PORT_VC_BYTES * sum_p * v
        + PORT_PAIR_BYTES * sum_p2
        + PORT_PAIR_VC_BYTES * sum_p2 * v
        + pools
        + FIFO_PACKET_BYTES * hosts as f64 * (cfg.nic.tx_fifo_bytes / smallest_packet) as f64;
    // Explicit topologies route by a table of one port per switch and destination.
    let table = if matches!(cfg.topology, TopologyConfig::Explicit { .. }) { ports.len() as f64 * hosts as f64 * 2.0 } else { 0.0 };
    let s = &cfg.simulation;
    let bins = ((s.warmup_ns + s.measure_ns) / s.bin_ns).ceil() * cfg.traffic.len() as f64;
    BASE_BYTES + RUN_GROWTH * (network + table) + BIN_BYTES * bins
}

/// Hosts, and the ports of each switch, from the config alone.
fn shape(t: &TopologyConfig) -> (u64, Vec<u32>) {
    match t {
        TopologyConfig::KaryNtree { k, n, .. } => {
            let hosts = u64::from(*k).saturating_pow(*n);
            let switches = (u64::from(*n) * u64::from(*k).saturating_pow(n.saturating_sub(1))) as usize;
            (hosts, vec![2 * k; switches])
        }
        TopologyConfig::FatTree2 { leaves, hosts_per_leaf, spines, .. } => {
            let mut ports = vec![hosts_per_leaf + spines; *leaves as usize];
            ports.extend(std::iter::repeat_n(*leaves, *spines as usize));
            (u64::from(*leaves) * u64::from(*hosts_per_leaf), ports)
        }
        TopologyConfig::FlattenedButterfly { routers_per_dim: k, dims: n, concentration: c, .. } => {
            let routers = u64::from(*k).saturating_pow(*n);
            (routers * u64::from(*c), vec![c + n * (k - 1); routers as usize])
        }
        TopologyConfig::Dragonfly { hosts_per_router: p, routers_per_group: a, global_per_router: h, .. } => {
            let routers = u64::from(*a) * (u64::from(*a) * u64::from(*h) + 1);
            (routers * u64::from(*p), vec![p + a - 1 + h; routers as usize])
        }
        TopologyConfig::Explicit { hosts, switches, links, .. } => {
            let ports = switches.iter().map(|s| links.iter().map(|l| (l.a == *s) as u32 + (l.b == *s) as u32).sum()).collect();
            (hosts.len() as u64, ports)
        }
    }
}

/// The memory this process may use, in bytes, and what sets it: the machine's physical memory
/// (Linux), or less where the process's address space (`ulimit -v`) or its control group (a
/// container's `memory.max`) allows less; none if none can be read.
pub fn available_bytes() -> Option<(f64, &'static str)> {
    let physical = physical_bytes().map(|b| (b, "this machine's memory"));
    let limits = [physical, address_space_limit().map(|b| (b, "this process's address-space limit (ulimit -v)")), cgroup_limit().map(|b| (b, "this container's memory limit"))];
    limits.into_iter().flatten().min_by(|a, b| a.0.total_cmp(&b.0))
}

fn physical_bytes() -> Option<f64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: f64 = info.lines().find_map(|l| l.strip_prefix("MemTotal:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024.0)
}

#[cfg(target_os = "linux")]
fn address_space_limit() -> Option<f64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur as f64)
}

#[cfg(not(target_os = "linux"))]
fn address_space_limit() -> Option<f64> {
    None
}

/// cgroup v2's `memory.max` of this process's group ("max": no limit).
fn cgroup_limit() -> Option<f64> {
    let group = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = group.lines().find_map(|l| l.strip_prefix("0::"))?;
    std::fs::read_to_string(format!("/sys/fs/cgroup{}/memory.max", path.trim())).ok()?.trim().parse().ok()
}

/// The processor's last-level cache in bytes (Linux: CPU 0's highest cache level), if it can
/// be read.
pub fn last_level_cache_bytes() -> Option<f64> {
    let caches = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    let read = |dir: &std::path::Path, file: &str| std::fs::read_to_string(dir.join(file)).ok();
    let sized = caches.filter_map(|entry| {
        let dir = entry.ok()?.path();
        let level: u32 = read(&dir, "level")?.trim().parse().ok()?;
        Some((level, cache_size(&read(&dir, "size")?)?))
    });
    sized.max_by_key(|&(level, _)| level).map(|(_, bytes)| bytes)
}

/// A cache size as sysfs writes it ("266240K", "8M", or bytes), in bytes.
fn cache_size(text: &str) -> Option<f64> {
    let text = text.trim();
    let (digits, unit) = match (text.strip_suffix('K'), text.strip_suffix('M')) {
        (Some(d), _) => (d, 1024.0),
        (_, Some(d)) => (d, 1024.0 * 1024.0),
        _ => (text, 1.0),
    };
    Some(digits.parse::<f64>().ok()? * unit)
}

/// Bytes as a person reads them: 12.3 GiB, 456 MiB.
pub fn human(bytes: f64) -> String {
    let gib = bytes / (1u64 << 30) as f64;
    if gib >= 1.0 {
        format!("{gib:.1} GiB")
    } else {
        format!("{:.0} MiB", bytes / (1u64 << 20) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_read_as_sysfs_writes_them() {
        assert_eq!(cache_size("266240K\n"), Some(266240.0 * 1024.0));
        assert_eq!(cache_size("8M"), Some(8.0 * 1024.0 * 1024.0));
        assert_eq!(cache_size("32768"), Some(32768.0));
        assert_eq!(cache_size("big"), None);
    }
}
