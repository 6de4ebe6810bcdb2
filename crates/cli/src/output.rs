//! Result files, written atomically: everything goes to a hidden sibling directory that is
//! renamed onto `--out` only when complete, so an interrupted run never leaves a directory that
//! looks finished.

use lossless_core::{Config, Summary};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub fn write_atomically(out: &Path, cfg: &Config, s: &Summary) -> io::Result<()> {
    let partial = partial_dir(out);
    if partial.exists() {
        fs::remove_dir_all(&partial)?;
    }
    fs::create_dir_all(&partial)?;
    let result = write_files(&partial, cfg, s).and_then(|()| {
        if out.exists() {
            fs::remove_dir_all(out)?;
        }
        fs::rename(&partial, out)
    });
    if result.is_err() {
        let _ = fs::remove_dir_all(&partial);
    }
    result
}

fn partial_dir(out: &Path) -> PathBuf {
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    out.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

fn write_files(dir: &Path, cfg: &Config, s: &Summary) -> io::Result<()> {
    let json = serde_json::to_string_pretty(s).map_err(io::Error::other)?;
    fs::write(dir.join("summary.json"), json + "\n")?;
    let toml = toml::to_string(cfg).map_err(io::Error::other)?;
    fs::write(dir.join("config.toml"), toml)?;
    write_csv(&dir.join("timeseries.csv"), &s.series)?;
    write_csv(&dir.join("links.csv"), &s.links)
}

fn write_csv<T: serde::Serialize>(path: &Path, rows: &[T]) -> io::Result<()> {
    let mut w = csv::Writer::from_path(path).map_err(io::Error::other)?;
    for r in rows {
        w.serialize(r).map_err(io::Error::other)?;
    }
    w.flush()
}

/// A short human summary on stdout.
pub fn print_table(s: &Summary) {
    println!("{:<16} {:>8} {:>9} {:>12} {:>12} {:>12} {:>8}", "class", "offered", "accepted", "latency ns", "p99 ns", "in-flight ns", "marked");
    for (name, c) in &s.classes {
        println!(
            "{:<16} {:>8.4} {:>9.4} {:>12.1} {:>12.1} {:>12.1} {:>8.4}",
            name, c.offered, c.accepted, c.packet_latency_ns.mean, c.packet_latency_ns.p99, c.inflight_latency_ns.mean, c.marked
        );
    }
    if !s.cc.is_empty() {
        let counters: Vec<String> = s.cc.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("{}: {}", s.mechanism, counters.join(", "));
    }
    println!("{} events in {:.2} s ({:.2} M events/s), {:.0} ns simulated", s.events, s.wall_s, s.events as f64 / s.wall_s.max(1e-9) / 1e6, s.sim_time_ns);
}
