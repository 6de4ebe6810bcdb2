//! Balanced dragonflies (p = 2 hosts per router, a = 4 routers per group, h = 2 global channels
//! each: 9 groups, 72 hosts) under minimal, Valiant and UGAL routing: zero-load latency from the
//! hops and channel latencies of a local-global-local route, the worst-case pattern's throughput
//! under each routing, and no deadlock when saturated.

mod common;
use common::*;

/// The network with 100 ns global channels, routed by `routing`.
fn dragonfly(routing: &str) -> String {
    format!("[topology]\nkind = \"dragonfly\"\nhosts_per_router = 2\nrouters_per_group = 4\nglobal_per_router = 2\nglobal_latency_ns = 100\n[routing]\nalgorithm = \"{routing}\"\n")
}

#[test]
fn zero_load_latency_is_the_sum_of_the_route_s_channels_and_routers() {
    // SRP paper §4 timing (32 ns channels, 26 ns routers, 204.8 ns per packet), 100 ns global
    // channels. Group 0's global channels 2 and 3 (to groups 3 and 4) are on its router 1; group
    // 3's channel back is its fifth, on its router 2 (router 14): host 0 (router 0) to host 24
    // (router 12) is local, global, local.
    let flow = |dst: u32| {
        let s = run(&format!(
            "{}[simulation]\nwarmup_ns = 0\nmeasure_ns = 100000\n[[traffic]]\npattern = \"flow\"\nsrc = 0\ndest = {dst}\nload = 0.01\narrival = \"periodic\"\nmessage = {{ kind = \"fixed\", packets = 1 }}\n",
            dragonfly("minimal")
        ));
        s.classes["flow0"].inflight_latency_ns.mean
    };
    assert_close("same router", flow(1), 2.0 * 32.0 + 26.0 + 204.8, 1e-9);
    assert_close("same group", flow(2), 3.0 * 32.0 + 2.0 * 26.0 + 204.8, 1e-9);
    assert_close("local, global, local", flow(24), 4.0 * 32.0 + 100.0 + 4.0 * 26.0 + 204.8, 1e-9);
}

#[test]
fn saturated_traffic_does_not_deadlock_under_any_routing_and_mechanism() {
    for routing in ["minimal", "valiant", "ugal"] {
        assert_saturated_runs_flow(&dragonfly(routing), &["pattern = \"uniform\"", "pattern = \"shift\"\nshift = 8"], 20_000);
    }
}

/// Accepted load when every host of group i sends to its partner in group i + 1.
fn worst_case(routing: &str) -> f64 {
    let s = run(&format!(
        "{}[simulation]\nwarmup_ns = 10000\nmeasure_ns = 50000\n[[traffic]]\npattern = \"shift\"\nshift = 8\ngreedy = true\n",
        dragonfly(routing)
    ));
    s.classes["shift0"].accepted
}

#[test]
fn valiant_and_ugal_spread_the_worst_case_over_the_global_channels() {
    // Minimal routing puts a group's 8 hosts on its one channel to the next group: 1/8 each.
    // Valiant takes two global hops per packet over all a x h channels of a group: about 1/2.
    let minimal = worst_case("minimal");
    assert_close("minimal", minimal, 0.125, 0.01);
    let valiant = worst_case("valiant");
    assert!((0.35..=0.55).contains(&valiant), "valiant {valiant}");
    let ugal = worst_case("ugal");
    assert!(ugal > 0.35, "ugal {ugal}");
}
