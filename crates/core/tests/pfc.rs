//! Priority flow control (`flow_control.kind = "pfc"`): lossless with the headroom the links
//! need, the same throughput as credits where nothing pauses, and bad thresholds refused.

mod common;
use common::*;

/// The SRP paper's 40:1 hot spot beside uniform background (256 hosts, 10 Gb/s, 32 ns links).
fn hotspot(overrides: &[&str]) -> lossless_core::Summary {
    let mut o = vec!["simulation.warmup_ns=20000", "simulation.measure_ns=60000"];
    o.extend_from_slice(overrides);
    run_config(&example_with("srp/hotspot40_background.toml", &o))
}

#[test]
fn a_hot_spot_under_pfc_pauses_senders_and_loses_nothing() {
    // `run_config` checks that no buffer ever held more than its capacity.
    let pfc = hotspot(&["flow_control={kind=\"pfc\"}"]);
    assert!(pfc.counters.pauses > 100, "{:?}", pfc.counters);
    assert_eq!(pfc.counters.dropped, 0);
    // The hot spot's ejection link is full either way.
    let credits = hotspot(&[]);
    assert_eq!(credits.counters.pauses, 0);
    let hot = |s: &lossless_core::Summary| s.classes["hotspot"].accepted * s.classes["hotspot"].sources as f64;
    assert_close("hot spot under PFC", hot(&pfc), 1.0, 0.02);
    assert_close("hot spot under credits", hot(&credits), 1.0, 0.02);
}

#[test]
fn where_nothing_pauses_pfc_carries_what_credits_do() {
    let run = |fc: &str| run_config(&example_with("fattree256_uniform.toml", &[fc, "simulation.measure_ns=40000"]));
    let (credits, pfc) = (run("flow_control={kind=\"credits\"}"), run("flow_control={kind=\"pfc\"}"));
    assert_close("accepted", pfc.classes["uniform"].accepted, credits.classes["uniform"].accepted, 0.01);
}

#[test]
fn thresholds_that_could_overflow_are_refused() {
    let error = |o: &[&str]| {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        let cfg = lossless_core::Config::from_toml_str(&example("fattree256_uniform.toml"), &o).unwrap();
        lossless_core::check(&cfg).err().unwrap_or_else(|| panic!("{o:?} was accepted"))
    };
    // 32 ns links at 10 Gb/s with a 26 ns router: 26 + 64 + 51.2 ns of bytes (177) and two
    // 256-byte packets: 689 bytes of headroom.
    let e = error(&["flow_control={kind=\"pfc\"}", "switch.input_buffer_bytes=900"]);
    assert_eq!(e.key, "switch.input_buffer_bytes");
    assert!(e.to_string().contains("689 bytes of headroom"), "{e}");
    let e = error(&["flow_control={kind=\"pfc\",xoff_bytes=4000}"]);
    assert_eq!(e.key, "flow_control.xoff_bytes");
    assert!(e.to_string().contains("and 3407 bytes"), "{e}");
    let e = error(&["flow_control={kind=\"pfc\",xoff_bytes=2000,xon_bytes=2500}"]);
    assert_eq!(e.key, "flow_control.xon_bytes");
    let e = error(&["flow_control={kind=\"pfc\"}", "switch.voq.per_output_buffers=true"]);
    assert_eq!(e.key, "switch.voq.per_output_buffers");
}
