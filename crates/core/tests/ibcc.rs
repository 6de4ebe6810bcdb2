//! InfiniBand CC (thesis §2.3, Papers I-III) on the two-switch testbed: it removes HoL blocking
//! and the parking lot (IB-T2/T3), throttles only the flows through the root, and gates
//! injection by the CCT.

mod common;
use common::*;
use lossless_core::{Config, Summary};

/// Testbed scenario 1 (with CC, as the file selects) with every flow started at once (the
/// reproduction staggers them).
fn scenario1_config(overrides: &[&str]) -> Config {
    let mut o = vec!["simulation.warmup_ns=30000000", "simulation.measure_ns=30000000", "simulation.bin_ns=5000000"];
    let starts: Vec<String> = (1..5).map(|i| format!("traffic.{i}.start_ns=0")).collect();
    o.extend(starts.iter().map(String::as_str));
    o.extend_from_slice(overrides);
    example_with("ibcc/testbed_scenario1.toml", &o)
}

fn scenario1(overrides: &[&str]) -> Summary {
    run_config(&scenario1_config(overrides))
}

/// Testbed scenario 2 (IB-T7) with CC and its three flows started at once.
fn scenario2(overrides: &[&str]) -> Summary {
    let mut o = vec!["simulation.warmup_ns=30000000", "simulation.measure_ns=30000000", "traffic.1.start_ns=0", "traffic.2.start_ns=0"];
    o.extend_from_slice(overrides);
    run_config(&example_with("ibcc/testbed_scenario2.toml", &o))
}

fn gbps(s: &Summary, class: &str) -> f64 {
    // Host links of the testbed run at 13 Gb/s.
    s.classes[class].accepted * 13.0
}

#[test]
fn without_cc_the_victim_is_blocked_and_the_parking_lot_splits_the_bottleneck() {
    let s = run_config(&without_cc(&scenario1_config(&[])));
    // IB-T2: S2 round-robins over 3 inputs (from S1, H6, H7): 1/3 each; F2 and F3 share S1's.
    for (f, share) in [("F2", 1.0 / 6.0), ("F3", 1.0 / 6.0), ("F4", 1.0 / 3.0), ("F5", 1.0 / 3.0)] {
        assert_close(f, gbps(&s, f) / 13.0, share, 0.005);
    }
    // The victim shares S2's input buffer with F2, F3 and is held to their rate.
    assert_close("victim", gbps(&s, "F1"), gbps(&s, "F2"), 0.1);
}

#[test]
fn cc_frees_the_victim_and_equalizes_the_contributors() {
    let s = scenario1(&[]);
    // IB-T3: the victim at its full rate, four contributors near 13/4 Gb/s each.
    assert!(gbps(&s, "F1") > 12.9, "victim {}", gbps(&s, "F1"));
    let c: Vec<f64> = ["F2", "F3", "F4", "F5"].iter().map(|f| gbps(&s, f)).collect();
    let (lo, hi) = (c.iter().cloned().fold(f64::MAX, f64::min), c.iter().cloned().fold(0.0, f64::max));
    assert!(hi / lo < 1.25, "contributors {c:?}");
    assert!(c.iter().sum::<f64>() > 0.9 * 13.0, "bottleneck under-used: {c:?}");
    // FECN only at roots: every mark is answered by one CNP, and the victim is never throttled.
    assert_eq!(s.cc["marks"], s.cc["becns"]);
    assert_eq!(s.cc["throttled_flows"], 4);
}

#[test]
fn marking_off_at_threshold_zero_changes_nothing() {
    // Threshold weight 0 [thesis §2.3.2]: no port marks, so the run is the baseline's, bit for bit in the
    // data (the mechanism's control VC exists but carries nothing).
    let (off, zero) = (run_config(&without_cc(&scenario1_config(&[]))), scenario1(&["cc.ibcc.threshold=0"]));
    assert_eq!(zero.cc["marks"], 0);
    for f in ["F1", "F2", "F3", "F4", "F5"] {
        assert_eq!(off.classes[f].accepted, zero.classes[f].accepted, "{f}");
    }
}

#[test]
fn sl_granularity_throttles_a_source_s_uncongested_flows_too() {
    // [thesis §2.3.2]: at SL level one congesting flow throttles every flow of its source; at QP level
    // only the flow through the root. H2 sends to the hot spot H5 and also to H4 (uncongested).
    let h2_to_h4 = ["traffic.0.src=\"H2\""];
    let qp = scenario1(&h2_to_h4);
    let sl = scenario1(&[&h2_to_h4[..], &["cc.ibcc.granularity=\"sl\""]].concat());
    // At QP level H2 -> H4 gets what H2's link has left after its share of H5; at SL level the
    // shared CCTI holds it to the contributors' rate.
    assert!(gbps(&qp, "F1") > 8.0, "QP: {}", gbps(&qp, "F1"));
    assert!(gbps(&sl, "F1") < 0.6 * gbps(&qp, "F1"), "SL {} vs QP {}", gbps(&sl, "F1"), gbps(&qp, "F1"));
}

#[test]
fn the_cct_gap_sets_a_throttled_flow_s_rate() {
    // A CCT whose every entry is 1.26 us (one 2048-byte packet time at 13 Gb/s) and CCTI_Min 1:
    // every flow waits a packet time after each packet, so a lone flow gets half its link.
    let table = format!("cc.ibcc.cct=[{}]", vec!["1260.3"; 128].join(","));
    let s = run_config(&example_with(
        "ibcc/testbed_scenario1.toml",
        &[
            "cc.ibcc.ccti_min=1",
            &table,
            "traffic.1.start_ns=1e12",
            "traffic.2.start_ns=1e12",
            "traffic.3.start_ns=1e12",
            "traffic.4.start_ns=1e12",
            "simulation.warmup_ns=1000000",
            "simulation.measure_ns=5000000",
        ],
    ));
    assert_close("F1 at half rate", s.classes["F1"].accepted, 0.5, 0.005);
}

#[test]
fn summed_voqs_leave_the_congestion_state_once_they_drain() {
    // Scenario 2 (IB-T7) with all three flows at once and Paper II's two thresholds compared
    // with the VoQs' sum: weight 15 puts the upper one at 8 KiB, the lower one 6.5 KiB below it,
    // under a packet. The packet being sent has left its VoQ, so the port leaves the state when
    // the VoQs drain and the flows share the S1 -> S2 link (32 Gb/s). Counting that packet kept
    // the port congested for good and every flow at the CCT's floor, 1.5 Gb/s.
    let s = scenario2(&["cc.ibcc.threshold=15", "cc.ibcc.hysteresis_bytes=6656", "cc.ibcc.threshold_mode=\"sum\""]);
    let total: f64 = ["F1", "F2", "F3"].iter().map(|f| gbps(&s, f)).sum();
    assert!(total > 0.8 * 32.0, "S1 -> S2 carries {total:.2} Gb/s");
}

#[test]
fn under_a_single_threshold_the_flow_that_fills_its_voq_is_marked_least() {
    // IB-T7 with a single threshold at weight 15 (8 KiB, 4 MTU; docs/validation.md): the fastest
    // flow's VoQ is the one that crosses it, while S1 serves the other two; it sends the fewest
    // packets in the congested state, so it gets the fewest marks, in fraction and per second,
    // and keeps its lead.
    let s = scenario2(&["cc.ibcc.threshold=15"]);
    let flows = ["F1", "F2", "F3"];
    let fastest = *flows.iter().max_by(|a, b| gbps(&s, a).total_cmp(&gbps(&s, b))).unwrap();
    let marks_per_s = |f: &str| gbps(&s, f) * s.classes[f].marked;
    for f in flows.iter().filter(|&&f| f != fastest) {
        assert!(s.classes[fastest].marked < s.classes[*f].marked, "{fastest} marked {} vs {f} {}", s.classes[fastest].marked, s.classes[*f].marked);
        assert!(marks_per_s(fastest) < marks_per_s(f), "{fastest} vs {f}");
    }
    assert!(gbps(&s, fastest) > 1.2 * flows.iter().map(|f| gbps(&s, f)).fold(f64::MAX, f64::min), "the single threshold left the flows fair");
}

#[test]
fn the_testbed_s_single_threshold_costs_a_few_percent_and_stays_fair() {
    // IB-T7 as the example reads Paper III's switches: one threshold at 64 KiB of a VoQ. The
    // VoQs stay deep enough that S1's round-robin shares the link whatever the flows' CCTIs, and
    // a marking episode ends as soon as the level dips under the threshold: the paper's -3.5%,
    // fair (at 8 KiB the same flows split 8-13 Gb/s, the test above).
    let s = scenario2(&[]);
    let rates: Vec<f64> = ["F1", "F2", "F3"].iter().map(|f| gbps(&s, f)).collect();
    let (lo, hi) = (rates.iter().cloned().fold(f64::MAX, f64::min), rates.iter().cloned().fold(0.0, f64::max));
    assert!(rates.iter().sum::<f64>() > 0.93 * 32.0, "S1 -> S2 carries {rates:?} (no CC: 32 Gb/s)");
    assert!(hi / lo < 1.1, "unfair: {rates:?}");
    assert!(s.cc["marks"] > 0, "CC never acted");
}
