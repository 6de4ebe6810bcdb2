//! Routing deadlock: refused before the run when the routes are known to allow it, stopped by
//! the watchdog when the user allows it anyway, and never reported as a finished run.

mod common;
use common::{config_with, example, run, run_config};
use lossless_core::check;
use std::ops::ControlFlow;

/// Four switches in a ring, a host on each, every two-hop route clockwise, and greedy shift-2
/// traffic: each switch's clockwise output waits for the next switch's, around the ring (the
/// example explains it).
fn ring() -> String {
    example("deadlock/ring4_clockwise.toml")
}

const CYCLE: [&str; 4] = ["s0-s1>", "s1-s2>", "s2-s3>", "s3-s0>"];

#[test]
fn cyclic_routes_are_refused_with_the_cycle_named() {
    let e = check(&config_with(&ring(), &["routing.allow_deadlock=false"])).unwrap_err();
    assert_eq!(e.key, "routing.shortest_path.routes");
    for c in CYCLE {
        assert!(e.message.contains(c), "{e}");
    }
    assert!(e.message.contains("allow_deadlock"), "{e}");
}

#[test]
fn the_watchdog_stops_an_allowed_deadlock_and_names_the_cycle() {
    let cfg = config_with(&ring(), &[]);
    let s = lossless_core::run(&cfg, &mut |_| ControlFlow::Continue(())).unwrap();
    let d = s.deadlock.as_ref().expect("the ring deadlocks");
    // Greedy sources wait for credits that never come: no event is left, and the run stops at once.
    assert!(d.at_ns < 200_000.0 && d.in_flight > 0, "{d:?}");
    let mut cycle = d.cycle.clone();
    cycle.sort();
    assert_eq!(cycle, CYCLE, "{d:?}");
    // Open-loop sources keep generating messages into the locked network: the watchdog stops
    // it between one and one and a half timeouts after the last packet moved.
    let text = format!("{}\n[[traffic]]\npattern = \"flow\"\nsrc = \"h0\"\ndest = \"h1\"\nload = 0.01\n", ring());
    let cfg = config_with(&text, &[]);
    let s = lossless_core::run(&cfg, &mut |_| ControlFlow::Continue(())).unwrap();
    let d = s.deadlock.as_ref().expect("the ring deadlocks under open-loop traffic too");
    let idle = d.at_ns - d.last_move_ns;
    assert!((5_000.0..=15_000.0).contains(&idle) && d.at_ns < 200_000.0, "{d:?}");
    assert_eq!(d.cycle.len(), 4, "{d:?}");
    // Tree routing cannot deadlock: the watchdog stays quiet on a saturated fat tree.
    let tree =
        run(&format!("{}\n[[traffic]]\npattern = \"uniform\"\nload = 1.0\n[simulation]\nmeasure_ns = 20_000\nwatchdog_ns = 1_000\n", common::FAT_TREE_256));
    assert!(tree.deadlock.is_none());
}

#[test]
fn counterclockwise_routes_for_half_the_pairs_break_the_cycle() {
    // The same ring, two-hop routes alternating direction: no cycle, no refusal, no deadlock.
    let cfg = config_with(
        &ring(),
        &[
            "routing.shortest_path.routes.1.next=\"s0\"",
            "routing.shortest_path.routes.3.next=\"s2\"",
            "routing.allow_deadlock=false",
            "simulation.measure_ns=50000",
        ],
    );
    check(&cfg).unwrap();
    let s = run_config(&cfg);
    assert!(s.deadlock.is_none());
    assert!(s.classes["shift0"].accepted > 0.4, "{}", s.classes["shift0"].accepted);
}

/// A dragonfly whose shortest paths form channel-dependency cycles, under PFC: PAUSE frames
/// and their refreshes go on while no packet moves.
const DRAGONFLY_PFC: &str = "[simulation]\nwarmup_ns = 0\nmeasure_ns = 2_000_000\nwatchdog_ns = 20_000\n\
[topology]\nkind = \"dragonfly\"\nhosts_per_router = 2\nrouters_per_group = 4\nglobal_per_router = 2\n\
[routing]\nalgorithm = \"shortest_path\"\nallow_deadlock = true\n[flow_control]\nkind = \"pfc\"\n\
[[traffic]]\npattern = \"uniform\"\nload = 0.9\n";

/// The dragonfly's run, which may stop deadlocked.
fn stopped(overrides: &[&str]) -> lossless_core::Summary {
    lossless_core::run(&config_with(DRAGONFLY_PFC, overrides), &mut |_| ControlFlow::Continue(())).unwrap()
}

#[test]
fn a_pfc_deadlock_is_stopped_though_pauses_are_refreshed() {
    for threads in ["1", "2"] {
        let s = stopped(&[&format!("simulation.threads={threads}")]);
        let d = s.deadlock.as_ref().expect("shortest paths on this dragonfly deadlock under PFC");
        assert!(s.counters.pauses > 0 && !d.cycle.is_empty(), "{d:?}");
        // A refresh every half PAUSE is no movement: the run stops one to one and a half
        // timeouts after the last packet crossed a channel, not at the window's end.
        let idle = d.at_ns - d.last_move_ns;
        assert!((20_000.0..=30_000.0).contains(&idle) && d.at_ns < 2_000_000.0, "{threads} threads: {d:?}");
    }
}

#[test]
fn a_stopped_run_reports_rates_over_the_time_it_ran() {
    let s = stopped(&[]);
    let d = s.deadlock.as_ref().expect("deadlocks");
    // Nothing is measured after the stop: the window is the time run, so the offered load is
    // the configured 0.9 (over the 2 ms configured it would be 0.9 x at / 2 ms).
    assert_eq!(s.measure_ns, d.at_ns - s.warmup_ns);
    assert!(d.at_ns < 1_900_000.0, "{d:?}");
    let offered = s.classes["uniform0"].offered;
    assert!((offered - 0.9).abs() < 0.02, "offered {offered}");
}
