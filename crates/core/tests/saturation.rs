//! Tree saturation on the SRP reference network (SRP paper §1, §5.3).

mod common;
use common::*;

/// Zero-load in-flight latency between leaves (see analytic.rs).
const ZERO_LOAD_NS: f64 = 410.8;

#[test]
fn uniform_traffic_alone_saturates_above_0_8() {
    // SRP paper §4: VOQ and 2x speedup give nearly 100% throughput on random traffic.
    let cfg = example_with("fattree256_uniform.toml", &["traffic.0.load=0.9", "traffic.0.message={kind=\"fixed\",packets=1}", "simulation.measure_ns=50000"]);
    let s = run_config(&cfg);
    assert!(s.classes["uniform"].accepted > 0.8, "accepted {}", s.classes["uniform"].accepted);
}

#[test]
fn a_40_to_1_hot_spot_collapses_the_background() {
    let cfg = example_with("srp/hotspot40_background.toml", &["traffic.1.load=0.4", "simulation.measure_ns=100000"]);
    let s = run_config(&cfg);
    let bg = &s.classes["background"];
    let hs = &s.classes["hotspot"];
    assert!(bg.accepted < 0.2, "background accepted {} of 0.4 offered", bg.accepted);
    // The hot spot itself is saturated: its 40 senders share one ejection link.
    assert_close("hot-spot ejection", hs.accepted * 40.0, 1.0, 0.01);
    assert!(hs.inflight_latency_ns.mean > 100.0 * ZERO_LOAD_NS, "hot-spot in-flight latency {} ns", hs.inflight_latency_ns.mean);
}
