//! Lossy links (`flow_control.kind = "lossy"`): drop-tail at switch inputs or outputs, drops
//! counted per link and in the conservation check (`run_config` checks it), bad settings refused.

mod common;
use common::*;

/// The ACCurate paper's parking lot without congestion control: H1 and H2 send to H4 over LA's
/// uplink, H3 sends to H4 from H4's leaf, all greedy at their links' rate.
fn parking_lot(overrides: &[&str]) -> lossless_core::Summary {
    let mut o = vec!["cc.mechanism=\"none\"", "simulation.warmup_ns=20000", "simulation.measure_ns=200000"];
    o.extend_from_slice(overrides);
    run_config(&example_with("accurate/parking_lot.toml", &o))
}

/// Packets sent on link `name` in the window, and those dropped at its end.
fn sent_dropped(s: &lossless_core::Summary, name: &str) -> (f64, f64) {
    let l = s.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"));
    (l.utilization * 10e9 / 8.0 * 200e-6 / 256.0, l.drops as f64)
}

fn drop_share(s: &lossless_core::Summary, name: &str) -> f64 {
    let (sent, dropped) = sent_dropped(s, name);
    dropped / sent
}

/// Packets dropped anywhere in the window over those the hosts injected in it.
fn dropped_of_injected(s: &lossless_core::Summary) -> f64 {
    let dropped: u64 = s.links.iter().map(|l| l.drops).sum();
    let injected: f64 = ["H1-LA>", "H2-LA>", "H3-LB>"].iter().map(|l| sent_dropped(s, l).0).sum();
    dropped as f64 / injected
}

#[test]
fn drop_tail_at_inputs_drops_what_each_bottleneck_cannot_carry() {
    let s = parking_lot(&["flow_control={kind=\"lossy\"}"]);
    // Each host offers its whole link. LA's uplink carries one link of H1 + H2's two, and H4's
    // link one of the uplink's and H3's: every input feeding a bottleneck loses half.
    for link in ["H1-LA>", "H2-LA>", "S-LB>", "H3-LB>"] {
        assert_close(link, drop_share(&s, link), 0.5, 0.01);
    }
    for link in ["LA-S>", "toH4<"] {
        assert_eq!(drop_share(&s, link), 0.0, "{link}");
    }
    // Round-robin at LB halves H4's link between its two inputs.
    let rate = |c: &str| s.classes[c].accepted;
    assert_close("f3", rate("f3"), 0.5, 0.01);
    assert_close("f1 + f2", rate("f1") + rate("f2"), 0.5, 0.01);
    // Three links' worth injected, one delivered.
    assert_close("dropped share", dropped_of_injected(&s), 2.0 / 3.0, 0.01);
    let under_credits = parking_lot(&[]);
    assert_eq!(under_credits.counters.dropped, 0);
}

#[test]
fn drop_tail_at_outputs_loses_the_same_share() {
    // Inputs ten times the output queue: no input fills, and the bottlenecks carry what they
    // carry with drops at inputs.
    let s = parking_lot(&["flow_control={kind=\"lossy\",drop=\"output\",output_queue_bytes=2560}", "switch.input_buffer_bytes=25600"]);
    let rate = |c: &str| s.classes[c].accepted;
    assert_close("total into H4", rate("f1") + rate("f2") + rate("f3"), 1.0, 0.01);
    assert_close("dropped share", dropped_of_injected(&s), 2.0 / 3.0, 0.01);
}

#[test]
fn a_flow_alone_loses_nothing() {
    let s = parking_lot(&["flow_control={kind=\"lossy\"}", "traffic=[{name=\"f3\",pattern=\"flow\",src=\"H3\",dest=\"H4\",greedy=true}]"]);
    assert_eq!(s.counters.dropped, 0);
    assert_close("f3", s.classes["f3"].accepted, 1.0, 0.01);
}

#[test]
fn bad_drop_settings_are_refused() {
    let error = |o: &[&str]| {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        let cfg = lossless_core::Config::from_toml_str(&example("fattree256_uniform.toml"), &o).unwrap();
        lossless_core::check(&cfg).err().unwrap_or_else(|| panic!("{o:?} was accepted"))
    };
    let e = error(&["flow_control={kind=\"lossy\",output_queue_bytes=4096}"]);
    assert_eq!(e.key, "flow_control.output_queue_bytes");
    assert!(e.to_string().contains("drop = \"output\""), "{e}");
    let e = error(&["flow_control={kind=\"lossy\",drop=\"output\",output_queue_bytes=100}"]);
    assert_eq!(e.key, "flow_control.output_queue_bytes");
    assert!(e.to_string().contains("at least one data packet (256 bytes)"), "{e}");
    let e = error(&["flow_control={kind=\"lossy\"}", "switch.voq.per_output_buffers=true"]);
    assert_eq!(e.key, "switch.voq.per_output_buffers");
}
