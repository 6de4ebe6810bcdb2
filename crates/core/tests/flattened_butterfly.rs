//! Flattened butterflies under minimal (dimension-order), Valiant and UGAL routing: zero-load
//! latency from hop counts and channel latencies, minimal path lengths, the throughput each
//! routing gets on the worst-case permutation, UGAL's choice of minimal paths at low load, and no
//! deadlock when saturated.

mod common;
use common::*;
use lossless_core::ids::{Endpoint, NodeId, SwitchId};
use lossless_core::routing::{Flow, Leg, Route, Routing};
use lossless_core::topology::Topology;

fn fb(k: u32, n: u32, c: u32) -> String {
    format!("[topology]\nkind = \"flattened_butterfly\"\nrouters_per_dim = {k}\ndims = {n}\nconcentration = {c}\n")
}

fn single_flow(topology: &str, src: u32, dst: u32) -> String {
    format!(
        "{topology}[simulation]\nwarmup_ns = 0\nmeasure_ns = 100000\n[[traffic]]\npattern = \"flow\"\nsrc = {src}\ndest = {dst}\nload = 0.01\narrival = \"periodic\"\nmessage = {{ kind = \"fixed\", packets = 1 }}\n"
    )
}

#[test]
fn zero_load_latency_is_hops_times_channel_and_router_latency() {
    // SRP paper §4 timing: 32 ns channels, 26 ns routers, 204.8 ns to serialize 256 bytes.
    let latency = |channels: f64| channels * 32.0 + (channels - 1.0) * 26.0 + 204.8;
    for (topology, src, dst, channels) in [
        (fb(4, 1, 4), 0, 1, 2.0),  // same router
        (fb(4, 1, 4), 0, 13, 3.0), // router 0 to router 3: one hop
        (fb(4, 2, 2), 0, 10, 4.0), // router (0,0) to (1,1): one hop per dimension
        (fb(4, 2, 2), 0, 2, 3.0),  // router (0,0) to (1,0)
    ] {
        let s = run(&single_flow(&topology, src, dst));
        assert_close(&format!("{src} -> {dst}"), s.classes["flow0"].inflight_latency_ns.mean, latency(channels), 1e-9);
    }
}

#[test]
fn minimal_routes_take_one_hop_per_differing_coordinate() {
    // 3 x 3 x 3 routers of 2 hosts: every pair of hosts.
    let (k, n, c) = (3u32, 3u32, 2u32);
    let cfg = config(&format!("{}[[traffic]]\npattern = \"uniform\"\nload = 0.1\n", fb(k, n, c)));
    let topo = Topology::build(&cfg.topology).unwrap();
    let routing = Routing::build(&cfg.routing, &topo).unwrap();
    let mut rng = lossless_core::rng::stream(1, lossless_core::rng::Family::Switch, 0);
    let hosts = k.pow(n) * c;
    for src in 0..hosts {
        for dst in (0..hosts).filter(|&d| d != src) {
            let (a, b) = (src / c, dst / c);
            let differing = (0..n).filter(|&i| (a / k.pow(i)) % k != (b / k.pow(i)) % k).count();
            let mut sw = SwitchId(a);
            let (mut hops, mut leg) = (0, Leg::START);
            loop {
                let port = routing.route(sw, NodeId(dst), Flow { src: NodeId(0), id: 0 }, &mut leg, &lossless_core::routing::Idle, &mut rng);
                match topo.channels[topo.switches[sw.idx()].ports[port.idx()].out.idx()].to {
                    Endpoint::Host(h) => {
                        assert_eq!(h, NodeId(dst));
                        break;
                    }
                    Endpoint::Switch(t, _) => (sw, hops) = (t, hops + 1),
                }
                assert!(hops <= n as usize, "{src} -> {dst} loops");
            }
            assert_eq!(hops, differing, "{src} -> {dst}");
        }
    }
}

#[test]
fn saturated_uniform_traffic_does_not_deadlock() {
    // The CBCM paper's 512-node 2D flattened butterfly (§V), every host greedy.
    let s = run(&format!("{}[simulation]\nwarmup_ns = 0\nmeasure_ns = 30000\n[[traffic]]\npattern = \"uniform\"\ngreedy = true\n", fb(8, 2, 8)));
    assert!(s.deadlock.is_none());
    // Radix-22 routers under uniform traffic: well over half of the injection bandwidth.
    assert!(s.classes["uniform0"].accepted > 0.5, "{}", s.classes["uniform0"].accepted);
}

#[test]
fn saturated_traffic_does_not_deadlock_under_any_routing_and_mechanism() {
    // 4 x 4 routers of 4 hosts, on uniform traffic and on the worst-case permutation (router i to
    // router i + 1 in the first dimension).
    for routing in ["minimal", "valiant", "ugal"] {
        let base = format!("{}[routing]\nalgorithm = \"{routing}\"\n", fb(4, 2, 4));
        assert_saturated_runs_flow(&base, &["pattern = \"uniform\"", "pattern = \"shift\"\nshift = 4"], 30_000);
        // With a buffer per output port (lookahead routing), under every mechanism that runs
        // on them (Santos' full-buffer marking needs whole buffers).
        let per_output = format!("{base}[switch.voq]\nper_output_buffers = true\n");
        let mechanisms: Vec<&str> = lossless_core::cc::registry::NAMES.iter().copied().filter(|&m| m != "santos").collect();
        assert_saturated_runs_flow_under(&per_output, &["pattern = \"uniform\"", "pattern = \"shift\"\nshift = 4"], 30_000, &mechanisms);
    }
}

/// Accepted load of router i's hosts all sending to router i + 1 (4 routers of 4 hosts, 1D).
fn worst_case_permutation(routing: &str) -> f64 {
    let s = run(&format!(
        "{}[routing]\nalgorithm = \"{routing}\"\n[simulation]\nwarmup_ns = 10000\nmeasure_ns = 100000\n[[traffic]]\npattern = \"shift\"\nshift = 4\ngreedy = true\n",
        fb(4, 1, 4)
    ));
    s.classes["shift0"].accepted
}

#[test]
fn valiant_on_the_worst_case_permutation_gets_about_half_of_capacity() {
    // The intermediate router is uniform over the k = 4 routers, so every inter-router channel
    // carries 2c/k of a host's load (first legs out of its router, second legs into the next):
    // the channels saturate at k / 2c = 1/2 (Kim, Dally and Abts, ISCA 2007, §4.1).
    let valiant = worst_case_permutation("valiant");
    assert!((0.42..=0.52).contains(&valiant), "valiant {valiant}");
}

#[test]
fn ugal_on_the_worst_case_permutation_detours_around_the_saturated_channel() {
    // Minimal routing gets 1/c = 0.25 (below); UGAL takes detours as the direct channel's queue
    // grows, and gets about Valiant's half.
    let ugal = worst_case_permutation("ugal");
    assert!(ugal > 0.45, "ugal {ugal}");
}

#[test]
fn adaptive_routing_delivers_a_flow_out_of_order_and_minimal_routing_never() {
    // The order count (`Sim::track_order`) sees UGAL's detours overtake the direct path's
    // queue on the worst-case permutation; minimal routing has one path per flow.
    let reordered = |routing: &str| {
        let text = format!(
            "{}[routing]\nalgorithm = \"{routing}\"\n[simulation]\nwarmup_ns = 10000\nmeasure_ns = 50000\n[[traffic]]\npattern = \"shift\"\nshift = 4\ngreedy = true\n",
            fb(4, 1, 4)
        );
        let mut sim = lossless_core::Sim::new(&config(&text), lossless_core::cc::none::NoCc).unwrap();
        sim.track_order();
        let end = sim.end();
        sim.run_until(end, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
        sim.reordered()
    };
    assert_eq!(reordered("minimal"), 0);
    assert!(reordered("ugal") > 0);
}

/// Channel traversals per delivered packet of uniform single-packet messages at `load` under
/// `routing` (2D, 4 x 4 routers of 4 hosts; the two host channels included).
fn hops_per_packet(routing: &str, load: f64) -> f64 {
    let s = run(&format!(
        "{}[routing]\nalgorithm = \"{routing}\"\n[simulation]\nwarmup_ns = 0\nmeasure_ns = 200000\n[[traffic]]\npattern = \"uniform\"\nload = {load}\nmessage = {{ kind = \"fixed\", packets = 1 }}\n",
        fb(4, 2, 4)
    ));
    s.counters.hops as f64 / s.counters.delivered as f64
}

#[test]
fn ugal_routes_almost_minimally_at_low_load() {
    // A packet detours only when its minimal port holds more than its detour port would (times
    // hops): at low load the ports are mostly idle. (Packets of one multi-packet message see
    // their predecessors on the minimal port and detour: UGAL with local information.)
    let minimal = hops_per_packet("minimal", 0.05);
    let valiant = hops_per_packet("valiant", 0.05);
    let ugal = hops_per_packet("ugal", 0.05);
    assert!(valiant > minimal + 0.5, "valiant {valiant} minimal {minimal}");
    assert!(ugal < minimal * 1.03, "ugal {ugal} minimal {minimal}");
}

#[test]
fn minimal_routing_on_the_worst_case_permutation_gets_one_channel_per_router() {
    // Router i's c hosts all send to router i + 1 (host h to h + c, the CBCM paper's adversarial
    // pattern, §III): minimal routing puts them on the one channel between the two routers, so each
    // gets 1/c of its injection bandwidth (Valiant's detour would spread them, issue 20).
    let s = run(&format!("{}[simulation]\nwarmup_ns = 10000\nmeasure_ns = 100000\n[[traffic]]\npattern = \"shift\"\nshift = 4\ngreedy = true\n", fb(4, 1, 4)));
    assert_close("accepted", s.classes["shift0"].accepted, 0.25, 0.01);
}

#[test]
fn vcs_of_one_class_take_an_output_in_turn() {
    // Under UGAL a host's packets enter on the first VC set and every packet leaves for its
    // destination on the second: at the hot spot's router, host 8's packets (first set) and
    // host 0's, arriving from another router (second set), compete for one ejection port
    // through two VCs of the data class. Round-robin over the VCs gives each half.
    let s = run(&format!(
        "{}[routing]\nalgorithm = \"ugal\"\n[simulation]\nwarmup_ns = 10000\nmeasure_ns = 100000\n[[traffic]]\npattern = \"hotspot\"\nsources = [0, 8]\ndest = 9\ngreedy = true\n",
        fb(4, 1, 4)
    ));
    for host in [0, 8] {
        assert_close(&format!("host {host}"), s.sources[&host], 0.5, 0.02);
    }
}
