//! Input queueing of the data VC: FIFOs block behind a head waiting for a busy output, virtual
//! output queues do not, and a FIFO with bounded bypass (Santos et al. footnote 6) lies between.
//!
//! One switch; B and C saturate a 1 Gb/s link to H, so a packet for H waits about three of
//! that link's packet times for its turn. A sends a few packets to H (2% of its 10 Gb/s link)
//! among many to D (90%): behind a waiting packet for H, A's packets for D stall in a FIFO.

mod common;
use common::*;

const SCENARIO: &str = r#"
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
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let cfg = lossless_core::Config::from_toml_str(SCENARIO, &o).unwrap_or_else(|e| panic!("{e}"));
    let s = run_config(&cfg);
    (s.classes["A_cold"].accepted, s.classes["A_hot"].accepted)
}

#[test]
fn bypass_limit_orders_fifo_below_voq() {
    let (voq, voq_hot) = a_flows(&[]);
    let (fifo, fifo_hot) = a_flows(&["switch.voq=false"]);
    let bypass = |n: u32| a_flows(&["switch.voq=false", &format!("switch.bypass_limit={n}")]).0;
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
