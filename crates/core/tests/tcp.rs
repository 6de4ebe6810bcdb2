//! TCP Reno (`cc.mechanism = "tcp"`): window-limited rates from the round trip, computed here
//! from the links; the sawtooth on a drop-tail bottleneck against the Mathis formula; lossless
//! TCP's unfairness on the ACCurate paper's parking lot; every flow of a lossy run completes
//! once the traffic stops; bad settings refused.

mod common;
use common::*;

/// A to B through switch S: 1 us channels, a 100 ns router, 1,500-byte segments and 64-byte
/// ACKs; S's link to B runs at `bottleneck_gbps`, the others at 10 Gb/s. One greedy flow A -> B.
fn line(bottleneck_gbps: f64, overrides: &[&str]) -> lossless_core::Summary {
    let text = format!(
        r#"
[simulation]
warmup_ns = 100_000
measure_ns = 1_000_000

[topology]
kind = "explicit"
hosts = ["A", "B"]
switches = ["S"]
bandwidth_gbps = 10
latency_ns = 1000
links = [ {{ a = "A", b = "S" }}, {{ a = "S", b = "B", bandwidth_gbps = {bottleneck_gbps} }} ]

[switch]
router_latency_ns = 100
input_buffer_bytes = 30000
output_buffer_packets = 1

[nic]
data_packet_bytes = 1500
control_packet_bytes = 64

[cc]
mechanism = "tcp"

[[traffic]]
name = "f"
pattern = "flow"
src = "A"
dest = "B"
greedy = true
"#
    );
    run_config(&config_with(&text, overrides))
}

#[test]
fn a_window_sends_that_many_segments_per_round_trip() {
    // A segment: 1 us to S, the router's 100 ns, 1 us to B, and 1.2 us for its tail; its ACK
    // back: 1 us, 100 ns, 1 us and 51.2 ns. The next segment leaves as the ACK's tail arrives.
    let round_trip_ns = 1_000.0 + 100.0 + 1_000.0 + 1_200.0 + 1_000.0 + 100.0 + 1_000.0 + 51.2;
    for window in [1, 3] {
        let s = line(10.0, &[&format!("cc.tcp.receiver_window_segments={window}")]);
        assert_close(&format!("window {window}"), s.classes["f"].accepted, window as f64 * 1_200.0 / round_trip_ns, 0.002);
        assert_eq!(s.counters.retransmitted, 0);
    }
    // Five segments fill the pipe: the link's rate.
    let s = line(10.0, &["cc.tcp.receiver_window_segments=5"]);
    assert_close("window 5", s.classes["f"].accepted, 1.0, 0.002);
}

#[test]
fn reno_on_a_drop_tail_bottleneck_follows_the_mathis_formula() {
    // A 1 Gb/s bottleneck behind a 20-segment input buffer, and a window the receiver never
    // limits: cwnd climbs until the buffer overflows, halves, climbs again (the sawtooth).
    let s = line(
        1.0,
        &[
            "flow_control={kind=\"lossy\"}",
            "cc.tcp.receiver_window_segments=1000",
            "cc.tcp.min_rto_ns=1000000",
            "simulation.warmup_ns=5000000",
            "simulation.measure_ns=200000000",
        ],
    );
    let cc = |k: &str| s.cc[k] as f64;
    assert!(cc("fast_retransmits") > 50.0, "{:?}", s.cc);
    assert!(cc("timeouts") <= 2.0, "the sawtooth recovers by fast retransmit: {:?}", s.cc);
    // The buffer keeps the bottleneck busy through each halving (it holds more than the
    // 1.4-segment bandwidth-delay product).
    let throughput_bps = s.classes["f"].accepted * 10e9;
    assert_close("bottleneck busy", throughput_bps, 1e9, 0.01e9);
    // Mathis et al. (1997): throughput = MSS / RTT * sqrt(3 / (2 p)), p the loss events per
    // segment and RTT the mean round trip: the segments' one-way time as measured plus their
    // ACKs' way back (2.6 us: 1 us, 100 ns, the 512 ns tail at 1 Gb/s, 1 us).
    let p = cc("fast_retransmits") / s.counters.injected as f64;
    let rtt_s = (s.classes["f"].network_latency_ns.mean + 2_612.0) * 1e-9;
    let mathis_bps = 1_500.0 * 8.0 / rtt_s * (1.5 / p).sqrt();
    assert_close("against Mathis", throughput_bps / mathis_bps, 1.0, 0.10);
}

#[test]
fn lossless_tcp_on_the_parking_lot_halves_the_remote_flows() {
    // The ACCurate paper's Fig. 3(b): each remote flow gets half the local one's rate.
    let s = run_config(&example_with(
        "accurate/parking_lot.toml",
        &[
            "cc.mechanism=\"tcp\"",
            "nic.data_packet_bytes=1500",
            "nic.control_packet_bytes=64",
            "switch.input_buffer_bytes=3000",
            "simulation.measure_ns=400000",
        ],
    ));
    assert_eq!(s.counters.dropped + s.counters.retransmitted, 0);
    let rate = |c: &str| s.classes[c].accepted;
    assert_close("f3", rate("f3"), 0.5, 0.01);
    assert_close("f1", rate("f1"), 0.25, 0.01);
    assert_close("f2", rate("f2"), 0.25, 0.01);
}

#[test]
fn every_flow_of_a_lossy_run_completes_once_traffic_stops() {
    // Poisson flows of 20 segments among the parking lot's hosts at 0.6 of each link, for
    // 200 us, on lossy links; then 5 ms for the losses to be recovered.
    let s = run_config(&example_with(
        "accurate/parking_lot.toml",
        &[
            "cc.mechanism=\"tcp\"",
            "cc.tcp.min_rto_ns=200000",
            "flow_control={kind=\"lossy\"}",
            "nic.data_packet_bytes=1500",
            "nic.control_packet_bytes=64",
            "nic.send_queues=\"per_flow\"",
            "switch.input_buffer_bytes=4500",
            "simulation.warmup_ns=0",
            "simulation.measure_ns=5200000",
            "traffic=[{name=\"flows\",pattern=\"uniform\",load=0.6,arrival=\"poisson\",message={kind=\"fixed\",packets=20},stop_ns=200000}]",
        ],
    ));
    assert!(s.counters.dropped > 0 && s.cc["fast_retransmits"] + s.cc["timeouts"] > 0, "{:?} {:?}", s.counters, s.cc);
    assert_eq!(s.classes["flows"].unfinished_messages, 0);
    assert_eq!((s.counters.delivered, s.counters.queued, s.counters.in_flight), (s.counters.generated, 0, 0));
    // A connection per flow, each closed once all was acknowledged.
    assert_eq!((s.cc["connections"], s.cc["open_connections"]), (s.counters.messages, 0));
}

#[test]
fn bad_settings_are_refused() {
    let error = |o: &[&str]| {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        let cfg = lossless_core::Config::from_toml_str(&example("fattree256_uniform.toml"), &o).unwrap();
        lossless_core::check(&cfg).err().unwrap_or_else(|| panic!("{o:?} was accepted"))
    };
    let e = error(&["cc.mechanism=\"tcp\"", "cc.tcp.receiver_window_segments=0"]);
    assert_eq!(e.key, "cc.tcp.receiver_window_segments");
    let e = error(&["cc.mechanism=\"tcp\"", "cc.tcp.min_rto_ns=1e6", "cc.tcp.max_rto_ns=1e5"]);
    assert_eq!(e.key, "cc.tcp.max_rto_ns");
}
