//! CBCM (the CBCM paper §IV) on its 16-node flattened butterfly with the paper's timing
//! (examples/cbcm/fb16_hotspot.toml: §V's cycles, 100-cycle channels between routers, 32-flit
//! packets): a 4:1 hot spot is found and its senders throttled to 1/4 each, which gives the
//! uniform traffic sharing the network Ideal's latency; uniform traffic and a permutation are
//! never taken for endpoint congestion.

mod common;
use common::*;
use lossless_core::Summary;

/// The example (nodes 0, 5, 8 and 12 send to node 4 without pause; the others send uniform
/// traffic among themselves at 30%) routed by `routing` under `mechanism`, with `overrides`.
fn fb16(routing: &str, mechanism: &str, overrides: &[&str]) -> Summary {
    let mut all = vec![format!("routing.algorithm=\"{routing}\""), format!("cc.mechanism=\"{mechanism}\"")];
    all.extend(overrides.iter().map(|o| o.to_string()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    run_config(&config_with(&example("cbcm/fb16_hotspot.toml"), &all))
}

#[test]
fn a_hot_spot_is_found_and_throttled_and_the_rest_gets_ideal_latency() {
    for routing in ["minimal", "ugal"] {
        let cbcm = fb16(routing, "cbcm", &[]);
        assert_eq!(cbcm.cc["hot_spots"], 1, "{routing}: one hot spot, found once");
        assert_eq!(cbcm.cc["throttled_pairs"], 4, "{routing}: its four senders throttled");
        // Each sender gets its quarter of the hot spot's link.
        assert_close(&format!("{routing} hot-spot senders"), cbcm.classes["hotspot"].accepted, 0.25, 0.01);
        let latency = |s: &Summary| s.classes["uniform"].packet_latency_ns.mean;
        let (none, ideal) = (fb16(routing, "none", &[]), fb16(routing, "ideal", &[]));
        assert!(latency(&cbcm) < 1.1 * latency(&ideal), "{routing}: CBCM {} against Ideal {}", latency(&cbcm), latency(&ideal));
        assert!(latency(&cbcm) < 0.75 * latency(&none), "{routing}: CBCM {} against none {}", latency(&cbcm), latency(&none));
    }
}

#[test]
fn uniform_traffic_is_not_taken_for_a_hot_spot() {
    for load in [0.5, 0.7] {
        let s = fb16("ugal", "cbcm", &[&format!("traffic=[{{pattern=\"uniform\",load={load}}}]")]);
        assert!(s.cc["marks"] > 0, "contention at {load} marks packets");
        assert_eq!(s.cc["hot_spots"], 0, "uniform at {load}");
    }
}

#[test]
fn a_permutation_is_network_congestion_not_endpoint_congestion() {
    // Router i's hosts to router i + 1's: under minimal routing the one channel between them
    // marks every packet, but each destination hears from one source only.
    let s = fb16("minimal", "cbcm", &["traffic=[{pattern=\"shift\",shift=4,load=0.3}]"]);
    assert!(s.cc["marks"] > 1000);
    assert_eq!(s.cc["hot_spots"], 0);
    assert_eq!(s.cc["throttle_packets"], 0);
}

#[test]
fn without_throttling_the_senders_keep_the_dedicated_vc_and_share_by_input() {
    // §VI-C's Fig. 14 setup: the hot spot is found and its traffic moved to the dedicated VC,
    // but nobody limits its rate. Nodes 0, 1, 2 (router 0) and 8 (router 2, the hot spot's):
    // round-robin over the hot spot router's inputs gives 8 half the link, the others a sixth;
    // throttled, a quarter each.
    let hot = "traffic=[{name=\"hotspot\",pattern=\"hotspot\",sources=[0,1,2,8],dest=9,greedy=true}]";
    let shares = |throttle: bool| {
        let s = fb16("minimal", "cbcm", &[hot, &format!("cc.cbcm.throttle={throttle}")]);
        assert_eq!(s.cc["throttled_pairs"], 4, "throttle = {throttle}: the four senders are identified");
        [0, 1, 2, 8].map(|h| s.sources[&h])
    };
    let (free, fair) = (shares(false), shares(true));
    assert_close("unthrottled local sender", free[3], 0.5, 0.02);
    for share in fair {
        assert_close("throttled sender", share, 0.25, 0.01);
    }
}

#[test]
fn without_the_dedicated_vc_throttled_traffic_shares_the_data_vc() {
    // §VI-C: the same throttling on two VCs instead of three; the hot spot still gets found.
    let s = fb16("minimal", "cbcm", &["cc.cbcm.dedicated_vc=false"]);
    assert_eq!(s.cc["throttled_pairs"], 4);
    assert_close("hot-spot senders", s.classes["hotspot"].accepted, 0.25, 0.01);
}

#[test]
fn a_router_finds_the_hot_spot_its_own_hosts_make() {
    // Fig. 1(c), §VI-A: nodes 0 to 3, all on router 0, send to node 4. Router 0 sees the four
    // contend for one destination and throttles them itself.
    let fig1c = "traffic=[{name=\"hotspot\",pattern=\"hotspot\",sources=[0,1,2,3],dest=4,greedy=true},{name=\"uniform\",pattern=\"uniform\",load=0.4,exclude=[\"hotspot\"]}]";
    let s = fb16("ugal", "cbcm", &[fig1c, "cc.cbcm.router_detection=true"]);
    assert!(s.cc["router_hot_spots"] >= 1);
    assert_eq!(s.cc["throttled_pairs"], 4);
    assert!(s.classes["hotspot"].accepted <= 0.25 + 0.01, "at most a quarter each: {}", s.classes["hotspot"].accepted);
}

#[test]
fn routers_take_neither_uniform_traffic_nor_a_permutation_for_a_hot_spot() {
    for load in [0.5, 0.7, 0.8] {
        let s = fb16("ugal", "cbcm", &[&format!("traffic=[{{pattern=\"uniform\",load={load}}}]"), "cc.cbcm.router_detection=true"]);
        assert_eq!(s.cc["router_hot_spots"], 0, "uniform at {load}");
    }
    let s = fb16("minimal", "cbcm", &["traffic=[{pattern=\"shift\",shift=4,load=0.3}]", "cc.cbcm.router_detection=true"]);
    assert_eq!(s.cc["router_hot_spots"] + s.cc["hot_spots"], 0);
}
