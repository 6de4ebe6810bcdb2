//! Message completion: FCT and slowdown (docs/metrics.md) against hand-computed zero-load
//! times, and empirical size distributions through a whole run.

mod common;
use common::*;

/// Host 0 sends a 4-packet message every 16.4 us to `dst` on `topology`.
fn alone(topology: &str, dst: u32) -> lossless_core::Summary {
    run(&format!(
        r#"{topology}
[simulation]
warmup_ns = 0
measure_ns = 100000
record_flows = true
[[traffic]]
pattern = "flow"
src = 0
dest = {dst}
load = 0.05
arrival = "periodic"
"#
    ))
}

#[test]
fn a_message_alone_takes_its_zero_load_time() {
    // Fat tree, leaf to leaf: 4 x 32 ns links + 3 x 26 ns routers + 4 x 204.8 ns packets.
    let s = alone(FAT_TREE_256, 255);
    let fct = &s.classes["flow0"].fct_ns;
    assert!(fct.count >= 6, "{fct:?}");
    assert_close("fat tree FCT", fct.mean, 4.0 * 32.0 + 3.0 * 26.0 + 4.0 * 204.8, 1e-9);
    assert_close("fat tree slowdown", s.classes["flow0"].slowdown.max, 1.0, 1e-9);
    // 16-node flattened butterfly, router 0 to router 1: 1 ns host links, one 100 ns channel,
    // two 3 ns routers, 4 x 32 ns packets (256 bytes at 64 Gb/s). Minimal routing: UGAL sends
    // a message's later packets around the queue its first one left at the minimal output.
    let fb = r#"
[topology]
kind = "flattened_butterfly"
routers_per_dim = 4
dims = 1
concentration = 4
bandwidth_gbps = 64
latency_ns = 100
host_latency_ns = 1
[switch]
router_latency_ns = 3
[routing]
algorithm = "minimal""#;
    let s = alone(fb, 4);
    assert_close("flattened butterfly FCT", s.classes["flow0"].fct_ns.mean, 2.0 + 100.0 + 6.0 + 4.0 * 32.0, 1e-9);
    assert!(s.flows.iter().all(|f| f.slowdown == 1.0 && f.bytes == 1024 && f.dst == 4), "{:?}", s.flows);
}

#[test]
fn under_load_every_message_is_slower_than_alone_and_each_is_accounted_for() {
    // Half the messages 1 KB (4 packets), half uniform up to 64 KB (5 to 256 packets, mean 130.5).
    let file = std::env::temp_dir().join(format!("lossless-sizes-{}.txt", std::process::id()));
    std::fs::write(&file, "# test sizes\n1024 0.5\n65536, 1\n").unwrap();
    let text = format!(
        r#"{FAT_TREE_256}
[simulation]
warmup_ns = 0
measure_ns = 400000
record_flows = true
[[traffic]]
pattern = "uniform"
load = 0.5
arrival = "poisson"
message = {{ kind = "cdf", file = "{}" }}
"#,
        file.display()
    );
    let s = run(&text);
    std::fs::remove_file(&file).unwrap();
    let c = &s.classes["uniform0"];
    // Warm-up 0: every message was created in the window, and is complete or counted unfinished.
    assert_eq!(c.fct_ns.count + c.unfinished_messages, s.counters.messages);
    assert_eq!(s.flows.len() as u64, c.fct_ns.count);
    assert!(s.flows.iter().all(|f| f.slowdown >= 1.0), "a message beat its zero-load time");
    assert!(c.slowdown.p99 > 1.5, "at half load some messages queue: {:?}", c.slowdown);
    // The offered load follows from the exact mean size: (0.5 x 4 + 0.5 x 130.5) packets.
    assert_close("offered", c.offered, 0.5, 0.03);
    let drawn = s.counters.generated as f64 / s.counters.messages as f64;
    assert!((drawn / 67.25 - 1.0).abs() < 0.05, "mean size {drawn} packets over {} messages", s.counters.messages);
}

#[test]
fn without_record_flows_no_rows_are_kept() {
    let s = run(&format!("{FAT_TREE_256}\n[[traffic]]\npattern = \"uniform\"\nload = 0.3\n"));
    assert!(s.flows.is_empty());
    assert!(s.classes["uniform0"].fct_ns.count > 1000);
}

#[test]
fn with_a_queue_per_flow_a_short_message_does_not_wait_behind_a_long_one() {
    // Host 0 sends 1,000 packets to host 255 at 0 and one packet more at 1 us.
    let short_fct = |queues: &str| {
        let s = run(&format!(
            r#"{FAT_TREE_256}
[simulation]
warmup_ns = 0
measure_ns = 300000
[nic]
send_queues = "{queues}"
[[traffic]]
name = "long"
pattern = "burst"
sources = [0]
dest = 255
message = {{ kind = "fixed", packets = 1000 }}
[[traffic]]
name = "short"
pattern = "burst"
sources = [0]
dest = 255
start_ns = 1000
message = {{ kind = "fixed", packets = 1 }}
"#
        ));
        assert_eq!(s.classes["long"].fct_ns.count, 1);
        s.classes["short"].fct_ns.mean
    };
    // Behind the long message it waits about 1,000 packet times (204.8 us).
    assert!(short_fct("per_destination") > 200_000.0);
    // Side by side, it waits at most for the long one's packet on the link and the long one's
    // turn in the round-robin, then takes its zero-load time (410.8 ns).
    let own = short_fct("per_flow");
    assert!(own <= 410.8 + 2.0 * 204.8, "{own} ns");
}

#[test]
fn classes_with_their_own_packet_size_share_the_network() {
    // A 4-packet message of 1,500-byte segments or of 256-byte packets, alone in the fat tree:
    // 4 x 32 ns links + 3 x 26 ns routers + 4 packets at 10 Gb/s. 2 ms hold about 20 messages.
    let run_with = |packet_bytes: u32| {
        let o = [format!("traffic.0.packet_bytes={packet_bytes}"), "nic.data_packet_bytes=1500".into()];
        let text = format!("{FAT_TREE_256}\n[simulation]\nwarmup_ns = 0\nmeasure_ns = 2000000\nrecord_flows = true\n[[traffic]]\npattern = \"flow\"\nsrc = 0\ndest = 255\nload = 0.05\narrival = \"periodic\"\n");
        run_config(&config_with(&text, &o.iter().map(String::as_str).collect::<Vec<_>>()))
    };
    for (bytes, ser_ns) in [(1500, 1200.0), (256, 204.8)] {
        let s = run_with(bytes);
        let c = &s.classes["flow0"];
        assert_close(&format!("{bytes}-byte FCT"), c.fct_ns.mean, 4.0 * 32.0 + 3.0 * 26.0 + 4.0 * ser_ns, 1e-9);
        assert_close(&format!("{bytes}-byte slowdown"), c.slowdown.max, 1.0, 1e-9);
        // The offered load counts the class's own packets: 5% of the link either way.
        assert_close(&format!("{bytes}-byte offered"), c.offered, 0.05, 0.0025);
        assert!(s.flows.iter().all(|f| f.bytes == 4 * bytes as u64), "{:?}", s.flows);
    }
}
