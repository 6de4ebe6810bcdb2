//! Round-robin arbitration per input port: the unfairness it causes in trees, reproduced
//! analytically (thesis Paper II) and as in the SRP paper's Fig. 1 (§2).

mod common;
use common::*;

#[test]
fn round_robin_unfairness_in_a_4_ary_3_tree() {
    // Thesis Paper II §V, TARGETS IB-T11: all 63 hosts greedy to host 0, D-mod-K routing.
    // With D-mod-K every down link carries one destination's traffic, so each switch on the
    // way splits its output equally among its k = 4 inputs: the 3 hosts on host 0's leaf get
    // 1/4; the 12 under the same level-1 switch get 1/4 * 1/4 * 1/4 = 1/64; the 48 others get
    // 1/4 * 1/4 * 1/3 * 1/4 * 1/4 = 1/768 (general: 1/(k^(2n-1) - k^(2n-2))).
    let s = run(r#"
[simulation]
warmup_ns = 200000
measure_ns = 4000000
[topology]
kind = "kary_ntree"
k = 4
n = 3
[routing]
algorithm = "dmodk"
[[traffic]]
pattern = "hotspot"
dest = 0
greedy = true
message = { kind = "fixed", packets = 1 }
"#);
    let groups: [(std::ops::Range<u32>, f64); 3] = [(1..4, 1.0 / 4.0), (4..16, 1.0 / 64.0), (16..64, 1.0 / 768.0)];
    for (hosts, share) in groups {
        let mean = hosts.clone().map(|h| s.sources[&h]).sum::<f64>() / hosts.len() as f64;
        assert_close(&format!("mean share of hosts {hosts:?}"), mean, share, share * 0.01);
        for h in hosts {
            // A 4 ms window holds about 25 packets of a 1/768 source: +-1 packet is 4%.
            assert_close(&format!("share of host {h}"), s.sources[&h], share, share * 0.1);
        }
    }
}

#[test]
fn srp_fig1_baseline_tree_saturation() {
    // SRP paper §2, TARGETS SRP-1: L2 saturated; R1 splits it equally among its inputs from
    // L0, S3, S4, S5, so S1 and S2 (sharing L0) get half of what S3..S5 get; S0's packets wait
    // behind S1's and S2's for L0's credits, so S0 gets as little as they do although L0 and
    // L1 have bandwidth to spare.
    let s = run(&example("srp/fig1_baseline.toml"));
    let src = |h: u32| s.sources[&h];
    assert_close("L2 utilization", s.link("L2>").unwrap(), 1.0, 0.005);
    for local in [3, 4, 5] {
        for remote in [1, 2] {
            assert_close(&format!("S{remote}/S{local}"), src(remote) / src(local), 0.5, 0.02);
        }
    }
    assert!(src(0) < 0.5, "S0 gets {} of its link", src(0));
    let (l0, l1) = (s.link("L0>").unwrap(), s.link("L1>").unwrap());
    assert!(l0 < 0.9 && l1 < 0.9, "L0 {l0} and L1 {l1} have spare capacity");
    // The S0 flow crosses L0 and L1 only, so its throughput is what L1 carries.
    assert_close("S0 = L1", src(0), l1, 1e-9);
}
