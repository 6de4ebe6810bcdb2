//! Shared by the integration tests: every run goes through [`run_config`], which checks the
//! lossless invariants (conservation, credits, buffer capacities) before returning the summary.

#![allow(dead_code)]

use lossless_core::{Config, Summary};

pub fn config(text: &str) -> Config {
    Config::from_toml_str(text, &[]).unwrap_or_else(|e| panic!("test config is invalid: {e}"))
}

/// `text` with `key=value` overrides applied.
pub fn config_with(text: &str, overrides: &[&str]) -> Config {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    Config::from_toml_str(text, &o).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `text` and checks the invariants at the end.
pub fn run(text: &str) -> Summary {
    run_config(&config(text))
}

/// The table of config `text` switched to `mechanism`, without the settings of any other
/// (which a config may not carry): for running an example under each mechanism.
pub fn running(text: &str, mechanism: &str) -> toml::Table {
    let mut table: toml::Table = text.parse().unwrap();
    let cc = table.entry("cc").or_insert(toml::Value::Table(toml::Table::new())).as_table_mut().unwrap();
    cc.retain(|k, _| k == "vcs" || k == mechanism);
    cc.insert("mechanism".into(), mechanism.into());
    table
}

/// `cfg` without congestion control: the baseline network, whatever the file selects.
pub fn without_cc(cfg: &Config) -> Config {
    Config { cc: Default::default(), ..cfg.clone() }
}

/// Runs `cfg` with the mechanism it names; the run must not deadlock and checks the invariants
/// at its end (`Sim::run` and split runs do in builds with debug assertions: the test profile;
/// `cargo test --release` skips them, as every debug assertion). Through the library's `run`,
/// so that the simulator is compiled for every mechanism once, in the library, not in each
/// test binary (each took 35 s to build).
pub fn run_config(cfg: &Config) -> Summary {
    let s = lossless_core::run(cfg, &mut |_| std::ops::ControlFlow::Continue(())).unwrap_or_else(|e| panic!("{e}"));
    if let Some(d) = &s.deadlock {
        panic!("deadlock: {d:?}");
    }
    s
}

/// The SRP paper's reference network (§4): 16-ary 2-tree, 10 Gb/s 32 ns channels.
pub const FAT_TREE_256: &str = r#"
[topology]
kind = "kary_ntree"
k = 16
n = 2
"#;

pub fn assert_close(what: &str, got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want} +- {tol}");
}

/// The text of a shipped example, so that tests prove the examples run as they are.
pub fn example(path: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// An example with `key=value` overrides applied.
pub fn example_with(path: &str, overrides: &[&str]) -> Config {
    config_with(&example(path), overrides)
}

/// Runs `base` (a topology and its routing) for `measure_ns` with every host greedy on each of
/// `patterns` (a `[[traffic]]` body) under every registered mechanism: none deadlocks, each
/// delivers.
pub fn assert_saturated_runs_flow(base: &str, patterns: &[&str], measure_ns: u32) {
    assert_saturated_runs_flow_under(base, patterns, measure_ns, lossless_core::cc::registry::NAMES)
}

/// [`assert_saturated_runs_flow`] under the given mechanisms only.
pub fn assert_saturated_runs_flow_under(base: &str, patterns: &[&str], measure_ns: u32, mechanisms: &[&str]) {
    for mechanism in mechanisms {
        for pattern in patterns {
            let text = format!("{base}[simulation]\nwarmup_ns = 0\nmeasure_ns = {measure_ns}\n[[traffic]]\n{pattern}\ngreedy = true\n");
            let s = run_config(&Config::from_table(running(&text, mechanism), &[]).unwrap());
            assert!(s.deadlock.is_none(), "{base} {mechanism} {pattern}");
            assert!(s.counters.delivered > 0, "{base} {mechanism} {pattern}");
        }
    }
}
