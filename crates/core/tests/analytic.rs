//! Analytic truths: zero-load latency, single-flow rate, N:1 fair shares.

mod common;
use common::*;

fn single_flow(src: u32, dst: u32) -> String {
    format!(
        r#"{FAT_TREE_256}
[simulation]
warmup_ns = 0
measure_ns = 100000
[[traffic]]
pattern = "flow"
src = {src}
dest = {dst}
load = 0.01
arrival = "periodic"
message = {{ kind = "fixed", packets = 1 }}
"#
    )
}

#[test]
fn zero_load_latency_between_leaves() {
    // 4 x 32 ns links + 3 x 26 ns routers + 204.8 ns serialization = 410.8 ns in flight.
    let s = run(&single_flow(0, 255));
    let c = &s.classes["flow0"];
    assert!(c.inflight_latency_ns.count >= 4);
    assert_close("mean in-flight latency", c.inflight_latency_ns.mean, 410.8, 1e-9);
    // Nothing waits at an idle source either.
    assert_close("mean packet latency", c.packet_latency_ns.mean, 410.8, 1e-9);
}

#[test]
fn zero_load_latency_within_a_leaf() {
    // 2 x 32 ns links + 1 x 26 ns router + 204.8 ns serialization = 294.8 ns.
    let s = run(&single_flow(0, 1));
    assert_close("mean in-flight latency", s.classes["flow0"].inflight_latency_ns.mean, 294.8, 1e-9);
}

#[test]
fn one_greedy_flow_gets_the_full_link_rate() {
    // A greedy source with nothing in its way is limited only by its 10 Gb/s link.
    let s = run(&format!(
        r#"{FAT_TREE_256}
[simulation]
warmup_ns = 5000
measure_ns = 200000
[[traffic]]
pattern = "flow"
src = 3
dest = 200
greedy = true
"#
    ));
    // One 204.8 ns packet may straddle each window edge.
    assert_close("accepted", s.classes["flow0"].accepted, 1.0, 0.002);
    // Its links are busy for the whole window, whose edges (5 us, 205 us) fall inside packets:
    // each link counts the part of a straddling packet inside the window, so it is 1 to within
    // a byte per edge (4e-6 of the 250,000 bytes the window holds), never above.
    for l in s.links.iter().filter(|l| l.from == "h3" || l.to == "h200") {
        assert!(l.utilization <= 1.0 && l.utilization >= 1.0 - 8e-6, "{}: {}", l.name, l.utilization);
    }
}

#[test]
fn n_greedy_flows_into_one_node_share_its_ejection_link() {
    // N greedy senders on the destination's own leaf: each enters on its own input port and
    // round-robin gives each 1/N of the ejection link.
    for n in [2u32, 3, 5] {
        let sources: Vec<String> = (1..=n).map(|h| h.to_string()).collect();
        let s = run(&format!(
            r#"{FAT_TREE_256}
[simulation]
warmup_ns = 20000
measure_ns = 200000
[[traffic]]
pattern = "hotspot"
dest = 0
sources = [{}]
greedy = true
"#,
            sources.join(", ")
        ));
        for h in 1..=n {
            assert_close(&format!("share of host {h} with N = {n}"), s.sources[&h], 1.0 / n as f64, 0.003);
        }
        let ejection = s.links.iter().find(|l| l.to == "h0").expect("ejection link of h0").utilization;
        assert_close("ejection link utilization", ejection, 1.0, 0.002);
    }
}
