//! From `[[traffic]]` tables to classes with concrete source and destination sets.

use super::{pattern, Class, Sizes, Source, Target, Traffic};
use crate::config::{Config, NodeRef, Pattern, PatternSettings, TrafficConfig};
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{ClassId, NodeId};
use crate::rng::{stream, Family};
use crate::time::{ps_from_ns, Rate, Time};
use crate::topology::Topology;
use rand::RngExt;

pub fn resolve(cfg: &Config, topo: &Topology, end: Time) -> ConfigResult<Traffic> {
    let names: Vec<String> = cfg.traffic.iter().enumerate().map(|(i, t)| t.display_name(i)).collect();
    let mut classes: Vec<Option<Class>> = (0..cfg.traffic.len()).map(|_| None).collect();
    // Classes that refer to others (exclude, sources_from) are resolved after the classes they
    // name, which may not refer to others themselves.
    let refers = |t: &TrafficConfig| !t.exclude.is_empty() || t.sources_from.is_some();
    for pass in [false, true] {
        for (i, t) in cfg.traffic.iter().enumerate() {
            if refers(t) != pass {
                continue;
            }
            let resolved = |x: &String, key: &str| {
                let j = names.iter().position(|m| m == x).expect("validated");
                classes[j].as_ref().ok_or_else(|| {
                    ConfigError::new(
                        format!("traffic[{i}].{key}"),
                        format!("`{x}` refers to other classes itself; name only classes without `exclude` or `sources_from`"),
                    )
                })
            };
            let mut removed: Vec<NodeId> = Vec::new();
            for x in &t.exclude {
                let other = resolved(x, "exclude")?;
                removed.extend(&other.sources);
                removed.extend(other.target.fixed());
            }
            let sources_from = match &t.sources_from {
                Some(x) => Some(resolved(x, "sources_from")?.sources.clone()),
                None => None,
            };
            classes[i] = Some(class(cfg, topo, i, t, names[i].clone(), &removed, sources_from, end)?);
        }
    }
    let classes: Vec<Class> = classes.into_iter().map(|c| c.expect("both passes cover every class")).collect();

    let mut sources = Vec::new();
    for (ci, c) in classes.iter().enumerate() {
        for &node in &c.sources {
            let rate: Rate = topo.channels[topo.host_out[node.idx()].idx()].rate;
            let mean_gap = c.size.mean_packets() * rate.serialization(c.packet_bytes) as f64 / c.load;
            let id = sources.len() as u64;
            sources.push(Source {
                class: ci as ClassId,
                node,
                mean_gap,
                on_until: Time::MAX,
                paced_until: 0,
                rng: stream(cfg.simulation.seed, Family::Source, id),
            });
        }
    }
    Ok(Traffic { classes, sources, cycle: ps_from_ns(cfg.simulation.cycle_ns).max(1) })
}

fn node(topo: &Topology, r: &NodeRef, key: &str) -> ConfigResult<NodeId> {
    match r {
        NodeRef::Id(id) if (*id as usize) < topo.hosts() => Ok(NodeId(*id)),
        NodeRef::Id(id) => Err(ConfigError::new(key, format!("host id {id} does not exist: the topology has hosts 0..{}", topo.hosts() - 1))),
        NodeRef::Name(name) => topo.host_by_name(name).ok_or_else(|| ConfigError::new(key, format!("no host is named `{name}`"))),
    }
}

#[allow(clippy::too_many_arguments)]
fn class(
    cfg: &Config,
    topo: &Topology,
    i: usize,
    t: &TrafficConfig,
    name: String,
    removed: &[NodeId],
    sources_from: Option<Vec<NodeId>>,
    end: Time,
) -> ConfigResult<Class> {
    let key = format!("traffic[{i}]");
    let n = topo.hosts() as u32;
    let all: Vec<NodeId> = (0..n).map(NodeId).filter(|h| !removed.contains(h)).collect();
    let pattern = t.pattern_settings(&key)?;
    let dest = match pattern {
        PatternSettings::Hotspot { dest, .. } | PatternSettings::Flow { dest, .. } | PatternSettings::Burst { dest } => {
            Some(node(topo, dest, &format!("{key}.dest"))?)
        }
        _ => None,
    };
    let mut sources: Vec<NodeId> = match (sources_from, &t.sources, pattern) {
        (Some(from), _, _) => from,
        (None, Some(list), _) => {
            let mut v = Vec::new();
            for (j, r) in list.iter().enumerate() {
                let id = node(topo, r, &format!("{key}.sources[{j}]"))?;
                if v.contains(&id) {
                    return Err(ConfigError::new(format!("{key}.sources[{j}]"), "lists a host twice"));
                }
                v.push(id);
            }
            v
        }
        (None, None, PatternSettings::Flow { src, .. }) => vec![node(topo, src, &format!("{key}.src"))?],
        (None, None, _) => all.iter().copied().filter(|h| Some(*h) != dest).collect(),
    };
    if let PatternSettings::Hotspot { senders: Some(k), .. } = pattern {
        // A random sender set (SRP paper §4: "randomly selecting a subset of the network"),
        // drawn from this class's own setup stream so it is the same for every mechanism.
        let mut pool = sources.clone();
        if k as usize > pool.len() {
            return Err(ConfigError::new(format!("{key}.senders"), format!("asks for {k} senders but only {} hosts are available", pool.len())));
        }
        let mut rng = stream(cfg.simulation.seed, Family::TrafficSetup, i as u64);
        for j in 0..k as usize {
            let r = rng.random_range(j..pool.len());
            pool.swap(j, r);
        }
        pool.truncate(k as usize);
        pool.sort_unstable();
        sources = pool;
    }
    if let Some(d) = dest {
        if t.pattern != Pattern::Flow && sources.contains(&d) {
            sources.retain(|s| *s != d);
        }
        if t.pattern == Pattern::Flow && sources[0] == d {
            return Err(ConfigError::new(format!("{key}.dest"), "a flow's destination must differ from its source"));
        }
    }
    let moves = match (pattern, dest) {
        (PatternSettings::Hotspot { move_every_ns: Some(every), .. }, Some(first)) => {
            // One destination per lifetime until the end of the run, from the class's setup
            // stream (the same for every mechanism): any host but the class's sources.
            let lifetime = ps_from_ns(every).max(1);
            let candidates: Vec<NodeId> = (0..n).map(NodeId).filter(|h| !sources.contains(h)).collect();
            let mut rng = stream(cfg.simulation.seed, Family::TrafficSetup, (1 << 32) | i as u64);
            let lifetimes = (end / lifetime + 1) as usize;
            let mut seq = vec![first];
            seq.extend((1..lifetimes).map(|_| candidates[rng.random_range(0..candidates.len())]));
            Some(Target::Moving { lifetime, dests: seq })
        }
        _ => None,
    };
    let target = match (pattern, moves, dest) {
        (PatternSettings::Uniform, _, _) => {
            if all.len() < 2 {
                return Err(ConfigError::new(&key, "uniform traffic needs at least two hosts"));
            }
            Target::Uniform(all)
        }
        (PatternSettings::Shift { .. } | PatternSettings::Tornado | PatternSettings::Randperm | PatternSettings::Bitreverse, _, _) => {
            if t.pattern == Pattern::Bitreverse && !n.is_power_of_two() {
                return Err(ConfigError::new(format!("{key}.pattern"), format!("bitreverse needs a power-of-two number of hosts, the topology has {n}")));
            }
            let shift = if let PatternSettings::Shift { shift } = pattern { shift } else { 0 };
            let mut rng = stream(cfg.simulation.seed, Family::TrafficSetup, i as u64);
            let perm = pattern::permutation(t.pattern, n, shift, &mut rng);
            sources.retain(|s| perm[s.idx()] != NodeId::MAX);
            Target::Permutation(perm)
        }
        (_, Some(moving), _) => moving,
        (_, None, Some(d)) => Target::Fixed(d),
        (_, None, None) => unreachable!("hotspot, flow and burst have a destination"),
    };
    if sources.is_empty() {
        return Err(ConfigError::new(&key, "has no source left (check sources, senders and exclude)"));
    }
    let stop = t.stop_ns.map(ps_from_ns).unwrap_or(end).min(end);
    let load = t.load.unwrap_or(1.0);
    let packet_bytes = t.packet_bytes.unwrap_or(cfg.nic.data_packet_bytes);
    let size = Sizes::resolve(&t.message, &format!("{key}.message"), packet_bytes)?;
    let message_ps = size.mean_packets() * Rate::from_gbps(cfg.topology.link().host_gbps()).serialization(packet_bytes) as f64;
    if let Some(o) = t.on_off {
        // Each ON period opens with a message: periods shorter than one would offer more than
        // the link carries.
        if (o.mean_on_ns + o.mean_off_ns) * 1e3 < message_ps {
            return Err(ConfigError::new(
                format!("{key}.on_off"),
                format!(
                    "mean_on_ns + mean_off_ns ({} ns) is shorter than one mean message ({} ns at the host link rate): each ON period sends at least one message, so the class would offer more than its link; lengthen the periods",
                    o.mean_on_ns + o.mean_off_ns,
                    message_ps / 1e3
                ),
            ));
        }
    }
    if t.arrival == crate::config::Arrival::Bernoulli && !t.greedy && t.pattern != Pattern::Burst {
        let gap = message_ps / load;
        if gap < ps_from_ns(cfg.simulation.cycle_ns) as f64 {
            return Err(ConfigError::new(
                format!("{key}.load"),
                "asks for more than one message per cycle: lower the load, use longer messages, or a shorter simulation.cycle_ns",
            ));
        }
    }
    Ok(Class {
        name,
        pattern: t.pattern,
        greedy: t.greedy,
        on_off: t.on_off.map(|o| (ps_from_ns(o.mean_on_ns) as f64, ps_from_ns(o.mean_off_ns) as f64)),
        arrival: t.arrival,
        size,
        packet_bytes,
        load,
        pace: t.rate_limit.map(|r| 1.0 / r),
        start: ps_from_ns(t.start_ns),
        stop,
        sources,
        target,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn senders(seed: u64) -> Vec<NodeId> {
        let text = format!(
            "[simulation]\nseed = {seed}\n[topology]\nkind = \"kary_ntree\"\nk = 16\nn = 2\n[[traffic]]\npattern = \"hotspot\"\nsenders = 40\ndest = 100\ngreedy = true\n"
        );
        let cfg = Config::from_toml_str(&text, &[]).unwrap();
        let topo = Topology::build(&cfg.topology).unwrap();
        resolve(&cfg, &topo, 1_000).unwrap().classes[0].sources.clone()
    }

    #[test]
    fn hot_spot_senders_are_a_seeded_random_set() {
        let a = senders(1);
        assert_eq!(a.len(), 40);
        assert!(!a.contains(&NodeId(100)), "the hot spot does not send to itself");
        assert_eq!(a, senders(1), "same seed, same senders");
        assert_ne!(a, senders(2), "another seed, other senders");
        let mut d = a.clone();
        d.dedup();
        assert_eq!(d.len(), 40, "distinct senders");
    }
}
