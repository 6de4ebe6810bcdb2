//! Priority flow control (`flow_control.kind = "pfc"`): lossless with the headroom the links
//! need, PAUSE frames at the period the link timing gives, the same throughput as credits
//! where nothing pauses, and bad thresholds refused.

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

#[test]
fn pauses_come_at_the_period_the_link_timing_gives() {
    let s = run(LINE);
    // A PAUSE stops A two channel latencies and a 64-byte frame (51.2 ns) after the buffer
    // crossed XOFF; a resume restarts arrivals that and a router pipeline after it fell to XON.
    // Meanwhile the buffer rises (falls) at 0.625 bytes/ns past each threshold, and travels the
    // 512 bytes between them both ways: one cycle is 2 (stop + restart) + 2 x 512 / 0.625 ns.
    let (stop_ns, restart_ns) = (2_000.0 + 51.2, 2_000.0 + 51.2 + 100.0);
    let cycle_ns = 2.0 * (stop_ns + restart_ns) + 2.0 * 512.0 / 0.625;
    assert_close("PAUSE frames", s.counters.pauses as f64, 1e6 / cycle_ns, 5.0);
    // The buffer never runs dry: B's link stays busy.
    assert_close("B's link", s.classes["f"].accepted, 0.5, 0.002);
    assert_eq!(s.counters.dropped, 0);
}

#[test]
fn a_short_pause_is_refreshed_at_half_its_time_while_the_buffer_stays_above_xon() {
    // The line above with PAUSEs of 50 quanta (50 x 51.2 ns = 2,560 ns at 10 Gb/s): S holds A
    // paused from XOFF until the buffer has fallen to XON, 2,051.2 ns (the PAUSE on its way,
    // the buffer still rising 1,282 bytes) + (1,282 + 512) / 0.625 ns = 4,921.6 ns, and
    // refreshes every 1,280 ns meanwhile: three refreshes, four frames a cycle. Each refresh
    // reaches A before the PAUSE before it runs out, so the cycle and B's rate do not change.
    let long = run(LINE);
    let short = run(&LINE.replace("kind = \"pfc\"", "kind = \"pfc\"\npause_quanta = 50"));
    assert_close("frames a cycle", short.counters.pauses as f64 / long.counters.pauses as f64, 4.0, 0.05);
    assert_close("B's link", short.classes["f"].accepted, 0.5, 0.002);
    // Refreshes sent faster than a frame crosses the 1 us channel (1,051.2 ns) are refused.
    let o = ["flow_control.pause_quanta=41".to_string()];
    let e = lossless_core::check(&lossless_core::Config::from_toml_str(LINE, &o).unwrap()).unwrap_err();
    assert_eq!(e.key, "flow_control.pause_quanta");
    assert!(e.to_string().contains("give at least 42 quanta"), "{e}");
    lossless_core::check(&lossless_core::Config::from_toml_str(LINE, &["flow_control.pause_quanta=42".to_string()]).unwrap()).unwrap();
}

/// A sends greedily to B through S; S's link to B runs at half A's rate, so S's input from A
/// fills at 5 Gb/s while A sends and drains at 5 Gb/s while it is paused. 1 us channels, a 100 ns
/// router, 256-byte packets, 8 KB input buffers: XOFF 4,991 bytes (the buffer less the 3,201-byte
/// headroom), XON two packets lower.
const LINE: &str = r#"
[simulation]
warmup_ns = 0
measure_ns = 1_000_000

[topology]
kind = "explicit"
hosts = ["A", "B"]
switches = ["S"]
bandwidth_gbps = 10
latency_ns = 1000
links = [ { a = "A", b = "S" }, { a = "S", b = "B", bandwidth_gbps = 5 } ]

[switch]
router_latency_ns = 100
input_buffer_bytes = 8192
output_buffer_packets = 1

[flow_control]
kind = "pfc"

[[traffic]]
name = "f"
pattern = "flow"
src = "A"
dest = "B"
greedy = true
"#;
