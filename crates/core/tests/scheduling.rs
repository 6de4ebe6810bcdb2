//! Scheduling: input queueing of the data VC and output arbitration at switches, send-queue
//! arbitration at NICs.

mod common;
use common::*;

// Input queueing: FIFOs block behind a head waiting for a busy output, virtual output queues do
// not, and a FIFO with bounded bypass (Santos et al. footnote 6) lies between.
//
// One switch; B and C saturate a 1 Gb/s link to H, so a packet for H waits about three of
// that link's packet times for its turn. A sends a few packets to H (2% of its 10 Gb/s link)
// among many to D (90%): behind a waiting packet for H, A's packets for D stall in a FIFO.
const HEAD_OF_LINE: &str = r#"
[simulation]
seed = 1
warmup_ns = 100_000
measure_ns = 1_000_000

[topology]
kind = "explicit"
hosts = ["A", "B", "C", "H", "D"]
switches = ["S"]
latency_ns = 10
links = [{ a = "A", b = "S" }, { a = "B", b = "S" }, { a = "C", b = "S" }, { a = "H", b = "S", bandwidth_gbps = 1 }, { a = "D", b = "S" }]

[switch]
input_buffer_packets = 8

[[traffic]]
name = "B"
pattern = "flow"
src = "B"
dest = "H"
greedy = true

[[traffic]]
name = "C"
pattern = "flow"
src = "C"
dest = "H"
greedy = true

[[traffic]]
name = "A_hot"
pattern = "flow"
src = "A"
dest = "H"
load = 0.02
arrival = "periodic"

[[traffic]]
name = "A_cold"
pattern = "flow"
src = "A"
dest = "D"
load = 0.9
arrival = "periodic"
"#;

/// Accepted throughput of A's flows (to D, to H) with the given `[switch]` overrides.
fn a_flows(overrides: &[&str]) -> (f64, f64) {
    let s = run_config(&config_with(HEAD_OF_LINE, overrides));
    (s.classes["A_cold"].accepted, s.classes["A_hot"].accepted)
}

#[test]
fn bypass_limit_orders_fifo_below_voq() {
    let (voq, voq_hot) = a_flows(&[]);
    let (fifo, fifo_hot) = a_flows(&["switch.input_queues=\"fifo\""]);
    let bypass = |n: u32| a_flows(&["switch.input_queues=\"bypass\"", &format!("switch.bypass.limit={n}")]).0;
    let (b4, b16, b255) = (bypass(4), bypass(16), bypass(255));
    // VOQs: A's packets for D never wait behind those for H.
    assert_close("VOQ: A to D", voq, 0.9, 0.01);
    // FIFO: a packet for H at the head stalls A's link for most of its wait.
    assert!(fifo < 0.7, "FIFO: A to D {fifo}");
    assert!(fifo < b4 && b4 < b16 && b16 < voq, "more bypass, less blocking: {fifo} {b4} {b16} {voq}");
    // A head never waits long enough to be overtaken 255 times: as good as VOQs.
    assert_close("bypass 255 vs VOQ", b255, voq, 0.02);
    // A's few packets for H get through under every discipline.
    assert_close("A to H, FIFO vs VOQ", fifo_hot, voq_hot, 0.002);
}

/// Seven hosts send single packets to an eighth at 0.13 each (0.91 of its link), Poisson.
const INCAST: &str = r#"
[simulation]
seed = 3
warmup_ns = 100_000
measure_ns = 2_000_000

[topology]
kind = "explicit"
hosts = ["A", "B", "C", "D", "E", "F", "G", "H"]
switches = ["S"]
latency_ns = 10
links = [
  { a = "A", b = "S" }, { a = "B", b = "S" }, { a = "C", b = "S" }, { a = "D", b = "S" },
  { a = "E", b = "S" }, { a = "F", b = "S" }, { a = "G", b = "S" }, { a = "H", b = "S" },
]

[[traffic]]
name = "all"
pattern = "hotspot"
dest = "H"
sources = ["A", "B", "C", "D", "E", "F", "G"]
load = 0.13
arrival = "poisson"
message = { kind = "fixed", packets = 1 }
"#;

#[test]
fn oldest_first_serves_in_arrival_order() {
    // Both disciplines are work-conserving, so the same arrivals give the same mean latency;
    // serving the earliest arrival first (Santos et al.'s FIFO scheduling) cuts the tail that
    // round-robin over inputs leaves to a packet whose input was just served.
    let latency =
        |arbitration: &str| run_config(&config_with(INCAST, &[&format!("switch.arbitration=\"{arbitration}\"")])).classes["all"].packet_latency_ns.clone();
    let (rr, oldest) = (latency("round_robin"), latency("oldest_first"));
    assert_eq!(rr.count, oldest.count);
    assert_close("mean latency, oldest first / round-robin", oldest.mean / rr.mean, 1.0, 0.01);
    assert!(oldest.p999 < 0.75 * rr.p999, "p99.9: oldest first {} vs round-robin {}", oldest.p999, rr.p999);
    assert!(oldest.max < 0.75 * rr.max, "max: oldest first {} vs round-robin {}", oldest.max, rr.max);
}

/// Host A offers 0.5 of its link to D1 and 0.9 spread over D1..D4 (periodic, 2-packet
/// messages): more than the link carries, so its send queues back up.
const TWO_STREAMS: &str = r#"
[simulation]
warmup_ns = 200_000
measure_ns = 2_000_000

[topology]
kind = "explicit"
hosts = ["A", "D1", "D2", "D3", "D4"]
switches = ["S"]
links = [{ a = "A", b = "S" }, { a = "D1", b = "S" }, { a = "D2", b = "S" }, { a = "D3", b = "S" }, { a = "D4", b = "S" }]

[[traffic]]
name = "to_D1"
pattern = "flow"
src = "A"
dest = "D1"
load = 0.5
arrival = "periodic"
message = { kind = "fixed", packets = 2 }

[[traffic]]
name = "spread"
pattern = "uniform"
sources = ["A"]
load = 0.9
arrival = "periodic"
message = { kind = "fixed", packets = 2 }
"#;

#[test]
fn oldest_first_nic_serves_streams_in_generation_order() {
    let share = |arbitration: &str| {
        let s = run_config(&config_with(TWO_STREAMS, &[&format!("nic.arbitration=\"{arbitration}\"")]));
        (s.classes["to_D1"].accepted, s.classes["spread"].accepted)
    };
    // Round-robin over the four per-destination queues: D2..D4 (0.225 each) are served in
    // full; the queue to D1 gets the remaining 0.325, shared in generation order between the
    // flow (0.5 offered) and the spread traffic to D1 (0.225): 0.224 for the flow.
    let (flow, spread) = share("round_robin");
    assert_close("round-robin: flow", flow, 0.325 * 0.5 / 0.725, 0.02);
    assert_close("round-robin: spread", spread, 1.0 - 0.325 * 0.5 / 0.725, 0.02);
    // Generation order across queues: each stream gets the link in proportion to its load.
    let (flow, spread) = share("oldest_first");
    assert_close("oldest first: flow", flow, 0.5 / 1.4, 0.02);
    assert_close("oldest first: spread", spread, 0.9 / 1.4, 0.02);
}

#[test]
fn oldest_first_nic_keeps_greedy_sources_going() {
    // Greedy sources refill their next message (to a new destination, so a new send queue)
    // while the finished queue leaves the ring: every queue must stay served. Uniform traffic
    // on a 16-host tree is not limited by the NIC's order, so both orders deliver alike.
    let accepted = |arbitration: &str| {
        let text = r#"
[simulation]
measure_ns = 200_000
[topology]
kind = "kary_ntree"
k = 4
n = 2
[[traffic]]
pattern = "uniform"
greedy = true
message = { kind = "fixed", packets = 2 }
"#;
        let s = run_config(&config_with(text, &[&format!("nic.arbitration=\"{arbitration}\"")]));
        s.classes.values().next().expect("one class").accepted
    };
    assert_close("oldest first vs round-robin", accepted("oldest_first"), accepted("round_robin"), 0.05);
}

// Per-output buffers (`[switch.voq] per_output_buffers`, the CBCM paper's routers, §V-A): the
// same flows one switch further. A, B and C are on S1; H and D on S2. Sharing S2's input buffer
// from S1, packets for the slow link to H fill it and A's packets for D wait for its credits;
// with a buffer per output at that input they do not.
/// A's few packets for H (2% of its link), among its many for D.
const A_HOT: &str = "[[traffic]]\nname = \"A_hot\"\npattern = \"flow\"\nsrc = \"A\"\ndest = \"H\"\nload = 0.02\narrival = \"periodic\"\n";

fn behind_a_link() -> String {
    on_switches(
        r#"switches = ["S1", "S2"]
latency_ns = 10
links = [
  { a = "A", b = "S1" }, { a = "B", b = "S1" }, { a = "C", b = "S1" }, { a = "S1", b = "S2" },
  { a = "H", b = "S2", bandwidth_gbps = 1 }, { a = "D", b = "S2" },
]"#,
    )
}

/// `HEAD_OF_LINE` on the switches and links of `topology`, without A's packets for H: they
/// would share A's queue for S1's port to S2 with those for D, and block them at S1 whatever
/// the buffers further on.
fn on_switches(topology: &str) -> String {
    let one_switch = r#"switches = ["S"]
latency_ns = 10
links = [{ a = "A", b = "S" }, { a = "B", b = "S" }, { a = "C", b = "S" }, { a = "H", b = "S", bandwidth_gbps = 1 }, { a = "D", b = "S" }]"#;
    assert!(HEAD_OF_LINE.contains(one_switch) && HEAD_OF_LINE.contains(A_HOT));
    HEAD_OF_LINE.replace(one_switch, topology).replace(A_HOT, "")
}

#[test]
fn per_output_buffers_keep_a_congested_output_from_blocking_the_link_before_it() {
    let run_with = |per_output: bool| run_config(&config_with(&behind_a_link(), &[&format!("switch.voq.per_output_buffers={per_output}")]));
    let (shared, own) = (run_with(false), run_with(true));
    assert!(shared.classes["A_cold"].accepted < 0.5, "shared buffers: A to D {}", shared.classes["A_cold"].accepted);
    assert_close("per-output buffers: A to D", own.classes["A_cold"].accepted, 0.9, 0.01);
    // H's link stays full either way: the flows to it share 1 Gb/s of B's and C's 10.
    let to_h = |s: &lossless_core::Summary| s.classes["B"].accepted + s.classes["C"].accepted;
    assert_close("to H, per-output vs shared", to_h(&own), to_h(&shared), 0.005);
    // B and C take that buffer's credits in turn.
    assert_close("per-output buffers: B vs C", own.classes["B"].accepted, own.classes["C"].accepted, 0.002);
}

// VOQnet (the thesis' ideal reference, Paper V §IV-A): with A's few packets for H back, they and
// A's packets for D share S1's queue for the link to S2 under VOQs, and wait there for S2's
// credits for H, even with a buffer per output at S2: A to D gets about half its rate. With a
// queue and credits per destination at every input (and at A's NIC), A's packets for D never
// wait for H's.
#[test]
fn voqnet_keeps_a_congested_destination_from_holding_up_any_other() {
    let with_a_hot = behind_a_link() + A_HOT;
    let run_with = |o: &str| run_config(&config_with(&with_a_hot, &[o]));
    let (per_output, voqnet) = (run_with("switch.voq.per_output_buffers=true"), run_with("switch.input_queues=\"voqnet\""));
    assert!(per_output.classes["A_cold"].accepted < 0.6, "per-output buffers: A to D {}", per_output.classes["A_cold"].accepted);
    assert_close("VOQnet: A to D", voqnet.classes["A_cold"].accepted, 0.9, 0.01);
    assert_close("VOQnet: A to H", voqnet.classes["A_hot"].accepted, 0.02, 0.002);
    // H's link stays full, shared by the three senders.
    let to_h = |s: &lossless_core::Summary| s.classes["A_hot"].accepted + s.classes["B"].accepted + s.classes["C"].accepted;
    assert_close("VOQnet: to H", to_h(&voqnet), to_h(&per_output), 0.005);
}

// FBICM (thesis Paper V): the same flows with an NFQ and two CFQs per input. H's packets fill
// S2's NFQ from S1, which isolates them in a CFQ; that CFQ fills, sends its line up to S1, whose
// inputs isolate H's packets too, and stops S1 from sending them; S1's CFQs stop the NICs. A's
// packets for D then pass as under VOQnet, with a few queues per input instead of one per host.
#[test]
fn fbicm_isolates_a_congested_destination_in_a_few_queues() {
    let with_a_hot = behind_a_link() + A_HOT;
    let run_with = |o: &[&str]| run_config(&config_with(&with_a_hot, o));
    // The thesis' thresholds in MTUs (Paper V §V-A: a Stop threshold of 10, Go of 4), here of 256 bytes, in a
    // buffer of 32.
    let fbicm = run_with(&[
        "switch.input_queues=\"fbicm\"",
        "switch.input_buffer_packets=32",
        "switch.fbicm.detect_bytes=2048",
        "switch.fbicm.propagate_bytes=1024",
        "switch.fbicm.stop_bytes=2560",
        "switch.fbicm.go_bytes=1024",
    ]);
    let fifo = run_with(&["switch.input_queues=\"fifo\"", "switch.input_buffer_packets=32"]);
    assert_close("FBICM: A to D", fbicm.classes["A_cold"].accepted, 0.9, 0.02);
    assert_close("FBICM: A to H", fbicm.classes["A_hot"].accepted, 0.02, 0.002);
    // One FIFO per input: A to D waits behind H's packets.
    assert!(fifo.classes["A_cold"].accepted < 0.3, "FIFO: A to D {}", fifo.classes["A_cold"].accepted);
    let to_h = |s: &lossless_core::Summary| s.classes["A_hot"].accepted + s.classes["B"].accepted + s.classes["C"].accepted;
    assert_close("FBICM: to H", to_h(&fbicm), to_h(&fifo), 0.005);
}

/// `HEAD_OF_LINE` with H a switch further than D: S1 - S2 - S3 - H, D on S2.
fn a_switch_away() -> String {
    on_switches(
        r#"switches = ["S1", "S2", "S3"]
latency_ns = 10
links = [
  { a = "A", b = "S1" }, { a = "B", b = "S1" }, { a = "C", b = "S1" }, { a = "S1", b = "S2" },
  { a = "D", b = "S2" }, { a = "S2", b = "S3" }, { a = "H", b = "S3", bandwidth_gbps = 1 },
]"#,
    )
}

// HFDI (thesis Paper VI): VOQs (CPQs) and two HPQs per input; the same flows with H one switch
// further (S1 - S2 - S3 - H, D on S2). S3's CPQ for H's link passes HTh: a root, whose line goes
// up to S2. A root never stops its sender (Stop & Go run between HPQs), so S3's input buffer
// fills with H's packets, but at S2 they move into an HPQ, which stops S1 once it passes HTh
// again; S1 holds them in HPQs of its own, and S2's buffer from S1 keeps room for A's packets
// for D. With VOQs alone H's packets fill that buffer and A's packets for D wait for it.
#[test]
fn hfdi_isolates_a_congested_destination_a_switch_away() {
    let text = a_switch_away() + A_HOT;
    let run_with = |o: &[&str]| run_config(&config_with(&text, o));
    // Paper VI's HTh and LTh, 4 and 2 packets, here of 256 bytes, in a buffer of 32.
    let hfdi = run_with(&["switch.input_queues=\"hfdi\"", "switch.input_buffer_packets=32", "switch.hfdi.hth_bytes=1024", "switch.hfdi.lth_bytes=512"]);
    let voq = run_with(&["switch.input_queues=\"voq\"", "switch.input_buffer_packets=32"]);
    assert_close("HFDI: A to D", hfdi.classes["A_cold"].accepted, 0.9, 0.02);
    assert!(voq.classes["A_cold"].accepted < 0.6, "VOQs: A to D {}", voq.classes["A_cold"].accepted);
    assert!(hfdi.isolation.expect("HFDI counts its HPQs")["hot_queues_allocated"] > 0);
}

// The thesis' HCA (Paper VI §3.2): A now sends to H as fast as it can, through a 16 KB transmit
// FIFO. Without hot-packet queues at the NIC, the packets for H that fill the FIFO before S1's
// Stop reaches A go into S1's input and hold its buffer, and A's packets for D queue behind them
// in the FIFO; with two, S1's line takes one, H's packets move into it and wait while the line
// is stopped, and the FIFO carries A's packets for D.
#[test]
fn hca_hot_queues_keep_a_stopped_flow_from_holding_up_the_transmit_fifo() {
    let text = a_switch_away() + &A_HOT.replace("load = 0.02\narrival = \"periodic\"\n", "greedy = true\n");
    assert!(text.contains("src = \"A\"\ndest = \"H\"\ngreedy = true\n"), "A sends to H greedily");
    let hfdi = [
        "switch.input_queues=\"hfdi\"",
        "switch.input_buffer_packets=32",
        "switch.hfdi.hth_bytes=1024",
        "switch.hfdi.lth_bytes=512",
        "nic.tx_fifo_bytes=16384",
    ];
    let run_with = |hot: u32| run_config(&config_with(&text, &[&hfdi[..], &[&format!("nic.hot_queues={hot}")]].concat()));
    let (fifo, hca) = (run_with(0), run_with(2));
    assert!(fifo.classes["A_cold"].accepted < 0.6, "no hot queues at the NIC: A to D {}", fifo.classes["A_cold"].accepted);
    assert_close("two hot queues at the NIC: A to D", hca.classes["A_cold"].accepted, 0.9, 0.02);
    // H's link stays full, a fifth of it A's.
    assert_close("two hot queues at the NIC: A to H", hca.classes["A_hot"].accepted, 0.02, 0.002);
    assert!(hca.isolation.expect("HFDI counts")["nic_hot_queues_allocated"] > 0);
    assert!(!fifo.isolation.expect("HFDI counts").contains_key("nic_hot_queues_allocated"), "counted only where NICs have them");
}

// Every hot queue, CAM line and NIC line of FBICM and HFDI is released once its tree has gone, and
// no flow's packets arrive out of order: the thesis'
// Paper V network #3 with its hot spot from 0.1 to 0.3 ms under half-load uniform traffic (which
// makes short-lived trees of its own) until 0.6 ms, drained by 1 ms.
#[test]
fn fbicm_and_hfdi_release_their_queues_after_the_tree_has_gone() {
    for queues in ["fbicm", "hfdi"] {
        released_after_the_tree(queues, &[]);
    }
    // With the thesis' HCA (Paper VI §3.2): a transmit FIFO of 8 packets and two hot-packet
    // queues beside it at every NIC.
    released_after_the_tree("hfdi", &["nic.tx_fifo_bytes=16384", "nic.hot_queues=2"]);
}

fn released_after_the_tree(queues: &str, nic: &[&str]) {
    let organization = format!("switch.input_queues=\"{queues}\"");
    let mut overrides = vec![
        organization.as_str(),
        "simulation.measure_ns=1000000",
        "traffic.0.load=0.5",
        "traffic.0.stop_ns=600000",
        "traffic.1.start_ns=100000",
        "traffic.1.stop_ns=300000",
    ];
    overrides.extend_from_slice(nic);
    let cfg = config_with(&example("isolation/fattree64_hotspot.toml"), &overrides);
    let mut sim = lossless_core::Sim::new(&cfg, lossless_core::cc::none::NoCc).unwrap();
    sim.track_order();
    // Midway through the hot spot (picoseconds).
    sim.run_until(200_000_000, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
    let during = sim.isolation_in_use();
    let end = sim.end();
    sim.run_until(end, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
    sim.check_invariants().unwrap();
    assert!(during > 0, "{queues}: the hot spot is isolated while it lasts");
    assert_eq!(sim.isolation_in_use(), 0, "{queues}: released after it");
    // Moving a flow's packets between an input's queues keeps them in order (post-processing
    // takes only a cold queue's head, and a hot queue is behind nothing of its flow).
    assert_eq!(sim.reordered(), 0, "{queues}: delivered out of order");
}

// Read ports (the thesis' Paper VI switches give each virtual output queue its own): H0's
// 20 Gb/s link feeds two 10 Gb/s outputs through a crossbar of half its rate (10 Gb/s). One
// read port moves one packet at a time, 10 Gb/s out of the input in all: 5 Gb/s to each of H1
// and H2, a quarter of H0's link each. Two read ports move two at once: each output gets its
// 10 Gb/s, half of H0's link each.
#[test]
fn read_ports_let_an_input_feed_several_outputs_at_once() {
    let text = r#"
[simulation]
warmup_ns = 20_000
measure_ns = 200_000
[topology]
kind = "explicit"
hosts = ["H0", "H1", "H2"]
switches = ["S"]
latency_ns = 10
links = [{ a = "H0", b = "S", bandwidth_gbps = 20 }, { a = "H1", b = "S" }, { a = "H2", b = "S" }]
[switch]
speedup = 0.5
[[traffic]]
name = "a"
pattern = "flow"
src = "H0"
dest = "H1"
greedy = true
[[traffic]]
name = "b"
pattern = "flow"
src = "H0"
dest = "H2"
greedy = true
"#;
    for (ports, share) in [(1, 0.25), (2, 0.5)] {
        let s = run_config(&config_with(text, &[&format!("switch.read_ports={ports}")]));
        for c in ["a", "b"] {
            assert_close(&format!("{ports} read ports, flow {c}"), s.classes[c].accepted, share, 0.01);
        }
    }
}
