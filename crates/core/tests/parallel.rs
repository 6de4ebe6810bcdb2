//! A run split over threads (`simulation.threads`) gives the one-thread results bit for bit:
//! every shipped example, under each mechanism that runs on several threads, on two threads
//! divided two ways (pods together; switches dealt out in turn, so every channel between
//! switches crosses threads, the other division's threads each served in blocks,
//! `simulation.blocks`), every example in blocks on one thread too; and a division no thread
//! or block could run ahead of is refused by name.

mod common;
use common::*;
use lossless_core::{Config, Summary};
use std::path::{Path, PathBuf};

/// Every example scenario (sweep files excluded), relative to examples/.
fn examples() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
            let p = e.path();
            if p.is_dir() && p.file_name().unwrap() != "sweeps" {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut out = Vec::new();
    walk(&root, &mut out);
    out.sort();
    out.into_iter().map(|p| p.strip_prefix(&root).unwrap().to_path_buf()).collect()
}

/// `cfg` run through the engine the CLI and Python use, on `threads` threads divided `how`
/// (one thread: in `blocks` blocks).
fn run_on(cfg: &Config, threads: u32, how: &str, blocks: u32) -> Result<Summary, String> {
    let mut cfg = cfg.clone();
    cfg.simulation.threads = threads;
    cfg.simulation.blocks = blocks;
    cfg.simulation.partition = toml::Value::String(how.into()).try_into().unwrap();
    lossless_core::check(&cfg).map_err(|e| e.to_string())?;
    lossless_core::run(&cfg, &mut |_| std::ops::ControlFlow::Continue(())).map_err(|e| e.to_string())
}

/// Compared as text: an empty bin's mean latency is NaN, which equals nothing.
fn assert_same(what: &str, a: &Summary, b: &Summary) {
    assert_eq!(a.deterministic_json(), b.deterministic_json(), "{what}: summaries differ");
    assert_eq!(format!("{:?}", a.series), format!("{:?}", b.series), "{what}: time series differ");
    assert_eq!(format!("{:?}", a.links), format!("{:?}", b.links), "{what}: link tables differ");
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows), "{what}: flow rows differ");
}

/// Runs `cfg` on one thread, and on two, divided `linear` (each thread's partition in three
/// blocks) and `round_robin`: identical results, or, for a run that cannot be split, the same
/// refusal naming a key from both divisions, and a refusal of blocks naming theirs. True if it
/// ran.
fn same_on_every_division(what: &str, cfg: &Config) -> bool {
    let one = run_on(cfg, 1, "linear", 1).unwrap_or_else(|e| panic!("{what}: {e}"));
    match (run_on(cfg, 2, "linear", 3), run_on(cfg, 2, "round_robin", 1)) {
        (Ok(linear), Ok(dealt)) => {
            assert_same(&format!("{what}, 2 threads of 3 blocks"), &one, &linear);
            assert_same(&format!("{what}, 2 threads dealt in turn"), &one, &dealt);
            true
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "{what}: refused differently by the two divisions");
            assert!(a.contains("or set simulation.threads = 1"), "{what}: a refusal says what to do: {a}");
            let blocks = run_on(cfg, 1, "linear", 5).expect_err("refused on threads but served in blocks");
            assert!(
                blocks.contains("`simulation.blocks`") && blocks.contains("set simulation.blocks = 1"),
                "{what}: a refusal of blocks says what to do: {blocks}"
            );
            false
        }
        (a, b) => panic!("{what}: one division ran and the other did not: {:?} / {:?}", a.err(), b.err()),
    }
}

/// Runs `cfg` on one thread, plainly and in five blocks (its own loop, and the flow records put
/// back in completion order): identical results.
fn same_in_blocks(what: &str, cfg: &Config) {
    let one = run_on(cfg, 1, "linear", 1).unwrap();
    assert_same(&format!("{what}, 5 blocks"), &one, &run_on(cfg, 1, "linear", 5).unwrap_or_else(|e| panic!("{what}, 5 blocks: {e}")));
}

/// Shortened so the set runs in seconds: identity does not need a long window, and every
/// example still sends from its first microseconds.
const SHORT: [&str; 2] = ["simulation.warmup_ns=10000", "simulation.measure_ns=40000"];

/// Each example, under a mechanism, with overrides, shortened: identical on every division.
fn each_runs_alike(cases: &[(&str, &str, &[&str])]) {
    for &(path, mechanism, extra) in cases {
        let text = toml::to_string(&running(&example(path), mechanism)).unwrap();
        let what = format!("{path} with {mechanism}, {extra:?}");
        assert!(same_on_every_division(&what, &config_with(&text, &[&SHORT[..], extra].concat())), "{what} was refused");
    }
}

#[test]
fn every_example_runs_bit_for_bit_on_several_threads_or_is_refused_by_name() {
    let mut split = 0;
    for path in examples() {
        let what = path.display().to_string();
        let cfg = config_with(&std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(&path)).unwrap(), &SHORT);
        // The deadlock example is the next test's.
        if cfg.routing.allow_deadlock {
            continue;
        }
        if same_on_every_division(&what, &cfg) {
            split += 1;
            same_in_blocks(&what, &cfg);
        }
    }
    assert!(split >= 10, "only {split} examples ran on several threads");
}

#[test]
fn each_splittable_mechanism_runs_bit_for_bit_on_its_papers_examples() {
    let cases: [(&str, &str, &[&str]); 10] = [
        ("srp/hotspot40_background.toml", "ecn", &[]),
        ("fattree256_uniform.toml", "ecn", &[]),
        ("cbcm/fb16_hotspot.toml", "cbcm", &[]),
        ("cbcm/fb16_hotspot.toml", "ideal", &[]),
        ("dragonfly/df1056_ugal.toml", "cbcm", &[]),
        ("ibcc/testbed_scenario1.toml", "ibcc", &[]),
        ("srp/hotspot40_background.toml", "srp", &[]),
        ("srp/fig1_baseline.toml", "srp", &[]),
        ("santos/two_switch.toml", "santos", &[]),
        ("isolation/fattree64_ecocc.toml", "ibcc", &[]),
    ];
    each_runs_alike(&cases);
}

#[test]
fn srp_runs_bit_for_bit_on_several_threads_with_drops_early_drops_and_resent_copies() {
    // Speculative packets dropped at switches (NACKs from there, retransmissions), copies
    // resent in order while their originals may still arrive (the table of packets that may
    // arrive twice lives where they are delivered), early drops judged at queue heads, and
    // the authors' NIC and output buffer.
    each_runs_alike(&[
        ("fattree256_uniform.toml", "srp", &["traffic.0.load=0.8"]),
        ("fattree256_uniform.toml", "srp", &["traffic.0.load=0.8", "cc.srp.in_order=true"]),
        ("fattree256_uniform.toml", "srp", &["traffic.0.load=0.8", "cc.srp.early_drop=\"output_full\""]),
        ("fattree256_uniform.toml", "srp", &["traffic.0.load=0.8", "nic.control_between_packets=true", "switch.link_order=\"oldest_first\""]),
    ]);
}

#[test]
fn tcp_and_accurate_run_bit_for_bit_on_several_threads_over_every_flow_control() {
    // TCP's connections and timers and ACCurate's flows and FRP order follow each NIC's own
    // numbering of its send queues; PAUSE frames cross between threads; lossy links drop
    // where the packet arrives and TCP recovers at its source.
    // Long enough for TCP to lose, time out and resend on the small networks of these examples.
    const LONGER: [&str; 2] = ["simulation.warmup_ns=10000", "simulation.measure_ns=300000"];
    let flow_controls: [&[&str]; 3] = [
        &["flow_control={kind=\"credits\"}"],
        &["flow_control={kind=\"pfc\"}", "switch.input_buffer_bytes=9000"],
        &["flow_control={kind=\"lossy\"}", "cc.tcp.min_rto_ns=20000", "cc.tcp.initial_rto_ns=20000"],
    ];
    // The direct network with many short flows, each a send queue of its own.
    let many_flows: &[&str] = &["traffic.0.load=0.5", "traffic.0.message={kind=\"fixed\",packets=8}"];
    for (path, traffic) in [("accurate/parking_lot.toml", &[][..]), ("accurate/multinode.toml", many_flows)] {
        for mechanism in ["tcp", "accurate", "none"] {
            for fc in flow_controls {
                if mechanism != "tcp" && fc[0].contains("lossy") {
                    continue; // lossy links need a mechanism that resends
                }
                let text = toml::to_string(&running(&example(path), mechanism)).unwrap();
                let cfg = config_with(&text, &[&LONGER[..], traffic, &["nic.data_packet_bytes=1500"], fc].concat());
                let what = format!("{path} with {mechanism}, {fc:?}");
                assert!(same_on_every_division(&what, &cfg), "{what} was refused");
                same_in_blocks(&what, &cfg);
            }
        }
    }
}

#[test]
fn the_reproductions_variants_run_bit_for_bit_on_several_threads() {
    // The settings `lossless reproduce` turns on over the examples: input-buffer organizations
    // with and without IB CC (thesis Papers V-VI), Santos' responses and marking, CBCM's
    // variants and the CBCM paper's ECN and SRP, drawn IB CC marks, SRP on single packets; and
    // the thesis' HCA (a transmit FIFO with hot-packet queues), which none turns on.
    let cases: [(&str, &str, &[&str]); 20] = [
        ("isolation/fattree64_hotspot.toml", "none", &["switch.input_queues=\"fifo\""]),
        ("isolation/fattree64_hotspot.toml", "none", &["switch.input_queues=\"voqnet\""]),
        ("isolation/fattree64_hotspot.toml", "ibcc", &["switch.input_queues=\"voq\""]),
        ("isolation/fattree64_hotspot.toml", "ibcc", &["switch.input_queues=\"fbicm\"", "cc.ibcc.threshold_mode=\"cfq\""]),
        ("isolation/fattree64_ecocc.toml", "none", &[]),
        ("isolation/fattree64_ecocc.toml", "ibcc", &["switch.input_queues=\"voq\""]),
        ("isolation/fattree64_ecocc.toml", "ibcc", &["nic.tx_fifo_bytes=16384", "nic.hot_queues=2"]),
        ("santos/two_switch.toml", "santos", &["cc.santos.response=\"fimd\"", "cc.santos.discrete=true"]),
        ("santos/two_switch.toml", "santos", &["cc.santos.response=\"aimd\"", "cc.santos.marking=\"full_buffer\""]),
        ("cbcm/fb16_hotspot.toml", "cbcm", &["cc.cbcm.dedicated_vc=false", "cc.cbcm.rate_scale=0.99"]),
        ("cbcm/fb16_hotspot.toml", "cbcm", &["cc.cbcm.throttle=false"]),
        ("cbcm/fb16_hotspot.toml", "cbcm", &["cc.cbcm.router_detection=true"]),
        ("cbcm/fb16_hotspot.toml", "ecn", &["cc.ecn.marking=\"buffer\""]),
        ("cbcm/fb16_hotspot.toml", "ecn", &["cc.ecn.marking=\"voq\""]),
        ("cbcm/fb16_hotspot.toml", "srp", &["cc.srp.early_reservation=false", "nic.arbitration=\"fifo\"", "cc.srp.early_drop=\"output_full\""]),
        ("cbcm/fb512_hotspot.toml", "cbcm", &[]),
        ("ibcc/testbed_scenario1.toml", "ibcc", &["cc.ibcc.marking_rate=1"]),
        ("ibcc/fattree648_silent_forest.toml", "ibcc", &[]),
        ("fattree256_uniform.toml", "srp", &["traffic.0.message={kind=\"fixed\",packets=1}", "cc.srp.n_min=1", "traffic.0.load=0.8"]),
        ("fattree256_uniform.toml", "srp", &["cc.srp.early_drop=\"predicted\"", "traffic.0.load=0.8"]),
    ];
    each_runs_alike(&cases);
}

#[test]
fn a_deadlock_is_found_and_reported_alike_on_several_threads() {
    let cfg = example_with("deadlock/ring4_clockwise.toml", &[]);
    let one = run_on(&cfg, 1, "linear", 1).unwrap();
    assert!(one.deadlock.is_some(), "the example deadlocks");
    for (threads, how) in [(2, "linear"), (2, "round_robin")] {
        assert_same(&format!("{threads} threads {how}"), &one, &run_on(&cfg, threads, how, 1).unwrap());
    }
    assert_same("4 blocks", &one, &run_on(&cfg, 1, "linear", 4).unwrap());
    assert_same("2 threads of 2 blocks", &one, &run_on(&cfg, 2, "linear", 2).unwrap());
}

#[test]
fn ecmp_and_per_output_buffers_run_bit_for_bit_on_several_threads() {
    // ECMP hashes the flow the packet carries; per-output buffers route one switch ahead with
    // the upstream switch's stream (nca draws up ports there; UGAL decides at the first
    // switch, which routes on arrival).
    let cases: [(&str, &str, &[&str]); 4] = [
        ("fattree256_uniform.toml", "none", &["routing.algorithm=\"ecmp\""]),
        ("fattree256_uniform.toml", "srp", &["switch.voq.per_output_buffers=true"]),
        ("cbcm/fb16_hotspot.toml", "cbcm", &["switch.voq.per_output_buffers=true"]),
        ("cbcm/fb512_hotspot.toml", "ideal", &["switch.voq.per_output_buffers=true"]),
    ];
    each_runs_alike(&cases);
}

#[test]
fn a_division_no_thread_could_run_ahead_of_is_refused_naming_the_setting() {
    let cfg = example_with("fattree256_uniform.toml", &["topology.latency_ns=0"]);
    let e = run_on(&cfg, 2, "linear", 1).expect_err("refused");
    assert!(e.contains("`simulation.threads`") && e.contains("no latency"), "{e}");
    let e = run_on(&cfg, 1, "linear", 4).expect_err("refused");
    assert!(e.contains("`simulation.blocks`") && e.contains("no latency") && e.contains("set simulation.blocks = 1"), "{e}");
    run_on(&cfg, 1, "linear", 1).expect("runs on one thread");
    run_on(&cfg, 1, "linear", 0).expect("blocks chosen by size: none for a small run, and never across a channel of no latency");
}
