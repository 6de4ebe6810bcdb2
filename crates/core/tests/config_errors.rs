//! Bad input is refused with a message that names the key and says what to do.

mod common;
use common::example;
use lossless_core::{check, Config};

/// Applies overrides to the default example and returns the error.
fn error(overrides: &[&str]) -> lossless_core::ConfigError {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match Config::from_toml_str(&example("fattree256_uniform.toml"), &o).and_then(|c| check(&c).map(|_| c)) {
        Ok(_) => panic!("{overrides:?} was accepted"),
        Err(e) => e,
    }
}

#[test]
fn each_error_names_its_key() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["traffic.0.lod=0.5"], "traffic[0].lod", "unknown field"),
        (&["traffic.0.lod=0.5"], "traffic[0].lod", "did you mean `load`?"),
        (&["cc.mechanism=\"srpp\""], "cc.mechanism", "did you mean `srp`?"),
        (&["traffic.0.load=1.5"], "traffic[0].load", "between 1e-6 and 1"),
        (&["traffic.0.load=\"high\""], "traffic[0].load", "invalid type"),
        (&["traffic[0].load=\"high\""], "traffic[0].load", "invalid type"),
        // Inside tables whose `kind` picks their fields, which serde reads through a buffer.
        (&["topology.n=2.5"], "topology.n", "invalid type: floating point `2.5`, expected a whole number from 0 to 4294967295"),
        (&["topology.latency_ns=\"5\""], "topology.latency_ns", "invalid type: string \"5\", expected a number"),
        (&["traffic.0.message.packets=\"4\""], "traffic[0].message.packets", "invalid type"),
        (
            &["traffic.0.message={kind=\"uniform\",min=2,max=-1}"],
            "traffic[0].message.max",
            "invalid value: integer `-1`, expected a whole number from 0 to 4294967295",
        ),
        // Rust's names for types are not a config's words.
        (&["simulation=3"], "simulation", "invalid type: integer `3`, expected a table of keys"),
        (&["simulation.seed=-1"], "simulation.seed", "expected a whole number from 0 to 18446744073709551615"),
        (&["switch.speedup=true"], "switch.speedup", "invalid type: boolean `true`, expected a number"),
        (&["traffic.0.sources=\"all\""], "traffic[0].sources", "invalid type: string \"all\", expected a list (in brackets)"),
        (&["cc.mechanism=3"], "cc.mechanism", "invalid type: integer `3`, expected a string (in quotes)"),
        (&["topology={kind=\"fat_tree2\",leaves=4,hosts_per_leaf=\"x\",spines=\"x\"}"], "topology", "invalid type"),
        (&["traffic.0.message={kind=\"bimodal\",packets=[1,\"a\"]}"], "traffic[0].message.packets[1]", "invalid type"),
        (&["flow_control={kind=\"pfc\",xoff_bytes=\"big\"}"], "flow_control.xoff_bytes", "invalid type"),
        (&["nic.send_queues=3"], "nic.send_queues", "invalid type: integer `3`, expected one of its names as a string"),
        (&["topology.kind=3"], "topology.kind", "invalid type: integer `3`, expected one of its names as a string"),
        (&["topology=3"], "topology", "invalid type: integer `3`, expected a table whose `kind` is one of its names"),
        (&["topology.k=1"], "topology.k", "at least 2"),
        (&["traffic.0.name=\" \""], "traffic[0].name", "is empty: give the class a name"),
        (&["traffic.0.packet_bytes=1500"], "traffic[0].packet_bytes", "must be between 1 and nic.data_packet_bytes (256)"),
        (&["cc.mechanism=\"srp\"", "traffic.0.packet_bytes=128"], "traffic[0].packet_bytes", "srp times messages in packets of nic.data_packet_bytes (256)"),
        (&["switch.read_ports=0"], "switch.read_ports", "must be between 1 and 63"),
        (&["nic.tx_fifo_bytes=100"], "nic.tx_fifo_bytes", "must be 0 (no FIFO) or between one data packet (256 bytes)"),
        (&["cc.mechanism=\"srp\"", "nic.tx_fifo_bytes=4096"], "nic.tx_fifo_bytes", "srp decides as a packet takes the link"),
        (&["nic.hot_queues=2"], "nic.hot_queues", "share the transmit FIFO's bytes: set nic.tx_fifo_bytes too"),
        (&["nic.hot_queues=17", "nic.tx_fifo_bytes=4096"], "nic.hot_queues", "must be 0 (none) to 16, got 17"),
        (&["nic.hot_queues=2", "nic.tx_fifo_bytes=4096"], "nic.hot_queues", "`voq` sends no lines down to the NICs"),
        (&["topology.k=32"], "topology.k", "ports"),
        (&["topology.kind=\"torus\""], "topology.kind", "unknown variant"),
        (
            &["topology={kind=\"flattened_butterfly\",routers_per_dim=16,dims=2,concentration=40}"],
            "topology.concentration",
            "routers would have 70 ports (40 hosts + 2 x 15 other routers); at most 63",
        ),
        (&["topology={kind=\"flattened_butterfly\",routers_per_dim=4,dims=4,concentration=1}"], "topology.dims", "must be 1, 2 or 3"),
        (
            &["topology={kind=\"dragonfly\",hosts_per_router=16,routers_per_group=33,global_per_router=16}"],
            "topology.routers_per_group",
            "routers would have 64 ports",
        ),
        (&["topology={kind=\"dragonfly\",hosts_per_router=2,routers_per_group=4,global_per_router=0}"], "topology.global_per_router", "at least 1"),
        (&["routing.algorithm=\"minimal\""], "routing.algorithm", "minimal routes flattened butterflies; use nca on trees"),
        (&["switch.speedup=0"], "switch.speedup", "between 0.1 and 100"),
        (&["switch.input_buffer_bytes=100"], "switch.input_buffer_bytes", "at least one data packet"),
        (&["switch.input_buffer_bytes=4096", "switch.input_buffer_packets=4"], "switch.input_buffer_bytes", "not both"),
        (&["switch.input_queues=\"bypass\"", "switch.bypass.limit=0"], "switch.bypass.limit", "1 to 255"),
        (&["switch.bypass.limit=8"], "switch.bypass.limit", "switch.input_queues is \"voq\", which would ignore them"),
        (&["switch.bypas.limit=8"], "switch.bypas", "did you mean `bypass`?"),
        (&["switch.bypass_limit=8"], "switch.bypass_limit", "has moved: it is now `switch.bypass.limit`"),
        (&["routing.routes=[]"], "routing.routes", "has moved: it is now `routing.shortest_path.routes`"),
        (
            &["routing.algorithm=\"ugal_g\""],
            "routing.algorithm",
            "unknown routing algorithm `ugal_g`, expected one of nca, dmodk, ecmp, minimal, shortest_path, valiant, ugal",
        ),
        (&["routing.algorithm=\"valiant\""], "routing.algorithm", "valiant routes flattened butterflies"),
        (
            &["routing.algorithm=\"dmodk\"", "routing.shortest_path.routes=[]"],
            "routing.shortest_path.routes",
            "routing.algorithm is \"dmodk\", which would ignore them",
        ),
        (&["switch.input_queues=\"oq\""], "switch.input_queues", "unknown input-queue organization `oq`, expected one of voq, fifo, bypass"),
        (&["switch.arbitration=\"islip\""], "switch.arbitration", "unknown variant"),
        (&["simulation.measure_ns=0"], "simulation.measure_ns", "one picosecond"),
        (&["cc.mechanism=\"ecn\"", "cc.ecn.threshold=1.5"], "cc.ecn.threshold", "(0, 1]"),
        (&["cc.mechanism=\"dcqcn\""], "cc.mechanism", "unknown mechanism `dcqcn`, expected one of none, ecn, srp, ibcc, santos"),
        // Settings for a mechanism that is not selected would do nothing: refused, naming the key.
        (&["cc.mechanism=\"ecn\"", "cc.srp.n_min=2"], "cc.srp.n_min", "cc.mechanism is \"ecn\", which would ignore them"),
        (&["cc.ecn.threshold=0.5"], "cc.ecn.threshold", "select it with cc.mechanism = \"ecn\""),
        (&["cc.srpp.n_min=2"], "cc.srpp", "unknown key: [cc] takes `mechanism`, `vcs` and the selected mechanism's table"),
        (&["cc.mechanism=\"srp\"", "cc.srp.n_mn=2"], "cc.srp.n_mn", "did you mean `n_min`?"),
        (&["cc.mechanism=\"srp\"", "cc.srp.n_min=\"4\""], "cc.srp.n_min", "invalid type"),
        (&["cc.none.x=1"], "cc.none.x", "unknown field `x`"),
        (&["traffic.0.sources_from=\"nothing\""], "traffic[0].sources_from", "not the name"),
        (&["cc.mechanism=\"srp\"", "cc.srp.ttw_ns=0"], "cc.srp.ttw_ns", "one picosecond"),
        (&["cc.mechanism=\"srp\"", "cc.srp.n_min=32"], "cc.srp.n_min", "n_max"),
        (&["cc.mechanism=\"srp\"", "cc.srp.epsilon=-0.1"], "cc.srp.epsilon", "between 0 and 100"),
        (&["cc.mechanism=\"srp\"", "cc.vcs=[\"control\", \"data\", \"low\"]"], "cc.vcs", "needs 4 virtual channels (0: reservations, 1: grants"),
        (&["cc.mechanism=\"srp\"", "cc.vcs=[\"control\", \"control\", \"low\", \"low\"]"], "cc.vcs", "must stay \"data\""),
        (&["cc.mechanism=\"ecn\"", "cc.vcs=[\"control\", \"urgent\"]"], "cc.vcs[1]", "unknown variant"),
        (
            &["cc.mechanism=\"santos\"", "switch.voq.per_output_buffers=true"],
            "switch.voq.per_output_buffers",
            "`santos` reacts to a whole input buffer filling",
        ),
        (&["switch.input_queues=\"fifo\"", "switch.voq.per_output_buffers=true"], "switch.voq.per_output_buffers", "which would ignore them"),
        (&["switch.input_queues=\"voqnet\"", "switch.voqnet.queue_bytes=100"], "switch.voqnet.queue_bytes", "at least nic.data_packet_bytes (256)"),
        (&["switch.input_queues=\"voqnet\"", "switch.voqnet.queue_bytes=0"], "switch.voqnet.queue_bytes", "got 0"),
        (&["switch.input_queues=\"voqnet\"", "cc.mechanism=\"santos\""], "switch.input_queues", "`santos` reacts to a whole input buffer filling"),
        (&["switch.input_queues=\"voqnet\"", "flow_control.kind=\"pfc\""], "switch.input_queues", "need credit flow control"),
        (&["switch.input_queues=\"fbicm\"", "flow_control.kind=\"pfc\""], "switch.input_queues", "set flow_control.kind = \"credits\""),
        (
            &["switch.input_queues=\"fbicm\"", "switch.input_buffer_packets=128", "cc.mechanism=\"srp\""],
            "switch.input_queues",
            "which `srp` watches packet by packet",
        ),
        (&["switch.input_queues=\"fbicm\"", "switch.fbicm.cfqs=0"], "switch.fbicm.cfqs", "must be 1 to 16"),
        (&["switch.input_queues=\"fbicm\"", "switch.fbicm.go_bytes=30000"], "switch.fbicm.go_bytes", "below stop_bytes (20480)"),
        (&["switch.input_queues=\"fbicm\"", "switch.fbicm.propagate_bytes=30000"], "switch.fbicm.propagate_bytes", "at most stop_bytes"),
        (&["switch.input_queues=\"fbicm\"", "switch.input_buffer_packets=16"], "switch.fbicm.detect_bytes", "not below the input buffer (4096 bytes"),
        (&["switch.input_queues=\"hfdi\"", "switch.hfdi.hpqs=0"], "switch.hfdi.hpqs", "must be 1 to 16"),
        (&["switch.input_queues=\"hfdi\"", "switch.hfdi.lth_bytes=8192"], "switch.hfdi.lth_bytes", "below hth_bytes (8192)"),
        (&["switch.input_queues=\"hfdi\"", "switch.input_buffer_packets=16"], "switch.hfdi.hth_bytes", "not below the input buffer (4096 bytes"),
        (
            &["switch.input_queues=\"hfdi\"", "switch.input_buffer_packets=128", "routing.algorithm=\"dmodk\"", "switch.hfdi.dlist=0"],
            "switch.hfdi.dlist",
            "at least 1",
        ),
        (&["cc.mechanism=\"ibcc\"", "cc.ibcc.threshold_mode=\"cfq\""], "cc.ibcc.threshold_mode", "reads the CFQs of switch.input_queues = \"fbicm\""),
        (&["cc.mechanism=\"ibcc\"", "cc.ibcc.threshold=16"], "cc.ibcc.threshold", "0 (off) to 15"),
        (&["cc.mechanism=\"ibcc\"", "cc.ibcc.ccti_min=10", "cc.ibcc.ccti_limit=5"], "cc.ibcc.ccti_min", "ccti_limit"),
        (&["cc.mechanism=\"ibcc\"", "cc.ibcc.cct=[0.0, 1.0]"], "cc.ibcc.cct", "at least 128"),
        (&["cc.mechanism=\"ibcc\"", "cc.ibcc.ccti_limit=200"], "cc.ibcc.cct", "needs 201"),
        (&["cc.mechanism=\"ibcc\"", "cc.ibcc.ccti_timer_ns=0"], "cc.ibcc.ccti_timer_ns", "one picosecond"),
        (&["cc.mechanism=\"ibcc\"", "cc.ibcc.cct=\"steep\""], "cc.ibcc.cct", "invalid value: string \"steep\", expected a preset, `\"thesis\"`"),
        (&["cc.mechanism=\"ibcc\"", "cc.ibcc.threshold_mode=\"max\""], "cc.ibcc.threshold_mode", "unknown variant"),
        (&["cc.mechanism=\"santos\"", "cc.santos.min_rate=0"], "cc.santos.min_rate", "[1e-6, 1)"),
        (&["cc.mechanism=\"santos\"", "cc.santos.decrease_factor=1"], "cc.santos.decrease_factor", "greater than 1"),
        (&["cc.mechanism=\"santos\"", "cc.santos.window_packets=0"], "cc.santos.window_packets", "at least 1"),
        (&["cc.mechanism=\"santos\"", "cc.santos.initial_rate=-1"], "cc.santos.initial_rate", "between"),
        (&["cc.mechanism=\"santos\"", "cc.santos.response=\"cubic\""], "cc.santos.response", "unknown variant"),
        (&["traffic.0.pattern=\"hotspot\""], "traffic[0].dest", "required"),
        // A setting the pattern does not use would do nothing.
        (&["traffic.0.src=3"], "traffic[0].src", "applies to pattern flow only, not `uniform`"),
        (&["traffic.0.senders=3"], "traffic[0].senders", "applies to pattern hotspot only"),
        (
            &["traffic.0.pattern=\"flow\"", "traffic.0.src=1", "traffic.0.dest=2", "traffic.0.move_every_ns=1000"],
            "traffic[0].move_every_ns",
            "applies to pattern hotspot only, not `flow`",
        ),
        (&["traffic.0.pattern=\"hotspot\"", "traffic.0.dest=256"], "traffic[0].dest", "0..255"),
        (&["traffic.0.stop_ns=-5"], "traffic[0].stop_ns", "between 0 and 1e13 ns"),
        (&["traffic.0.start_ns=100", "traffic.0.stop_ns=50"], "traffic[0].stop_ns", "after start_ns"),
        (&["traffic.0.rate_limit=0"], "traffic[0].rate_limit", "between 1e-6 and 1"),
        (&["traffic.0.rate_limit=1.5"], "traffic[0].rate_limit", "between 1e-6 and 1"),
        (&["traffic.0.message={kind=\"uniform\",min=8,max=4}"], "traffic[0].message", "min <= max"),
        (&["cc.mechanism=\"accurate\"", "cc.accurate.alpha=1.5"], "cc.accurate.alpha", "must be in (0, 1)"),
        (&["cc.mechanism=\"accurate\"", "cc.accurate.short_circuit_factor=0.5"], "cc.accurate.short_circuit_factor", "must be at least 1"),
        (&["traffic.0.message={kind=\"cdf\"}"], "traffic[0].message", "exactly one of `table` (web_search, data_mining) and `file`"),
        (&["traffic.0.message={kind=\"cdf\",table=\"web\"}"], "traffic[0].message.table", "unknown variant `web`, expected `web_search` or `data_mining`"),
        (&["traffic.0.message={kind=\"cdf\",file=\"/nonexistent/sizes.txt\"}"], "traffic[0].message.file", "cannot read `/nonexistent/sizes.txt`"),
        (
            &["routing.algorithm=\"shortest_path\"", "routing.shortest_path.routes=[{switch=\"s0.0\",dest=\"h3\",next=\"nowhere\"}]"],
            "routing.shortest_path.routes[0].next",
            "no link",
        ),
    ];
    for (overrides, key, what) in cases {
        let e = error(overrides);
        assert_eq!(e.key, *key, "{overrides:?}: {e}");
        assert!(e.to_string().contains(what), "{overrides:?}: `{e}` does not say `{what}`");
    }
}

#[test]
fn an_impossible_explicit_topology_is_refused() {
    let text = r#"
[topology]
kind = "explicit"
hosts = ["a", "b"]
switches = ["x", "y"]
links = [{ a = "a", b = "x" }, { a = "b", b = "y" }]
[[traffic]]
pattern = "uniform"
load = 0.1
"#;
    let e = Config::from_toml_str(text, &[]).and_then(|c| check(&c)).unwrap_err();
    assert!(e.to_string().contains("cannot reach"), "{e}");
    let e = Config::from_toml_str(&text.replace("{ a = \"b\", b = \"y\" }", "{ a = \"b\", b = \"z\" }"), &[]).and_then(|c| check(&c)).unwrap_err();
    assert_eq!(e.key, "topology.links[1].b");
    // A host or switch with an empty name could not be named in a link, a class or a report.
    let e = Config::from_toml_str(&text.replace(r#"hosts = ["a", "b"]"#, r#"hosts = ["a", ""]"#).replace(r#"b = "y" }"#, r#"b = "" }"#), &[])
        .and_then(|c| check(&c))
        .unwrap_err();
    assert_eq!((e.key.as_str(), e.message.as_str()), ("topology.hosts[1]", "is empty: give every host and switch a name"));
}

#[test]
fn no_traffic_is_refused() {
    let e = Config::from_toml_str("[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 2\n", &[]).unwrap_err();
    assert_eq!(e.key, "traffic");
}

#[test]
fn the_memory_estimate_grows_with_the_network_and_refuses_what_the_machine_cannot_hold() {
    let estimate = |k: u32, n: u32| {
        let c = Config::from_toml_str(&example("fattree256_uniform.toml"), &[format!("topology.k={k}"), format!("topology.n={n}")]).unwrap();
        lossless_core::memory_estimate(&c).unwrap()
    };
    let mib = |b: f64| b / (1u64 << 20) as f64;
    // docs/performance.md: the 256-host benchmark peaks at 14 MiB, the 4,096-host one at 57-63.
    assert!((14.0..40.0).contains(&mib(estimate(16, 2))), "{}", mib(estimate(16, 2)));
    assert!((57.0..120.0).contains(&mib(estimate(16, 3))), "{}", mib(estimate(16, 3)));
    // A million hosts and ten million switches: far beyond a 24 GiB machine.
    assert!(estimate(2, 20) > 40.0 * (1u64 << 30) as f64);
    if lossless_core::sim::memory::available_bytes().is_some_and(|(m, _)| m < estimate(2, 20)) {
        let e = error(&["topology.k=2", "topology.n=20"]);
        assert_eq!(e.key, "topology");
        assert!(e.message.contains("needs about"), "{e}");
    }
}

#[test]
fn a_toml_syntax_error_gives_line_and_column() {
    // "warmup_ns = " is 12 characters: the bad value starts in column 13.
    let e = Config::from_toml_str("[simulation]\nseed = 1\nwarmup_ns = 2 000\n", &[]).unwrap_err();
    assert!(e.message.starts_with("invalid TOML at line 3, column 13"), "{e}");
}

#[test]
fn a_misspelling_far_from_every_key_gets_no_guess() {
    let e = error(&["topology.kind=\"torus\""]);
    assert!(e.message.contains("unknown variant") && !e.message.contains("did you mean"), "{e}");
}

#[test]
fn more_virtual_channels_than_the_switch_tracks_are_refused() {
    // Ideal puts each of 33 classes on a VC of its own; UGAL needs two sets of them: 66 > 64.
    let classes = (0..33).map(|i| format!("[[traffic]]\nname = \"c{i}\"\npattern = \"uniform\"\nload = 0.01\n")).collect::<String>();
    let text = format!("[topology]\nkind = \"flattened_butterfly\"\nrouters_per_dim = 4\ndims = 1\nconcentration = 4\n[routing]\nalgorithm = \"ugal\"\n[cc]\nmechanism = \"ideal\"\n{classes}");
    let e = Config::from_toml_str(&text, &[]).and_then(|c| check(&c)).unwrap_err();
    assert_eq!(e.key, "routing.algorithm", "{e}");
    assert!(e.to_string().contains("2 sets of the mechanism's 33 virtual channels, 66 in all; at most 64"), "{e}");
    // On one VC set (minimal routing) the same 33 fit.
    let minimal = text.replace("\"ugal\"", "\"minimal\"");
    check(&Config::from_toml_str(&minimal, &[]).unwrap()).unwrap();
}

#[test]
fn a_guess_needs_more_than_one_slip_in_four_letters() {
    // `hpcc` is two edits from `ibcc`: no guess (one edit, `srpp`, gets one above).
    let e = error(&["cc.mechanism=\"hpcc\""]);
    assert!(e.key == "cc.mechanism" && !e.message.contains("did you mean"), "{e}");
}

/// A config that leaves `message` and the buffer sizes at their defaults.
const DEFAULTED: &str = "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 2\n[[traffic]]\npattern = \"uniform\"\nload = 0.1\n";

#[test]
fn a_key_set_inside_a_defaulted_table_keeps_the_table_s_defaults() {
    let c = Config::from_toml_str(DEFAULTED, &["traffic.0.message.packets=8".into()]).unwrap();
    let resolved = toml::Table::try_from(&c).unwrap();
    let message = &resolved["traffic"][0]["message"];
    assert_eq!(message["packets"].as_integer(), Some(8), "{message}");
    assert_eq!(message["kind"].as_str(), Some("fixed"), "the default kind stays: {message}");
    // Picking another kind starts that variant from its own keys.
    let c = Config::from_toml_str(DEFAULTED, &["traffic.0.message.kind=\"uniform\"".into(), "traffic.0.message.min=1".into(), "traffic.0.message.max=4".into()]);
    assert!(c.is_ok(), "{:?}", c.err());
}

#[test]
fn unset_lets_a_buffer_change_its_unit() {
    let with_packets = format!("{DEFAULTED}[switch]\ninput_buffer_packets = 16\n");
    let both = Config::from_toml_str(&with_packets, &["switch.input_buffer_bytes=4096".into()]);
    assert!(both.is_err(), "packets and bytes together are refused");
    let c = Config::from_toml_str(&with_packets, &["~switch.input_buffer_packets".into(), "switch.input_buffer_bytes=4096".into()]).unwrap();
    assert_eq!((c.switch.input_buffer_packets, c.switch.input_buffer_bytes), (None, Some(4096)));
}

#[test]
fn another_flow_control_kind_s_keys_are_refused() {
    for set in ["flow_control.xoff_bytes=4096", "flow_control.drop=\"output\""] {
        let e = error(&[set]);
        assert!(e.key.starts_with("flow_control") && e.message.contains("unknown field"), "{set}: {e}");
    }
}
