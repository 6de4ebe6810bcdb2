//! Same config and seed: identical results. Different seeds: different numbers, same
//! statistics.

mod common;
use common::*;

fn uniform(seed: u64) -> lossless_core::Summary {
    run_config(&example_with("fattree256_uniform.toml", &[&format!("simulation.seed={seed}"), "simulation.measure_ns=40000"]))
}

#[test]
fn same_seed_same_summary() {
    let a = uniform(7);
    let b = uniform(7);
    assert_eq!(a.deterministic_json(), b.deterministic_json());
    assert_eq!(a.series, b.series);
    assert_eq!(a.links, b.links);
}

#[test]
fn different_seeds_differ_but_agree_statistically() {
    let runs: Vec<_> = (1..=4).map(uniform).collect();
    let lat: Vec<f64> = runs.iter().map(|s| s.classes["uniform"].packet_latency_ns.mean).collect();
    for w in lat.windows(2) {
        assert_ne!(w[0], w[1], "different seeds gave identical latencies");
    }
    for s in &runs {
        // Offered 0.4: every seed accepts what it offers (below saturation) ...
        assert_close("accepted", s.classes["uniform"].accepted, 0.4, 0.02);
    }
    // ... and mean latencies agree within 10% of their mean.
    let m = lat.iter().sum::<f64>() / lat.len() as f64;
    for l in &lat {
        assert_close("mean latency across seeds", *l, m, 0.1 * m);
    }
}

#[test]
fn same_seed_same_summary_with_adaptive_routing_and_lookahead() {
    // UGAL draws intermediate routers from each switch's stream, and per-output buffers route
    // one hop ahead with the next switch's: still one result per seed.
    let run = || {
        let overrides = ["cc.mechanism=\"cbcm\"", "switch.voq.per_output_buffers=true", "simulation.warmup_ns=5000", "simulation.measure_ns=30000"];
        run_config(&example_with("cbcm/fb16_hotspot.toml", &overrides))
    };
    let (a, b) = (run(), run());
    assert!(a.counters.delivered > 1000);
    assert_eq!(a.deterministic_json(), b.deterministic_json());
    assert_eq!(a.links, b.links);
}

#[test]
fn same_seed_same_flows_under_accurate_with_a_queue_per_flow() {
    // ACCurate's flows, its contention points and the NIC's per-message queues, on the
    // multi-node-group network with shortest-path routes: one result per seed, to the flow.
    let run = || run_config(&example_with("accurate/multinode.toml", &["simulation.warmup_ns=0", "simulation.measure_ns=3000000"]));
    let (a, b) = (run(), run());
    assert!(a.flows.len() > 50, "{} flows", a.flows.len());
    assert_eq!(a.deterministic_json(), b.deterministic_json());
    assert_eq!(a.flows, b.flows);
}
