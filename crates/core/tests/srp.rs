//! The Speculative Reservation Protocol (SRP paper §3, §5, §6.6): headline behaviours on the
//! 40:1 hot spot, conservation with speculative drops, the bypass of short messages, and the
//! speculative VC's low priority.

mod common;
use common::*;
use lossless_core::Summary;

fn hotspot(mechanism: &str) -> Summary {
    // SRP-5/SRP-6 setting (§5.2): 40 senders of 8-packet messages to one host, uniform
    // 8-packet background among the others.
    run_config(&example_with(
        "srp/hotspot40_background.toml",
        &[
            &format!("cc.mechanism=\"{mechanism}\""),
            "traffic.1.load=0.4",
            "traffic.1.message={kind=\"fixed\",packets=8}",
            "simulation.warmup_ns=100000",
            // A sender's 1/40 share is about 120 packets (15 messages) per millisecond: shorter
            // windows measure message granularity, not fairness.
            "simulation.measure_ns=1000000",
        ],
    ))
}

fn hot_spot_senders(s: &Summary) -> Vec<f64> {
    // Background senders carry about 0.4; hot-spot senders about 1/40.
    s.sources.values().copied().filter(|v| *v < 0.1).collect()
}

fn spread(v: &[f64]) -> (f64, f64) {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64;
    (mean, var.sqrt())
}

#[test]
fn srp_shares_the_hot_spot_equally_and_spares_the_background() {
    let srp = hotspot("srp");
    // SRP-6: the background does not see the hot spot.
    let bg = &srp.classes["background"];
    assert_close("background accepted", bg.accepted, bg.offered, 0.01);
    // SRP-5: equal shares (near-zero spread), the hot spot's link used at about 1/(1+eps).
    let senders = hot_spot_senders(&srp);
    assert_eq!(senders.len(), 40);
    let (mean, sd) = spread(&senders);
    assert!(sd < 0.1 * mean, "SRP sender spread {sd} around {mean}");
    assert_close("hot-spot link", mean * 40.0, 1.0 / 1.05, 0.04);
    // Against the baseline, whose senders near the hot spot get more (§5.2).
    let base = hotspot("none");
    let (_, base_sd) = spread(&base.sources.values().copied().filter(|v| *v < 0.2).collect::<Vec<_>>());
    assert!(base_sd > 3.0 * sd, "baseline spread {base_sd} vs SRP {sd}");
    // In-flight latency: orders of magnitude below the saturated baseline's.
    let (b, s) = (base.classes["hotspot"].inflight_latency_ns.mean, srp.classes["hotspot"].inflight_latency_ns.mean);
    assert!(s * 50.0 < b, "in-flight latency SRP {s} ns vs baseline {b} ns");
}

#[test]
fn every_packet_is_delivered_once_despite_speculative_drops() {
    let s = hotspot("srp");
    let k = &s.counters;
    assert!(k.dropped > 100, "the hot spot makes speculative packets time out");
    assert_eq!(s.cc["speculative_dropped"], k.dropped);
    // A drop wastes the channels the packet crossed: 1 to 3 in the two-level tree, mostly 3
    // (they time out at the hot spot's leaf switch).
    let per_drop = s.cc["speculative_dropped_channel_bytes"] as f64 / (k.dropped * 256) as f64;
    assert!((2.0..=3.0).contains(&per_drop), "{per_drop} channels per drop");
    // Every drop sends a NACK; every NACK received hands the packet back for one
    // retransmission, which may still wait for its reservation's start at the end.
    assert!(k.retransmitted <= s.cc["nacks"] && s.cc["nacks"] <= k.dropped);
    // Packets generated are delivered, in the network, waiting at their source, or dropped and
    // not yet retransmitted: no packet is lost or delivered twice.
    let awaiting_retransmission = k.dropped - k.retransmitted;
    let unique_injected = k.injected - k.retransmitted;
    assert_eq!(k.generated, unique_injected + k.queued);
    assert_eq!(k.injected, k.delivered + k.in_flight + k.dropped);
    assert!(awaiting_retransmission < 100);
}

#[test]
fn messages_below_n_min_bypass_the_protocol() {
    // SRP-9: "below n_min SRP = baseline": 1-packet messages never reserve, and the data path
    // is the baseline's.
    let at = |m: &str| {
        run_config(&example_with(
            "fattree256_uniform.toml",
            &[&format!("cc.mechanism=\"{m}\""), "traffic.0.load=0.6", "traffic.0.message={kind=\"fixed\",packets=1}", "simulation.measure_ns=40000"],
        ))
    };
    let (base, srp) = (at("none"), at("srp"));
    assert_eq!(srp.cc["reservations"], 0);
    assert_eq!(srp.cc["bypassed"], srp.counters.injected);
    assert_eq!(srp.classes["uniform"].packet_latency_ns, base.classes["uniform"].packet_latency_ns);
}

#[test]
fn resending_options_count_duplicates_once() {
    // §3 in-order mode and §6.1 fast retransmit resend unanswered speculative packets; when
    // both copies arrive, the second is counted as a duplicate and not delivered again.
    for option in ["cc.srp.in_order=true", "cc.srp.fast_retransmit=true"] {
        let s = run_config(&example_with(
            "srp/hotspot40_background.toml",
            &["cc.mechanism=\"srp\"", option, "simulation.warmup_ns=20000", "simulation.measure_ns=100000"],
        ));
        let k = &s.counters;
        assert!(s.cc["resent_early"] > 100, "{option}: copies were resent");
        assert!(k.duplicates > 0 && k.duplicates <= s.cc["resent_early"], "{option}: {} duplicates", k.duplicates);
        // Each generated packet is delivered at most once.
        assert!(k.delivered <= k.generated - k.queued, "{option}");
        assert_eq!(k.injected, k.delivered + k.duplicates + k.dropped + k.in_flight, "{option}");
    }
    // Without the options nothing is delivered twice.
    let s = hotspot("srp");
    assert_eq!(s.counters.duplicates, 0);
    assert_eq!(s.cc["resent_early"], 0);
}

#[test]
fn the_speculative_vc_s_low_priority_keeps_speculation_to_spare_slots() {
    // §3, §6.1: speculative packets travel on a lower-priority VC, so a reserved packet goes
    // first wherever both wait (at the NIC and at every output). With `cc.vcs` giving that VC
    // data priority, speculative packets compete as equals: at 80% uniform load more go
    // speculatively (16% more; 40% more when reservations left only as data was offered,
    // `early_reservation = false`), and fewer of them time out, no longer waiting behind
    // reserved packets.
    let at = |vcs: &[&str]| {
        let base = ["cc.mechanism=\"srp\"", "traffic.0.load=0.8", "simulation.warmup_ns=20000", "simulation.measure_ns=40000"];
        run_config(&example_with("fattree256_uniform.toml", &[&base[..], vcs].concat()))
    };
    let own = at(&[]);
    let low = at(&["cc.vcs=[\"control\", \"control\", \"data\", \"low\"]"]);
    let equal = at(&["cc.vcs=[\"control\", \"control\", \"data\", \"data\"]"]);
    assert_eq!(own.cc, low.cc, "spelling out SRP's own layout changes nothing");
    let (l, e) = (low.cc["speculative_injected"] as f64, equal.cc["speculative_injected"] as f64);
    assert!(e > 1.1 * l, "speculative packets injected: {e} at data priority vs {l} at low");
    let dropped = |s: &Summary| s.cc["speculative_dropped"] as f64 / s.cc["speculative_injected"] as f64;
    assert!(dropped(&low) > 1.2 * dropped(&equal), "share dropped: {} at low priority vs {} at data", dropped(&low), dropped(&equal));
}

#[test]
fn early_reservations_let_a_waiting_message_go_without_speculating() {
    // One flow of 4-packet messages at 90% of its link on an idle fat tree. Reserving as a
    // message arrives (the authors' BookSim), a message waiting behind the one being sent has
    // its grant by the time it may go, and goes non-speculatively; reserving when its data is
    // offered, every message speculates until its grant returns, and the lone flow loses
    // throughput to the handshake (docs/validation.md, SRP-4).
    let at = |early: bool| {
        let flow = "traffic=[{pattern=\"flow\",src=0,dest=17,load=0.9,message={kind=\"fixed\",packets=4}}]";
        run_config(&example_with("fattree256_uniform.toml", &["cc.mechanism=\"srp\"", &format!("cc.srp.early_reservation={early}"), flow]))
    };
    let (early, late) = (at(true), at(false));
    let share = |s: &Summary| s.cc["speculative_injected"] as f64 / s.counters.injected as f64;
    assert!(share(&early) < 0.15 && share(&late) > 0.5, "speculative share: early {} vs late {}", share(&early), share(&late));
    let accepted = |s: &Summary| s.classes["flow0"].accepted;
    assert!(accepted(&early) > 0.85 && accepted(&late) < 0.8, "accepted: early {} vs late {}", accepted(&early), accepted(&late));
}

#[test]
fn early_drops_take_speculative_packets_the_ttw_alone_would_keep() {
    // The 40:1 hot spot; a speculative packet drops when it has queued for its TTW, and with an
    // early drop rule also before that.
    let run = |ttw_ns: u32, early: &str| {
        run_config(&example_with(
            "srp/hotspot40_background.toml",
            &["cc.mechanism=\"srp\"", &format!("cc.srp.ttw_ns={ttw_ns}"), &format!("cc.srp.early_drop=\"{early}\""), "simulation.measure_ns=100000"],
        ))
    };
    // A TTW no packet reaches in the run: only a full output buffer drops.
    assert_eq!(run(1_000_000, "off").counters.dropped, 0);
    assert_eq!(run(1_000_000, "predicted").counters.dropped, 0, "no downstream queue drains for a millisecond");
    let full = run(1_000_000, "output_full");
    assert!(full.counters.dropped > 100, "speculative packets meet full output buffers at the hot spot: {}", full.counters.dropped);
    // With the paper's TTW, the packets behind the hot spot's full buffers would time out
    // there: the predicted rule drops them before they wait.
    let (ttw, predicted) = (run(1_300, "off"), run(1_300, "predicted"));
    assert!(
        predicted.counters.dropped as f64 > 1.1 * ttw.counters.dropped as f64,
        "predicted {} vs TTW alone {}",
        predicted.counters.dropped,
        ttw.counters.dropped
    );
    for s in [&full, &predicted] {
        let k = &s.counters;
        assert_eq!(s.cc["speculative_dropped"], k.dropped);
        assert_eq!(k.injected, k.delivered + k.in_flight + k.dropped);
    }
}

#[test]
fn a_lone_message_speculates_until_its_grant_so_two_packet_times_of_round_trip_are_a_step() {
    // SRP paper §4's latencies: the reservation round trip between leaves (8 channels of 32 ns,
    // 6 routers of 26 ns, the reservation's 6.4 ns at each end) ends just after a 4-packet
    // message's third packet starts (6.4 + 2 x 204.8 = 416 ns after the reservation): three of
    // four go speculatively. Routers 2 ns faster bring the grant before it: two of four
    // (docs/validation.md, issue 24).
    let share = |router_ns: u32| {
        let s = run_config(&example_with(
            "fattree256_uniform.toml",
            &[
                "cc.mechanism=\"srp\"",
                "traffic.0.load=0.002",
                "simulation.warmup_ns=0",
                "simulation.measure_ns=200000",
                &format!("switch.router_latency_ns={router_ns}"),
            ],
        ));
        s.cc["speculative_injected"] as f64 / s.counters.injected as f64
    };
    // Destinations on the sender's own leaf (15 of 255) are nearer: two of four there.
    let (paper, faster) = (share(26), share(24));
    assert!((0.70..0.76).contains(&paper), "26 ns routers: {paper}");
    assert!((0.45..0.52).contains(&faster), "24 ns routers: {faster}");
}

#[test]
fn control_packets_between_data_packets_wait_for_the_tail_on_the_nic_link() {
    // At 80% uniform load a NIC's link is mostly busy with a 204.8 ns data packet. Interleaved,
    // a reservation and its grant see only the network: the zero-load round trip between leaves
    // (8 channels of 32 ns, 6 routers of 26 ns: 412 ns). Between data packets, as the SRP
    // authors' NIC sends them, each waits for the tail on its link, at both ends.
    let run = |mechanism: &str, between: bool| {
        run_config(&example_with(
            "fattree256_uniform.toml",
            &[&format!("cc.mechanism=\"{mechanism}\""), "traffic.0.load=0.8", "simulation.measure_ns=30000", &format!("nic.control_between_packets={between}")],
        ))
    };
    let rtt = |s: &Summary| s.cc["reservation_rtt_ns_mean"];
    let (interleaved, between) = (run("srp", false), run("srp", true));
    assert!((405..430).contains(&rtt(&interleaved)), "interleaved: {} ns", rtt(&interleaved));
    assert!(rtt(&between) > rtt(&interleaved) + 100, "between packets: {} ns, interleaved {} ns", rtt(&between), rtt(&interleaved));
    // Without control packets the setting changes nothing.
    let (a, b) = (run("none", false), run("none", true));
    assert_eq!((a.counters.delivered, a.classes["uniform"].accepted), (b.counters.delivered, b.classes["uniform"].accepted));
}

#[test]
fn an_output_serving_its_oldest_packet_first_lets_speculative_packets_through() {
    // By class, a switch output sends reserved packets before speculative ones, which wait
    // there and time out at 70% uniform load; served oldest first (the SRP authors' output
    // buffer), a speculative packet goes in its turn and few are dropped.
    let run = |mechanism: &str, order: &str| {
        run_config(&example_with(
            "fattree256_uniform.toml",
            &[&format!("cc.mechanism=\"{mechanism}\""), "traffic.0.load=0.7", &format!("switch.link_order=\"{order}\"")],
        ))
    };
    let dropped = |s: &Summary| s.cc["speculative_dropped"] as f64 / s.cc["speculative_injected"] as f64;
    let (by_class, oldest) = (run("srp", "by_class"), run("srp", "oldest_first"));
    assert!(dropped(&by_class) > 0.05, "by class: {}", dropped(&by_class));
    assert!(dropped(&oldest) < 0.4 * dropped(&by_class), "oldest first: {} vs by class {}", dropped(&oldest), dropped(&by_class));
    // With one data VC and nothing else, the order is the same either way.
    let (a, b) = (run("none", "by_class"), run("none", "oldest_first"));
    assert_eq!((a.counters.delivered, a.classes["uniform"].accepted), (b.counters.delivered, b.classes["uniform"].accepted));
}
