//! The CBCM paper's Ideal reference (§III, Fig. 2): with every traffic class on its own VC, a
//! hot spot no longer holds back the uniform traffic that shares its buffers.

mod common;
use common::*;

/// Fig. 2's scenario on the 16-node 1D flattened butterfly: nodes 0, 5, 8 and 12 send to node
/// 4 without pause (from `hot_start_ns`); the other nodes send uniform random traffic among
/// themselves at 30% load. Returns the uniform class's mean packet latency (ns).
fn uniform_latency_ns(mechanism: &str, hot_start_ns: f64) -> f64 {
    let text = format!(
        r#"[simulation]
warmup_ns = 20000
measure_ns = 100000
[topology]
kind = "flattened_butterfly"
routers_per_dim = 4
dims = 1
concentration = 4
[cc]
mechanism = "{mechanism}"
[[traffic]]
name = "hot"
pattern = "hotspot"
sources = [0, 5, 8, 12]
dest = 4
greedy = true
start_ns = {hot_start_ns}
[[traffic]]
name = "ur"
pattern = "uniform"
exclude = ["hot"]
load = 0.3
"#
    );
    let s = run(&text);
    assert_close("uniform accepted", s.classes["ur"].accepted, 0.3, 0.02);
    s.classes["ur"].packet_latency_ns.mean
}

#[test]
fn separate_vcs_keep_uniform_traffic_out_of_the_hot_spot_s_tree() {
    // The hot spot silent (it would start after the run) and sending.
    let never = 1e12;
    let (shared_alone, shared) = (uniform_latency_ns("none", never), uniform_latency_ns("none", 0.0));
    let (ideal_alone, ideal) = (uniform_latency_ns("ideal", never), uniform_latency_ns("ideal", 0.0));
    // Without a hot spot the two networks are the same (one class, one VC in use).
    assert_eq!(shared_alone, ideal_alone);
    // One shared VC: uniform packets wait behind the hot spot's in the buffers it fills (about
    // twice the latency here); on their own VC they hardly notice it.
    assert!(shared > 1.5 * shared_alone, "shared VC: {shared} ns with the hot spot, {shared_alone} ns without");
    assert!(ideal < 1.05 * ideal_alone, "Ideal: {ideal} ns with the hot spot, {ideal_alone} ns without");
}

#[test]
fn classes_sharing_a_link_take_it_in_turn() {
    // Node 4 sends to node 0 without pause, at the rate of the link between their routers (1
    // and 0); nodes 5 and 6, on router 1 too, send 20% each to nodes 1 and 0 over that link, on
    // VCs of their own. The link serves its VCs in turn, so the two get what they offer and the
    // greedy flow the rest. (It once served the lowest-numbered VC with a packet first, and the
    // greedy flow's VC took the link for good.)
    let traffic = "traffic=[{name=\"greedy\",pattern=\"flow\",src=4,dest=0,greedy=true},{name=\"to1\",pattern=\"flow\",src=5,dest=1,load=0.2},{name=\"to0\",pattern=\"flow\",src=6,dest=0,load=0.2}]";
    let s = run_config(&example_with("cbcm/fb16_hotspot.toml", &["cc.mechanism=\"ideal\"", "routing.algorithm=\"minimal\"", traffic]));
    let accepted = |c: &str| s.classes[c].accepted;
    assert_close("5 -> 1", accepted("to1"), 0.2, 0.02);
    assert_close("6 -> 0", accepted("to0"), 0.2, 0.02);
    assert_close("4 -> 0", accepted("greedy"), 0.6, 0.02);
}
