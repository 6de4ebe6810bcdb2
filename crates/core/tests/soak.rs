//! A randomized soak: every shipped example under every mechanism, with seeds, switch options
//! (input queues, shared, per-output or per-destination buffers, arbitration), NIC options, credits, PFC or lossy
//! links and window lengths drawn from a
//! seeded stream, each run short and checked for the lossless invariants (conservation, credits,
//! capacities) and for deadlock (`common::run_config`). Deterministic, so a failure names a case that reproduces.

mod common;
use common::{example, run_config, running};
use lossless_core::cc::registry::NAMES as MECHANISMS;
use lossless_core::switch::queues::NAMES as QUEUES;
use lossless_core::Config;
use rand::{RngExt, SeedableRng};
/// Random draws of the options per example and mechanism.
const DRAWS: usize = 6;

/// Two tests per shipped example, each taking half of the mechanisms (seeded `seed` and
/// `seed + 1`), so that the harness spreads them over the cores (the 1,056-host dragonfly's runs
/// take most of the time).
macro_rules! soak {
    ($($name:ident: $file:literal, seed $seed:literal,)*) => {$(
        mod $name {
            use super::*;
            #[test]
            fn first_half_of_the_mechanisms() {
                soak($file, $seed, &MECHANISMS[..MECHANISMS.len() / 2]);
            }
            #[test]
            fn second_half_of_the_mechanisms() {
                soak($file, $seed + 1, &MECHANISMS[MECHANISMS.len() / 2..]);
            }
        }
    )*};
}

soak! {
    fattree256_uniform_keeps_the_invariants: "fattree256_uniform.toml", seed 18,
    srp_fig1_baseline_keeps_the_invariants: "srp/fig1_baseline.toml", seed 20,
    srp_hotspot40_background_keeps_the_invariants: "srp/hotspot40_background.toml", seed 22,
    ibcc_testbed_scenario1_keeps_the_invariants: "ibcc/testbed_scenario1.toml", seed 24,
    ibcc_testbed_scenario2_keeps_the_invariants: "ibcc/testbed_scenario2.toml", seed 26,
    ibcc_one_switch_type1_keeps_the_invariants: "ibcc/one_switch_type1.toml", seed 28,
    ibcc_fattree648_silent_forest_keeps_the_invariants: "ibcc/fattree648_silent_forest.toml", seed 30,
    santos_two_switch_keeps_the_invariants: "santos/two_switch.toml", seed 32,
    cbcm_fb16_uniform_keeps_the_invariants: "cbcm/fb16_uniform.toml", seed 34,
    dragonfly_df1056_ugal_keeps_the_invariants: "dragonfly/df1056_ugal.toml", seed 36,
    flows_fattree256_websearch_keeps_the_invariants: "flows/fattree256_websearch.toml", seed 38,
    isolation_fattree64_ecocc_keeps_the_invariants: "isolation/fattree64_ecocc.toml", seed 40,
}

/// `DRAWS` runs of `file` under each of `mechanisms`, their options drawn from a stream seeded
/// with `seed`.
fn soak(file: &str, seed: u64, mechanisms: &[&str]) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut runs = 0;
    let text = example(file);
    // The routings of the example's topology (`auto` picks one of them).
    let routings: &[&str] = if file.starts_with("cbcm/") || file.starts_with("dragonfly/") { &["minimal", "valiant", "ugal"] } else { &["auto"] };
    for mechanism in mechanisms {
        for _ in 0..DRAWS {
            let mut queues = QUEUES[rng.random_range(0..QUEUES.len())];
            // Santos' full-buffer marking needs whole input buffers (refused otherwise).
            if queues == "voqnet" && *mechanism == "santos" {
                queues = "voq";
            }
            let per_output = rng.random_range(0..2u32) == 1 && queues == "voq" && *mechanism != "santos";
            let divided = per_output || queues == "voqnet";
            // Stop & Go beside credits: FBICM takes credit flow control too.
            let isolating = queues == "fbicm" || queues == "hfdi";
            let credits_only = divided || isolating;
            let mut overrides = vec![
                format!("routing.algorithm=\"{}\"", routings[rng.random_range(0..routings.len())]),
                format!("simulation.seed={}", rng.random_range(1..1_000u32)),
                format!("simulation.warmup_ns={}", rng.random_range(0..5u32) * 1_000),
                format!("simulation.measure_ns={}", rng.random_range(3..40u32) * 1_000),
                format!("switch.input_queues=\"{queues}\""),
                format!("switch.arbitration=\"{}\"", ["round_robin", "oldest_first"][rng.random_range(0..2usize)]),
                format!("nic.arbitration=\"{}\"", ["round_robin", "oldest_first", "fifo", "message_round_robin"][rng.random_range(0..4usize)]),
                format!("switch.input_buffer_packets={}", [1, 2, 4, 16][rng.random_range(0..4usize)]),
            ];
            if per_output {
                overrides.push("switch.voq.per_output_buffers=true".into());
            }
            // PFC keeps the buffers within capacity with its default thresholds (the
            // invariants check every buffer's peak); lossy links drop instead (conservation
            // counts the drops). Both need whole input buffers.
            if !credits_only {
                let flow = ["", "{kind=\"pfc\"}", "{kind=\"lossy\"}", "{kind=\"lossy\",drop=\"output\"}"][rng.random_range(0..4usize)];
                if !flow.is_empty() {
                    overrides.push(format!("flow_control={flow}"));
                }
            }
            // SRP keeps a queue's state across messages and refuses a queue per message.
            if *mechanism != "srp" && rng.random_range(0..2u32) == 1 {
                overrides.push("nic.send_queues=\"per_flow\"".into());
            }
            if rng.random_range(0..2u32) == 1 {
                overrides.push(format!("nic.tx_fifo_bytes={}", [4_096, 65_536][rng.random_range(0..2usize)]));
            }
            overrides.push(format!("switch.read_ports={}", [1, 2, 8][rng.random_range(0..3usize)]));
            let mut cfg = Config::from_table(running(&text, mechanism), &overrides).unwrap_or_else(|e| panic!("{file} {overrides:?}: {e}"));
            // The isolation thresholds must lie within the drawn buffer: in the thesis' ratios.
            if isolating {
                let cap = cfg.switch.input_buffer_bytes(&cfg.nic);
                let (quarter, half) = (cap / 4, cap / 2);
                overrides.extend(match queues {
                    "fbicm" => vec![
                        format!("switch.fbicm.detect_bytes={half}"),
                        format!("switch.fbicm.stop_bytes={}", quarter + half),
                        format!("switch.fbicm.go_bytes={quarter}"),
                        format!("switch.fbicm.propagate_bytes={quarter}"),
                    ],
                    _ => vec![format!("switch.hfdi.hth_bytes={half}"), format!("switch.hfdi.lth_bytes={quarter}")],
                });
                cfg = Config::from_table(running(&text, mechanism), &overrides).unwrap_or_else(|e| panic!("{file} {overrides:?}: {e}"));
            }
            // Small buffers on long links leave PFC no headroom (refused, tests/pfc.rs);
            // mechanisms that decide at the link take no transmit FIFO; FBICM refuses
            // routings that change VC and mechanisms that watch queue heads (VOQs instead).
            while let Err(e) = lossless_core::check(&cfg) {
                let drawn = match e.key.as_str() {
                    "switch.input_buffer_bytes" => "flow_control",
                    "nic.tx_fifo_bytes" => "nic.tx_fifo_bytes",
                    "switch.input_queues" if isolating => "switch.input_queues",
                    _ => break,
                };
                overrides.retain(|o| !o.starts_with(drawn));
                if drawn == "switch.input_queues" {
                    overrides.retain(|o| !o.starts_with("switch.fbicm") && !o.starts_with("switch.hfdi"));
                    overrides.push("switch.input_queues=\"voq\"".into());
                }
                cfg = Config::from_table(running(&text, mechanism), &overrides).unwrap_or_else(|e| panic!("{file} {overrides:?}: {e}"));
            }
            // Panics (invariant, deadlock) name the run through the message of the case.
            let case = format!("{file} {overrides:?}");
            let s = std::panic::catch_unwind(|| run_config(&cfg)).unwrap_or_else(|_| panic!("failed: {case}"));
            // Web-search flows start a few times per window across the network: the first
            // may have no packet delivered yet by the end of a short one.
            assert!(s.counters.delivered > 0 || s.counters.injected == 0 || file.starts_with("flows/"), "{case}: nothing delivered");
            runs += 1;
        }
    }
    assert_eq!(runs, mechanisms.len() * DRAWS);
}
