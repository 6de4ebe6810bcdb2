//! Result files, written atomically: everything goes to a hidden sibling directory that is
//! renamed onto `--out` only when complete, so an interrupted run never leaves a directory that
//! looks finished.
//!
//! `--out` is replaced only when lossless may own it: it does not exist, is empty, or holds the
//! marker file that lossless writes into every result directory; even then only the files a run
//! writes are replaced, and whatever else the user put there stays. A directory of the user's, the
//! working directory, one of its ancestors, `/` and the home directory are never touched. The
//! Python commands (sweep, reproduce) follow the same rule with the same marker
//! (`python/lossless/outputs.py`).

use lossless_core::{Config, FlowRow, Summary};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The file that marks a directory as written by lossless, and by which command: its first
/// line is `lossless run`, `lossless sweep` or `lossless reproduce`, then the version.
pub const MARKER: &str = ".lossless";
/// What this command writes in the marker.
const KIND: &str = "lossless run";

/// Why results could not be written.
#[derive(Debug)]
pub enum OutputError {
    /// `--out` names a place lossless must not replace: the user chooses another (exit 2).
    Refused(String),
    /// The file system failed (read-only, full, ...): exit 1.
    Io(io::Error),
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::Refused(why) => write!(f, "{why}"),
            OutputError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<io::Error> for OutputError {
    fn from(e: io::Error) -> Self {
        OutputError::Io(e)
    }
}

/// Checks that `out` may be (re)placed by a run's results; called before the run, so that a
/// long run is not wasted, and again just before replacing.
pub fn claim(out: &Path) -> Result<(), OutputError> {
    let refuse = |why: String| Err(OutputError::Refused(format!("`--out {}`: {why}", out.display())));
    if out.file_name().is_none() {
        return refuse("name a directory for the results (not `.`, `..` or `/`)".into());
    }
    let meta = match fs::symlink_metadata(out) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    if !meta.is_dir() {
        return refuse("exists and is not a directory (a file or a link): choose a new directory name".into());
    }
    let real = fs::canonicalize(out)?;
    if protected(&real) {
        return refuse(format!("is {}, which lossless never replaces: choose a new directory", real.display()));
    }
    if let Ok(marker) = fs::read_to_string(real.join(MARKER)) {
        // A run replaces only a run: never the points of a sweep or a reproduction.
        return match marker.lines().next() {
            Some(line) if line.starts_with(KIND) => Ok(()),
            Some(line) => refuse(format!(
                "holds the results of `{}`, which a run does not replace: choose a new directory",
                line.split(' ').take(2).collect::<Vec<_>>().join(" ")
            )),
            None => refuse(format!("has an empty `{MARKER}` file: choose a new directory")),
        };
    }
    if fs::read_dir(&real)?.next().is_none() {
        return Ok(());
    }
    refuse(format!("exists and was not written by lossless (it has no `{MARKER}` file): choose a new directory, or empty this one yourself"))
}

/// The root, the home directory, and the working directory or any directory above it.
fn protected(real: &Path) -> bool {
    let home = std::env::var_os("HOME").and_then(|h| fs::canonicalize(h).ok());
    let cwd = std::env::current_dir().and_then(fs::canonicalize).ok();
    real.parent().is_none() || home.as_deref() == Some(real) || cwd.is_some_and(|c| c.starts_with(real))
}

pub fn write_atomically(out: &Path, cfg: &Config, s: &Summary) -> Result<(), OutputError> {
    claim(out)?;
    let partial = sibling(out, "partial");
    if partial.exists() {
        fs::remove_dir_all(&partial)?;
    }
    fs::create_dir_all(&partial)?;
    let result = write_files(&partial, cfg, s).and_then(|()| replace(&partial, out));
    if result.is_err() {
        let _ = fs::remove_dir_all(&partial);
    }
    Ok(result?)
}

/// Every file a run writes: the only names a later run replaces or removes in `--out`.
const WRITTEN: [&str; 6] = [MARKER, "summary.json", "config.toml", "timeseries.csv", "links.csv", "flows.csv"];

/// Moves `partial` onto `out`. A previous result directory is first moved aside, so that at no
/// moment does `out` hold a mix of the two runs' files; what the user put there beside the
/// results (notes, plots) moves into the new results first.
fn replace(partial: &Path, out: &Path) -> io::Result<()> {
    if !out.exists() {
        return fs::rename(partial, out);
    }
    for entry in fs::read_dir(out)? {
        let name = entry?.file_name();
        if !WRITTEN.iter().any(|w| name == *w) {
            fs::rename(out.join(&name), partial.join(&name))?;
        }
    }
    let old = sibling(out, "old");
    fs::rename(out, &old)?;
    fs::rename(partial, out)?;
    fs::remove_dir_all(&old)
}

fn sibling(out: &Path, what: &str) -> PathBuf {
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    out.with_file_name(format!(".{name}.{what}-{}", std::process::id()))
}

fn write_files(dir: &Path, cfg: &Config, s: &Summary) -> io::Result<()> {
    // Each name here is in `WRITTEN`.
    fs::write(dir.join(MARKER), format!("{KIND} {}\n", env!("CARGO_PKG_VERSION")))?;
    let json = serde_json::to_string_pretty(s).map_err(io::Error::other)?;
    fs::write(dir.join("summary.json"), json + "\n")?;
    let toml = toml::to_string(&lossless_core::resolved_config(cfg).map_err(io::Error::other)?).map_err(io::Error::other)?;
    fs::write(dir.join("config.toml"), toml)?;
    write_csv(&dir.join("timeseries.csv"), &s.series, &[])?;
    write_csv(&dir.join("links.csv"), &s.links, &[])?;
    if cfg.simulation.record_flows {
        write_csv(&dir.join("flows.csv"), &s.flows, &FlowRow::COLUMNS)?;
    }
    Ok(())
}

/// Writes `rows` with their header; with no rows, `columns` as the header, so that a file
/// readers expect columns in is never empty.
fn write_csv<T: serde::Serialize>(path: &Path, rows: &[T], columns: &[&str]) -> io::Result<()> {
    let mut w = csv::Writer::from_path(path).map_err(io::Error::other)?;
    if rows.is_empty() && !columns.is_empty() {
        w.write_record(columns).map_err(io::Error::other)?;
    }
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
    let with_flows: Vec<_> = s.classes.iter().filter(|(_, c)| c.fct_ns.count > 0).collect();
    if !with_flows.is_empty() {
        println!("{:<16} {:>8} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}", "class", "flows", "FCT p50 ns", "p99 ns", "p999 ns", "slow p50", "p99", "p999");
        for (name, c) in with_flows {
            let (f, d) = (&c.fct_ns, &c.slowdown);
            println!("{:<16} {:>8} {:>10.1} {:>10.1} {:>10.1} {:>9.2} {:>9.2} {:>9.2}", name, f.count, f.p50, f.p99, f.p999, d.p50, d.p99, d.p999);
        }
    }
    if !s.cc.is_empty() {
        let counters: Vec<String> = s.cc.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("{}: {}", s.mechanism, counters.join(", "));
    }
    println!("{} events in {:.2} s ({:.2} M events/s), {:.0} ns simulated", s.events, s.wall_s, s.events as f64 / s.wall_s.max(1e-9) / 1e6, s.sim_time_ns);
}
