//! The `lossless` command as a user runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lossless(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lossless")).args(args).output().expect("runs")
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name).to_string_lossy().into_owned()
}

fn out_dir(tmp: &tempfile::TempDir) -> PathBuf {
    tmp.path().join("run")
}

#[test]
fn run_writes_the_documented_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = out_dir(&tmp);
    let o = lossless(&["run", &example("fattree256_uniform.toml"), "--out", out.to_str().unwrap(), "--set", "simulation.measure_ns=20000", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let c = &s["classes"]["uniform"];
    for key in ["offered", "accepted"] {
        assert!(c[key].as_f64().unwrap() > 0.3, "{key}");
    }
    // The example runs without congestion control: nothing marks.
    assert_eq!(c["marked"].as_f64(), Some(0.0));
    for lat in ["packet_latency_ns", "inflight_latency_ns", "network_latency_ns"] {
        for stat in ["mean", "p50", "p99", "p999"] {
            assert!(c[lat][stat].as_f64().unwrap() >= 294.8, "{lat}.{stat}");
        }
    }
    assert_eq!(s["sources"].as_object().unwrap().len(), 256);
    for k in ["injected", "delivered", "in_flight", "dropped"] {
        assert!(s["counters"][k].is_u64(), "counters.{k}");
    }
    for k in ["sim_time_ns", "wall_s", "events"] {
        assert!(s[k].is_number(), "{k}");
    }
    let series = std::fs::read_to_string(out.join("timeseries.csv")).unwrap();
    assert!(series.starts_with("class,bin_start_ns,offered,accepted"));
    // 40 us in 1 us bins, one class.
    assert_eq!(series.lines().count(), 1 + 40);
    assert!(out.join("links.csv").exists() && out.join("config.toml").exists());
    // config.toml holds every default the example left open, and the run's provenance is in
    // the summary.
    let resolved = std::fs::read_to_string(out.join("config.toml")).unwrap();
    for key in ["input_buffer_packets = 16", "output_buffer_packets = 4", "host_bandwidth_gbps = 10.0", "vcs = [\"data\"]", "watchdog_ns = "] {
        assert!(resolved.contains(key), "config.toml lacks `{key}`:\n{resolved}");
    }
    assert_eq!(s["version"], env!("CARGO_PKG_VERSION"));
    assert!(s["commit"].as_str().is_some_and(|c| c.len() >= 7), "{}", s["commit"]);
    // The resolved config reruns to the same result.
    let out2 = tmp.path().join("rerun");
    let o = lossless(&["run", out.join("config.toml").to_str().unwrap(), "--out", out2.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s2: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out2.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["classes"], s2["classes"]);
}

#[test]
fn bad_input_exits_2_names_the_key_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = out_dir(&tmp);
    for (set, key) in [("traffic.0.lod=1", "traffic[0].lod"), ("traffic.0.load=2", "traffic[0].load"), ("topology.k=1", "topology.k")] {
        let o = lossless(&["run", &example("fattree256_uniform.toml"), "--out", out.to_str().unwrap(), "--set", set]);
        assert_eq!(o.status.code(), Some(2), "{set}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(key), "{set}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!out.exists(), "{set} left {}", out.display());
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "no partial directory either");
    }
    let o = lossless(&["validate", &example("fattree256_uniform.toml"), "--set", "nic.data_packet_bytes=0"]);
    assert_eq!(o.status.code(), Some(2));
    let o = lossless(&["run", "does-not-exist.toml", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let o = lossless(&["run", &example("fattree256_uniform.toml")]);
    assert_eq!(o.status.code(), Some(2), "missing --out is a usage error");
}

#[test]
fn validate_accepts_every_example() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut n = 0;
    for entry in walk(&dir) {
        if entry.extension().is_some_and(|e| e == "toml") {
            let o = lossless(&["validate", entry.to_str().unwrap()]);
            if std::fs::read_to_string(&entry).unwrap().contains("\n[sweep]") {
                // Sweep specs are checked point by point by the Python tests; `run` and
                // `validate` send the user to `lossless sweep`.
                assert_eq!(o.status.code(), Some(2));
                assert!(String::from_utf8_lossy(&o.stderr).contains("lossless sweep"));
                continue;
            }
            assert!(o.status.success(), "{}: {}", entry.display(), String::from_utf8_lossy(&o.stderr));
            n += 1;
        }
    }
    assert!(n >= 3);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            v.extend(walk(&p))
        } else {
            v.push(p)
        }
    }
    v
}

#[test]
fn a_killed_run_leaves_no_finished_looking_output() {
    let tmp = tempfile::tempdir().unwrap();
    let out = out_dir(&tmp);
    let mut child = Command::new(env!("CARGO_BIN_EXE_lossless"))
        .args(["run", &example("fattree256_uniform.toml"), "--out", out.to_str().unwrap(), "--set", "simulation.measure_ns=100000000", "-q"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.exists());
    assert!(!out.join("summary.json").exists());
}

/// A short run of the default example into `out`, from the working directory `cwd`.
fn short_run(cwd: &Path, out: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lossless"))
        .current_dir(cwd)
        .args(["run", &example("fattree256_uniform.toml"), "--out", out, "--set", "simulation.measure_ns=2000", "--set", "simulation.warmup_ns=0", "-q"])
        .output()
        .expect("runs")
}

#[test]
fn out_never_replaces_a_directory_lossless_did_not_write() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    let mine = work.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("keep"), "a user's file").unwrap();
    std::fs::write(work.join("notes.txt"), "a user's file").unwrap();
    for out in ["mine", ".", "..", "notes.txt", "/"] {
        let o = short_run(&work, out);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "--out {out}: {err}");
        assert!(err.contains(&format!("--out {out}")), "--out {out}: {err}");
    }
    assert_eq!(std::fs::read_to_string(mine.join("keep")).unwrap(), "a user's file");
    assert_eq!(std::fs::read_to_string(work.join("notes.txt")).unwrap(), "a user's file");
    let mut left: Vec<_> = std::fs::read_dir(&work).unwrap().map(|e| e.unwrap().file_name()).collect();
    left.sort();
    assert_eq!(left, ["mine", "notes.txt"], "no partial directory is left either");
}

#[test]
fn a_run_never_replaces_a_sweep_or_a_reproduction() {
    let tmp = tempfile::tempdir().unwrap();
    for kind in ["sweep", "reproduce"] {
        let d = tmp.path().join(kind);
        std::fs::create_dir_all(d.join("points")).unwrap();
        std::fs::write(d.join(".lossless"), format!("lossless {kind} 0.1.0\n")).unwrap();
        std::fs::write(d.join("points/abc.json"), "a finished point").unwrap();
        let o = short_run(tmp.path(), kind);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("holds the results of `lossless {kind}`")), "{err}");
        assert_eq!(std::fs::read_to_string(d.join("points/abc.json")).unwrap(), "a finished point");
    }
}

#[test]
fn out_replaces_an_empty_directory_and_an_earlier_run() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    let o = short_run(tmp.path(), "empty");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let first = std::fs::read_to_string(tmp.path().join("empty/summary.json")).unwrap();
    // Written by lossless, so a second run may replace its results, and replaces them whole:
    // a file of the first run's that the second does not write goes; a file of the user's,
    // or a folder, beside the results stays.
    std::fs::write(tmp.path().join("empty/flows.csv"), "from the first run").unwrap();
    std::fs::write(tmp.path().join("empty/notes.txt"), "a user's file").unwrap();
    std::fs::create_dir(tmp.path().join("empty/plots")).unwrap();
    let o = short_run(tmp.path(), "empty");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!tmp.path().join("empty/flows.csv").exists());
    assert_eq!(std::fs::read_to_string(tmp.path().join("empty/notes.txt")).unwrap(), "a user's file");
    assert!(tmp.path().join("empty/plots").is_dir());
    let second = std::fs::read_to_string(tmp.path().join("empty/summary.json")).unwrap();
    let classes = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap()["classes"].clone();
    assert_eq!(classes(&first), classes(&second));
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1, "nothing left beside it");
}

#[test]
fn flows_csv_has_its_header_when_no_message_completed() {
    let tmp = tempfile::tempdir().unwrap();
    let header = |measure_ns: &str| {
        let out = tmp.path().join(format!("m{measure_ns}"));
        let o = lossless(&[
            "run", &example("fattree256_uniform.toml"), "--out", out.to_str().unwrap(), "-q",
            "--set", "simulation.record_flows=true", "--set", "simulation.warmup_ns=0", "--set", &format!("simulation.measure_ns={measure_ns}"),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(out.join("flows.csv")).unwrap();
        (text.lines().next().unwrap_or("").to_string(), text.lines().count())
    };
    // In 5 us messages complete; in 0.1 us (less than a packet's 204.8 ns) none does.
    let (with_rows, rows) = header("5000");
    let (empty, lines) = header("100");
    assert!(rows > 1 && lines == 1, "{rows} {lines}");
    assert_eq!(empty, with_rows, "the header written alone is the one serde writes with rows");
}

#[derive(serde::Deserialize)]
struct BadInputs {
    case: Vec<BadInput>,
}

#[derive(serde::Deserialize)]
struct BadInput {
    example: String,
    set: Vec<String>,
    key: String,
    says: String,
    #[allow(dead_code)] // for docs/bad-input.md
    was: String,
}

#[test]
fn every_bad_input_found_is_refused_with_its_key_and_writes_nothing() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs.toml");
    let cases: BadInputs = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(cases.case.len() >= 15);
    let tmp = tempfile::tempdir().unwrap();
    let out = out_dir(&tmp);
    for c in &cases.case {
        let mut args = vec!["run".to_string(), example(&c.example), "--out".into(), out.to_string_lossy().into_owned(), "-q".into()];
        for s in &c.set {
            args.extend(["--set".to_string(), s.clone()]);
        }
        let o = Command::new(env!("CARGO_BIN_EXE_lossless")).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{:?}: {err}", c.set);
        assert!(err.contains(&format!("`{}`", c.key)) && err.contains(&c.says), "{:?}: `{err}` should name `{}` and say `{}`", c.set, c.key, c.says);
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "{:?} wrote something", c.set);
    }
}

#[test]
fn a_deadlocked_run_exits_3_and_its_summary_names_the_cycle() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = example("deadlock/ring4_clockwise.toml");
    let out = out_dir(&tmp);
    let o = lossless(&["run", &cfg, "--out", out.to_str().unwrap(), "-q"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("deadlock") && err.contains("s0-s1>"), "{err}");
    let s: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["deadlock"]["cycle"].as_array().unwrap().len(), 4, "{s}");
    // Without allow_deadlock the routes are refused before the run.
    let o = lossless(&["run", &cfg, "--out", tmp.path().join("again").to_str().unwrap(), "-q", "--set", "routing.allow_deadlock=false"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`routing.shortest_path.routes`: these routes can deadlock"));
}

#[test]
fn a_run_that_cannot_be_what_was_meant_warns_and_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = out_dir(&tmp);
    let cores = std::thread::available_parallelism().unwrap().get();
    let threads = format!("{}", cores + 1);
    let set = ["--set", "simulation.measure_ns=2000", "--set", "traffic.0.start_ns=1e6", "--threads", &threads];
    let o = lossless(&[&["run", &example("fattree256_uniform.toml"), "--out", out.to_str().unwrap(), "-q"][..], &set].concat());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && out.join("summary.json").exists(), "{stderr}");
    assert!(
        stderr.contains("warning: `traffic[0].start_ns` (1000000 ns) is not before the end of the run (22000 ns): class `uniform` sends nothing"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("warning: `simulation.threads` ({threads}) is more than this machine's {cores} cores")), "{stderr}");
}

#[test]
fn version_names_the_commit() {
    let o = lossless(&["--version"]);
    let v = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && v.starts_with(&format!("lossless {} (commit ", env!("CARGO_PKG_VERSION"))), "{v}");
}
