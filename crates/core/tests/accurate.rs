//! ACCurate (the ACCurate paper, §II-§III) against max-min fair rates computed here by water
//! filling, on the paper's two small scenarios (examples/accurate/).

mod common;
use common::*;

/// Max-min fair rates of flows over links (progressive filling): every unfrozen flow grows
/// until a link fills; the flows on a full link freeze. `paths[f]` lists flow f's links.
fn max_min(capacity: &[f64], paths: &[&[usize]]) -> Vec<f64> {
    let mut rate = vec![0.0; paths.len()];
    let mut frozen = vec![false; paths.len()];
    while frozen.iter().any(|f| !f) {
        // The smallest equal increment that fills some link.
        let step = (0..capacity.len())
            .filter_map(|l| {
                let users = (0..paths.len()).filter(|&f| !frozen[f] && paths[f].contains(&l)).count();
                let used: f64 = (0..paths.len()).filter(|&f| paths[f].contains(&l)).map(|f| rate[f]).sum();
                (users > 0).then(|| (capacity[l] - used) / users as f64)
            })
            .fold(f64::INFINITY, f64::min);
        for f in 0..paths.len() {
            if !frozen[f] {
                rate[f] += step;
            }
        }
        for (l, &cap) in capacity.iter().enumerate() {
            let used: f64 = (0..paths.len()).filter(|&f| paths[f].contains(&l)).map(|f| rate[f]).sum();
            if used >= cap - 1e-9 {
                for f in 0..paths.len() {
                    if paths[f].contains(&l) {
                        frozen[f] = true;
                    }
                }
            }
        }
    }
    rate
}

/// Each link's capacity less ACCurate's headroom α = 0.05, in Gb/s.
const USABLE: f64 = 10.0 * 0.95;

#[test]
fn the_parking_lot_gets_max_min_rates() {
    let s = run_config(&example_with("accurate/parking_lot.toml", &[]));
    // Links: 0 H1's, 1 H2's, 2 H3's, 3 the spine path to LB, 4 LB -> H4.
    let want = max_min(&[USABLE; 5], &[&[0, 3, 4], &[1, 3, 4], &[2, 4]]);
    for (f, w) in ["f1", "f2", "f3"].iter().zip(&want) {
        assert_close(f, s.classes[*f].accepted * 10.0, *w, 0.02 * w);
    }
    // Without congestion control, the switch's round-robin over two inputs halves the remote ones.
    let base = run_config(&example_with("accurate/parking_lot.toml", &["cc.mechanism=\"none\""]));
    assert_close("f3 alone on its input", base.classes["f3"].accepted, 0.5, 0.01);
    assert_close("f1 sharing an input", base.classes["f1"].accepted, 0.25, 0.01);
}

#[test]
fn the_victim_keeps_its_max_min_rate_and_recovers() {
    // While f4 (370-570 us) shares H1's link with f1 and the uplink with f2 and f3.
    let during = |mechanism: &str| {
        let o = ["simulation.warmup_ns=430000", "simulation.measure_ns=140000", mechanism];
        let s = run_config(&example_with("accurate/victim.toml", &o));
        ["f1", "f2", "f3", "f4"].map(|f| s.classes[f].accepted * 10.0)
    };
    // Links: 0 H1's, 1 H3's, 2 H4's, 3 L -> D1, 4 the uplink.
    let want = max_min(&[USABLE; 5], &[&[0, 3], &[1, 4], &[2, 4], &[0, 4]]);
    assert_close("max-min f1", want[0], USABLE - USABLE / 3.0, 1e-9);
    let acc = during("cc.mechanism=\"accurate\"");
    for (f, (got, w)) in ["f1", "f2", "f3", "f4"].iter().zip(acc.iter().zip(&want)) {
        assert_close(f, *got, *w, 0.03 * w);
    }
    // Without congestion control f4's backlog at H1's first switch holds f1 to f4's rate.
    let none = during("cc.mechanism=\"none\"");
    assert_close("f1 dragged", none[0], 10.0 / 3.0, 0.3);
    // After f4 stops, f1 is alone on its links again: back to its link less the headroom.
    let after = run_config(&example_with("accurate/victim.toml", &["simulation.warmup_ns=640000", "simulation.measure_ns=160000"]));
    assert_close("f1 after", after.classes["f1"].accepted * 10.0, USABLE, 0.02 * USABLE);
    assert!(after.cc["short_circuits"] < 20, "{:?}", after.cc);
}

#[test]
fn a_shared_transmit_fifo_holds_the_victim_until_f4_has_drained_from_it() {
    // PAUSE-only (§III-B): greedy f1 and f4 keep H1's FIFO full, alternating packets (the NIC's
    // round-robin over its send queues), so when f4 stops at 570 us half the FIFO is f4's, and
    // it leaves at f4's third of the uplink: f1 stays at that rate until then.
    const FIFO_BYTES: f64 = 65_536.0;
    let third = 10.0 / 3.0;
    let drained_us = FIFO_BYTES / 2.0 * 8.0 / (third * 1e3);
    assert_close("drain time", drained_us, 78.6, 0.1);
    let f1 = |from_us: f64, to_us: f64, fifo: &str| {
        let o = [
            "cc.mechanism=\"none\"",
            "flow_control={kind=\"pfc\"}",
            fifo,
            &format!("simulation.warmup_ns={}", from_us * 1e3),
            &format!("simulation.measure_ns={}", (to_us - from_us) * 1e3),
        ];
        run_config(&example_with("accurate/victim.toml", &o)).classes["f1"].accepted * 10.0
    };
    let fifo = "nic.tx_fifo_bytes=65536";
    assert_close("f1 while f4's packets drain from the FIFO", f1(575.0, 570.0 + drained_us - 5.0, fifo), third, 0.4);
    assert_close("f1 once they have", f1(570.0 + drained_us + 10.0, 800.0, fifo), 10.0, 0.3);
    // Without the FIFO only the first switch's 2.5 KB input buffer held f4's backlog.
    assert_close("f1 without a FIFO", f1(575.0, 570.0 + drained_us - 5.0, "nic.tx_fifo_bytes=0"), 10.0, 0.3);
}
