//! Traffic features as a user sets them up: schedules, bursts, permutations, size laws, sender
//! sets, and the other topologies.

mod common;
use common::*;

#[test]
fn a_class_is_active_only_between_start_and_stop() {
    // A step: uniform 0.3 from 0 to 30 us, then a second class from 30 us. Time series bins of
    // 5 us show each class's offered load only where it is active.
    let s = run(&format!(
        r#"{FAT_TREE_256}
[simulation]
warmup_ns = 0
measure_ns = 60000
bin_ns = 5000
[[traffic]]
name = "before"
pattern = "uniform"
load = 0.3
stop_ns = 30000
[[traffic]]
name = "after"
pattern = "uniform"
load = 0.3
start_ns = 30000
"#
    ));
    for row in &s.series {
        let active = if row.class == "before" { row.bin_start_ns < 30000.0 } else { row.bin_start_ns >= 30000.0 };
        if active {
            assert_close(&format!("{} offered at {}", row.class, row.bin_start_ns), row.offered, 0.3, 0.06);
        } else {
            assert_eq!(row.offered, 0.0, "{} at {}", row.class, row.bin_start_ns);
        }
    }
}

#[test]
fn a_burst_sends_one_message_per_source_at_its_start() {
    // SRP paper §6.5's impulse: at 10 us every node sends one 8-packet message to host 0.
    let s = run(&format!(
        r#"{FAT_TREE_256}
[simulation]
warmup_ns = 0
measure_ns = 400000
[[traffic]]
name = "impulse"
pattern = "burst"
dest = 0
start_ns = 10000
message = {{ kind = "fixed", packets = 8 }}
"#
    ));
    assert_eq!(s.counters.generated, 255 * 8);
    // All of it drains through host 0's ejection link in 2040 x 204.8 ns = 418 us, which ends
    // after the window: what is not delivered is still in the network or at its source.
    assert_eq!(s.counters.delivered + s.counters.in_flight + s.counters.queued, 255 * 8);
    let first = s.series.iter().find(|r| r.packets > 0).unwrap();
    assert!(first.bin_start_ns >= 10000.0);
}

#[test]
fn permutations_send_each_source_to_its_partner() {
    // Under a permutation every destination receives from exactly one source, so at a load
    // the tree carries without contention every source gets what it offers.
    for (pattern, extra) in [("shift", "shift = 17"), ("tornado", ""), ("bitreverse", ""), ("randperm", "")] {
        let s =
            run(&format!("{FAT_TREE_256}\n[simulation]\nwarmup_ns = 5000\nmeasure_ns = 40000\n[[traffic]]\npattern = \"{pattern}\"\n{extra}\nload = 0.3\n"));
        let c = s.classes.values().next().unwrap();
        assert_close(&format!("{pattern} accepted"), c.accepted, 0.3, 0.03);
        // Bit reversal on 8 address bits fixes the 16 palindromes, which send nothing.
        let expected_sources = if pattern == "bitreverse" { 256 - 16 } else { 256 };
        assert_eq!(c.sources, expected_sources, "{pattern}");
    }
}

#[test]
fn message_size_laws_have_their_means() {
    // Offered load is in bytes, so the message rate adapts to the mean size.
    for (law, mean) in [
        ("{ kind = \"bimodal\", packets = [4, 64] }", 34.0),
        ("{ kind = \"bimodal\", packets = [4, 64], weights = [3, 1] }", 19.0),
        ("{ kind = \"uniform\", min = 4, max = 64 }", 34.0),
    ] {
        let s = run(&format!(
            "{FAT_TREE_256}\n[simulation]\nwarmup_ns = 0\nmeasure_ns = 200000\n[[traffic]]\npattern = \"uniform\"\nload = 0.2\nmessage = {law}\n"
        ));
        assert_close(&format!("{law} offered"), s.classes["uniform0"].offered, 0.2, 0.02);
        let per_message = s.counters.generated as f64 / s.counters.messages as f64;
        // About 2,400 messages: the sample mean is within 5% of the law's.
        assert_close(&format!("{law} mean size"), per_message, mean, 0.05 * mean);
    }
}

#[test]
fn exclude_leaves_the_background_to_the_other_hosts() {
    let cfg = |seed: u64| {
        example_with("srp/hotspot40_background.toml", &[&format!("simulation.seed={seed}"), "simulation.measure_ns=5000", "simulation.warmup_ns=0"])
    };
    let senders = |seed| {
        let s = run_config(&cfg(seed));
        assert_eq!(s.classes["hotspot"].sources, 40);
        assert_eq!(s.classes["background"].sources, 256 - 40 - 1);
        s.sources.keys().copied().collect::<Vec<_>>()
    };
    // Every host but the hot spot (100) is a source of one class or the other.
    let all = senders(1);
    assert_eq!(all.len(), 255);
    assert!(!all.contains(&100));
}

#[test]
fn sources_from_reuses_another_classes_random_senders() {
    // SRP paper §5.3's step: the hot-spot senders do uniform traffic until the onset.
    let cfg = example_with("srp/hotspot40_background.toml", &["simulation.warmup_ns=0", "simulation.measure_ns=5000", "traffic.0.start_ns=4000"]);
    let mut text = toml::to_string(&cfg).unwrap();
    text.push_str("[[traffic]]\nname = \"warm-up\"\npattern = \"uniform\"\nload = 0.4\nstop_ns = 4000\nsources_from = \"hotspot\"\n");
    let s = run(&text);
    assert_eq!(s.classes["warm-up"].source_ids, s.classes["hotspot"].source_ids);
    assert_eq!(s.classes["warm-up"].sources, 40);
}

#[test]
fn the_648_node_fat_tree_of_36_port_switches() {
    // Thesis Paper IV: 36 leaves x 18 hosts under 18 spines. D-mod-K and NCA both deliver
    // uniform traffic below saturation at its offered rate.
    for algo in ["nca", "dmodk"] {
        let s = run(&format!(
            r#"
[simulation]
warmup_ns = 5000
measure_ns = 20000
[topology]
kind = "fat_tree2"
leaves = 36
hosts_per_leaf = 18
spines = 18
[routing]
algorithm = "{algo}"
[[traffic]]
pattern = "uniform"
load = 0.3
message = {{ kind = "fixed", packets = 1 }}
"#
        ));
        assert_eq!(s.sources.len(), 648);
        assert_close(&format!("{algo} accepted"), s.classes["uniform0"].accepted, 0.3, 0.03);
        // Zero-load bound: nothing arrives faster than 4 links + 3 routers + serialization.
        assert!(s.classes["uniform0"].inflight_latency_ns.p50 >= 294.8);
    }
}

#[test]
fn a_tree_of_one_switch_runs_under_every_tree_routing_as_under_shortest_paths() {
    // A 1-level k-ary tree and a 2-level fat tree with one leaf are one switch: up*/down*
    // routing has only down ports to take (it used to refuse them as not trees).
    for topology in [
        r#"kind = "kary_ntree"
k = 8
n = 1"#,
        r#"kind = "fat_tree2"
leaves = 1
hosts_per_leaf = 8
spines = 2"#,
    ] {
        let with = |algo: &str| {
            let mut s = run(&format!(
                "[simulation]\nwarmup_ns = 0\nmeasure_ns = 20000\n[topology]\n{topology}\n[routing]\nalgorithm = \"{algo}\"\n[[traffic]]\npattern = \"uniform\"\nload = 0.5\n"
            ));
            s.wall_s = 0.0;
            serde_json::to_string(&s).unwrap()
        };
        let reference = with("shortest_path");
        assert!(reference.contains("\"delivered\""));
        for algo in ["nca", "dmodk", "ecmp", "auto"] {
            assert_eq!(with(algo), reference, "{algo} on {topology}");
        }
    }
}

#[test]
fn explicit_routes_override_shortest_paths() {
    // Two paths from a to b: via y (shortest, 2 switches) or via z then y (3 switches).
    let text = |routes: &str| {
        format!(
            r#"
[simulation]
warmup_ns = 0
measure_ns = 20000
[topology]
kind = "explicit"
hosts = ["a", "b"]
switches = ["x", "y", "z"]
links = [{{ a = "a", b = "x" }}, {{ a = "x", b = "y" }}, {{ a = "x", b = "z" }}, {{ a = "z", b = "y" }}, {{ a = "y", b = "b" }}]
[routing.shortest_path]
routes = [{routes}]
[[traffic]]
pattern = "flow"
src = "a"
dest = "b"
load = 0.01
arrival = "periodic"
message = {{ kind = "fixed", packets = 1 }}
"#
        )
    };
    let direct = run(&text(""));
    let detour = run(&text(r#"{ switch = "x", dest = "b", next = "z" }"#));
    // One more link (32 ns) and one more router (26 ns) on the detour.
    let d = detour.classes["flow0"].inflight_latency_ns.mean - direct.classes["flow0"].inflight_latency_ns.mean;
    assert_close("detour extra latency", d, 58.0, 1e-9);
}

#[test]
fn on_off_sources_send_greedily_about_half_the_time() {
    // Equal mean ON and OFF times (exponential): each source is ON about half the time and
    // sends at its link rate while ON, so it offers about 0.5 (Santos et al. §VI-B.2). Flows to
    // distinct hosts (a shift) of a 16-host tree, so nothing else limits them; 50 us periods, 20 ms
    // window.
    let s = run(r#"[topology]
kind = "kary_ntree"
k = 4
n = 2
[simulation]
warmup_ns = 1000000
measure_ns = 20000000
bin_ns = 1000000
[[traffic]]
name = "dynamic"
pattern = "shift"
shift = 1
greedy = true
on_off = { mean_on_ns = 50000, mean_off_ns = 50000 }
message = { kind = "fixed", packets = 1 }
"#);
    let c = &s.classes["dynamic"];
    assert_close("offered", c.offered, 0.5, 0.03);
    assert_close("accepted", c.accepted, c.offered, 0.01);
    // Sources are not in lockstep: per-bin load stays near the mean.
    for row in s.series.iter().filter(|r| r.bin_start_ns >= 1.0e6) {
        assert_close("offered per ms", row.offered, 0.5, 0.1);
    }
}

#[test]
fn a_moving_hot_spot_visits_other_hosts() {
    // Paper IV §V-C's moving trees: four greedy senders follow a hot spot that moves every
    // 100 us; over 2 ms it visits up to 20 destinations among the 12 other hosts of a 16-host
    // tree.
    let s = run(r#"
[topology]
kind = "kary_ntree"
k = 4
n = 2
[simulation]
warmup_ns = 0
measure_ns = 2000000
[[traffic]]
name = "hot"
pattern = "hotspot"
sources = [0, 1, 2, 3]
dest = 15
move_every_ns = 100000
greedy = true
message = { kind = "fixed", packets = 1 }
"#);
    let received: Vec<f64> = s.links.iter().filter(|l| l.to.starts_with('h')).map(|l| l.utilization).collect();
    let visited = received.iter().filter(|&&u| u > 0.01).count();
    assert!(visited >= 6, "only {visited} hosts received");
    // Never a sender. A hot spot is busy while it lives (and the old tree drains into the old
    // one after a move): at least a link's worth is delivered.
    for l in s.links.iter().filter(|l| ["h0", "h1", "h2", "h3"].contains(&l.to.as_str())) {
        assert_eq!(l.utilization, 0.0, "{} received", l.to);
    }
    assert!(received.iter().sum::<f64>() > 0.95);
}

#[test]
fn a_rate_limit_holds_each_source_to_its_rate_without_catching_up() {
    // Greedy sources limited to 0.25 of their link deliver 0.25; Poisson sources offering 0.5
    // with a limit of 0.3 deliver 0.3, their backlog waiting. Flows to distinct hosts (a
    // shift), so nothing else limits them.
    let s = run(r#"[topology]
kind = "kary_ntree"
k = 4
n = 2
[simulation]
warmup_ns = 100000
measure_ns = 2000000
[[traffic]]
name = "greedy"
pattern = "shift"
shift = 1
sources = [0, 1, 2, 3, 4, 5, 6, 7]
greedy = true
rate_limit = 0.25
message = { kind = "fixed", packets = 4 }
[[traffic]]
name = "poisson"
pattern = "shift"
shift = 1
sources = [8, 9, 10, 11, 12, 13, 14, 15]
load = 0.5
arrival = "poisson"
rate_limit = 0.3
message = { kind = "fixed", packets = 1 }
"#);
    assert_close("greedy at 0.25", s.classes["greedy"].accepted, 0.25, 0.002);
    assert_close("poisson capped at 0.3", s.classes["poisson"].accepted, 0.3, 0.003);
}

#[test]
fn a_greedy_class_offers_its_whole_link_while_active_never_less_than_it_carries() {
    // The 40:1 hot spot: 40 greedy senders behind one ejection link carry 1/40 each, but they
    // offer their links the whole time. Counting the messages they generated instead gave
    // offered 0.019 below accepted 0.025 (issue 18): the backlog filled before the window
    // drains in it.
    let s = run_config(&example_with("srp/hotspot40_background.toml", &["simulation.warmup_ns=20000", "simulation.measure_ns=50000"]));
    let hot = &s.classes["hotspot"];
    assert_eq!(hot.offered, 1.0);
    assert!(hot.accepted < 0.05 && hot.accepted <= hot.offered, "{}", hot.accepted);
    assert!(s.series.iter().filter(|r| r.class == "hotspot").all(|r| r.offered == 1.0));
    // Started half-way through a bin, a class offers half of that bin.
    let s = run_config(&example_with(
        "srp/hotspot40_background.toml",
        &["simulation.warmup_ns=0", "simulation.measure_ns=20000", "traffic.0.start_ns=2500", "traffic.0.stop_ns=12500"],
    ));
    let offered: Vec<f64> = s.series.iter().filter(|r| r.class == "hotspot").map(|r| r.offered).collect();
    // bin_ns = 5000: the class is active in [2.5, 12.5) us.
    assert_eq!(offered, [0.5, 1.0, 0.5, 0.0]);
    assert_eq!(s.classes["hotspot"].offered, 0.5);
}

#[test]
fn ecmp_keeps_each_flow_on_one_uplink() {
    // Two leaves of four hosts under four spines. One flow at 0.4 from leaf 0 to leaf 1: ECMP
    // puts it whole on one uplink, NCA sprays it over all four (0.1 each).
    let uplinks = |algo: &str, traffic: &str, extra: &str| -> Vec<f64> {
        let s = run(&format!(
            "[simulation]\nwarmup_ns = 5000\nmeasure_ns = 200000\n[topology]\nkind = \"fat_tree2\"\nleaves = 2\nhosts_per_leaf = 4\nspines = 4\n[routing]\nalgorithm = \"{algo}\"\n{extra}\n{traffic}"
        ));
        s.links.iter().filter(|l| l.from.starts_with("leaf0:") && l.to.starts_with("spine")).map(|l| l.utilization).collect()
    };
    let flow = "[[traffic]]\npattern = \"flow\"\nsrc = 0\ndest = 4\nload = 0.4\narrival = \"periodic\"\nmessage = { kind = \"fixed\", packets = 1 }\n";
    let mut ecmp = uplinks("ecmp", flow, "");
    ecmp.sort_by(f64::total_cmp);
    assert_eq!(ecmp[..3], [0.0; 3], "{ecmp:?}");
    assert_close("ECMP: the flow's uplink", ecmp[3], 0.4, 0.01);
    for u in uplinks("nca", flow, "") {
        assert_close("NCA uplink", u, 0.1, 0.01);
    }
    // Many flows (a send queue per message) spread over every uplink.
    let many = "[[traffic]]\npattern = \"uniform\"\nload = 0.3\n";
    let spread = uplinks("ecmp", many, "[nic]\nsend_queues = \"per_flow\"");
    assert!(spread.iter().all(|u| *u > 0.05), "{spread:?}");
}
