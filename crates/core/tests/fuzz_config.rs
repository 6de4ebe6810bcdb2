//! Property: no config, however mangled, makes lossless panic, abort or run away with memory.
//! Random `--set` overrides (any key of the resolved config of a shipped example, values of the
//! key's own type at the edges of its range or random, or of any other type) are applied to the
//! examples; each result is either refused with a `ConfigError`, or builds and runs its first
//! 65,536 events with the invariants holding.
//!
//! proptest keeps every failing input it finds in `tests/fuzz_config.proptest-regressions` and
//! replays those first on every run: that file is the corpus of crashes found (a crash that
//! aborts the process is not recorded there: it goes to `crates/cli/tests/bad_inputs.toml`).
//! More cases, new ones: `PROPTEST_RNG_SEED=$RANDOM PROPTEST_CASES=100000 cargo test -p
//! lossless-core --test fuzz_config`.

mod common;
use common::{example, running};
use lossless_core::{Config, RunError};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::ops::ControlFlow;

const EXAMPLES: [&str; 13] = [
    "fattree256_uniform.toml",
    "flows/fattree256_websearch.toml",
    "isolation/fattree64_ecocc.toml",
    "accurate/parking_lot.toml",
    "cbcm/fb512_hotspot.toml",
    "srp/hotspot40_background.toml",
    "ibcc/testbed_scenario1.toml",
    "santos/two_switch.toml",
    "ibcc/one_switch_type1.toml",
    "deadlock/ring4_clockwise.toml",
    "cbcm/fb16_uniform.toml",
    "cbcm/fb16_hotspot.toml",
    "dragonfly/df1056_ugal.toml",
];

/// Keys absent from the examples unless set, with a value of their type to mutate.
fn optional_leaves() -> Vec<(String, toml::Value)> {
    let int = toml::Value::Integer(1);
    let float = toml::Value::Float(1.0);
    let mut out = Vec::new();
    for t in 0..2 {
        for key in ["shift", "senders", "dest", "src"] {
            out.push((format!("traffic.{t}.{key}"), int.clone()));
        }
        for key in ["rate_limit", "stop_ns", "move_every_ns", "on_off.mean_on_ns", "on_off.mean_off_ns"] {
            out.push((format!("traffic.{t}.{key}"), float.clone()));
        }
        for pattern in ["shift", "tornado", "bitreverse", "randperm", "hotspot", "burst", "flow"] {
            out.push((format!("traffic.{t}.pattern"), toml::Value::String(pattern.into())));
        }
    }
    for key in ["switch.input_buffer_bytes", "switch.output_buffer_bytes", "flow_control.xoff_bytes", "flow_control.xon_bytes", "flow_control.pause_frame_bytes", "flow_control.pause_quanta", "flow_control.output_queue_bytes", "simulation.threads"] {
        out.push((key.into(), int.clone()));
    }
    for kind in ["credits", "pfc", "lossy"] {
        out.push(("flow_control.kind".into(), toml::Value::String(kind.into())));
    }
    out.push(("flow_control.drop".into(), toml::Value::String("output".into())));
    for table in ["web_search", "data_mining"] {
        out.push(("traffic.0.message".into(), toml::Value::try_from(toml::toml! { kind = "cdf" table = table }).unwrap()));
    }
    out.push(("simulation.record_flows".into(), toml::Value::Boolean(true)));
    for routing in ["minimal", "valiant", "ugal"] {
        out.push(("routing.algorithm".into(), toml::Value::String(routing.into())));
    }
    for key in ["topology.links.0.bandwidth_gbps", "topology.links.4.latency_ns"] {
        out.push((key.into(), float.clone()));
    }
    out
}
use lossless_core::cc::registry::NAMES as MECHANISMS;
/// Runs estimated above this are not built here: being accepted is their whole test.
const BUILD_BUDGET_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

/// Every leaf of a config's resolved form (traffic classes and the mechanism's settings
/// included): its dotted key and its value.
fn leaves(table: &toml::Table) -> Vec<(String, toml::Value)> {
    let cfg = lossless_core::resolved_config(&Config::from_table(table.clone(), &[]).unwrap()).unwrap();
    let mut out = Vec::new();
    walk(&toml::Value::try_from(&cfg).unwrap(), String::new(), &mut out);
    out
}

fn walk(v: &toml::Value, path: String, out: &mut Vec<(String, toml::Value)>) {
    let join = |k: &str| if path.is_empty() { k.to_string() } else { format!("{path}.{k}") };
    match v {
        toml::Value::Table(t) => t.iter().for_each(|(k, v)| walk(v, join(k), out)),
        toml::Value::Array(a) if a.iter().any(|x| x.is_table()) => a.iter().enumerate().for_each(|(i, v)| walk(v, join(&i.to_string()), out)),
        _ => out.push((path, v.clone())),
    }
}

const ANY: [&str; 17] = [
    "\"x\"",
    "\"\"",
    "true",
    "[]",
    "[0]",
    "[1, 2]",
    "{}",
    "{kind = \"fixed\"}",
    "nan",
    "inf",
    "-1",
    "0",
    "1e300",
    "-9223372036854775808",
    "9223372036854775807",
    "4294967296",
    "{kind = \"bimodal\", packets = [1, 16], weights = [1e308, 1e308]}",
];
const FLOATS: [&str; 16] = ["0.0", "-1.0", "1e-300", "1e-12", "1e-6", "0.0001", "0.001", "0.5", "1.0", "1.5", "1e12", "1e13", "1e15", "1e20", "1e300", "-0.0"];
const INTS: [&str; 12] = ["0", "1", "2", "3", "16", "63", "64", "255", "65535", "4294967295", "4294967296", "-1"];

/// A value for a key whose value is `current`: mostly of the same type, at the edges of a range
/// or scaled at random; else anything (a wrong type must be refused too).
fn mutate(current: &toml::Value, pick: u64, f: f64) -> String {
    let i = (pick >> 8) as usize;
    match (pick % 4, current) {
        (0, _) => ANY[i % ANY.len()].to_string(),
        (1, toml::Value::Float(x)) => format!("{:?}", x * f.abs().min(1e6)),
        (_, toml::Value::Float(_)) => FLOATS[i % FLOATS.len()].to_string(),
        (1, toml::Value::Integer(_)) => ((pick >> 8) % 100_000).to_string(),
        (_, toml::Value::Integer(_)) => INTS[i % INTS.len()].to_string(),
        (_, toml::Value::Boolean(b)) => (!b).to_string(),
        (_, toml::Value::String(s)) => format!("\"{s}{}\"", if pick % 8 < 4 { "" } else { "x" }),
        _ => ANY[i % ANY.len()].to_string(),
    }
}

/// Builds and runs at most 65,536 events (until the first progress report); the run checks the
/// invariants where it stops (`Sim::run`, with debug assertions).
fn build_and_start(cfg: &Config) {
    if lossless_core::check(cfg).is_err() || lossless_core::memory_estimate(cfg).unwrap() > BUILD_BUDGET_BYTES {
        return;
    }
    match lossless_core::run(cfg, &mut |_| ControlFlow::Break(())) {
        Ok(_) | Err(RunError::Interrupted) => {}
        Err(e) => panic!("check() passed, the run did not: {e}"),
    }
}

proptest! {
    // A fixed seed, so that CI replays the same cases (and the corpus) every time: exploring is
    // for `PROPTEST_RNG_SEED=$RANDOM PROPTEST_CASES=100000`, which override both.
    #![proptest_config(ProptestConfig { cases: 300, rng_seed: RngSeed::Fixed(18), ..ProptestConfig::default() })]

    #[test]
    fn mangled_configs_are_refused_or_run(file in 0..EXAMPLES.len(), mechanism in 0..MECHANISMS.len(), picks in prop::collection::vec((any::<prop::sample::Index>(), any::<u64>(), any::<f64>()), 1..4)) {
        let table = running(&example(EXAMPLES[file]), MECHANISMS[mechanism]);
        let mut leaves = leaves(&table);
        leaves.extend(optional_leaves());
        let mut overrides = vec!["simulation.measure_ns=20000".to_string()];
        for (i, pick, f) in &picks {
            let (key, current) = i.get(&leaves);
            overrides.push(format!("{key}={}", mutate(current, *pick, *f)));
        }
        if let Ok(cfg) = Config::from_table(table, &overrides) {
            eprintln!("ACCEPTED {overrides:?}");
            build_and_start(&cfg);
        }
    }
}
