//! The `lossless` command. A library so that the Python package exposes the very same command
//! (`python -m lossless` and the `lossless` script installed by pip).

mod output;
mod progress;

use clap::{Parser, Subcommand};
use lossless_core::{Config, ConfigError, RunError};
use std::ffi::OsString;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Exit status for bad input (config, arguments): the same as clap's usage errors.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit status for a failure while running or writing results.
pub const EXIT_FAILURE: i32 = 1;
/// Exit status for a run the watchdog stopped as deadlocked (its results are written).
pub const EXIT_DEADLOCK: i32 = 3;
/// Exit status for a bug in lossless (sysexits' EX_SOFTWARE).
pub const EXIT_INTERNAL: i32 = 70;

#[derive(Parser)]
#[command(
    name = "lossless",
    version = lossless_core::VERSION_LINE,
    about = "Simulate congestion management in lossless interconnection networks",
    after_help = "Commands of the Python package (pip install lossless; each has --help):
  sweep      Run a grid of points (mechanisms x loads x seeds x any key) in parallel, resumably
  plot       Draw a figure of a sweep or of one run directory (PNG or SVG)
  report     Write a self-contained HTML report of a sweep
  reproduce  Run a paper's figure and check its headline numbers (--list for the targets)

Exit status: 0 done, 1 failed (a sweep's points, writing results), 2 bad input (the message
names the key), 3 the run deadlocked (results written), 70 a bug in lossless, 130 interrupted.
Docs: docs/config.md (keys), docs/metrics.md (results), docs/sweeps.md, docs/tutorial.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one simulation and write summary.json, timeseries.csv, links.csv and config.toml.
    Run {
        /// Scenario file (TOML); see docs/config.md.
        config: PathBuf,
        /// Output directory: created, or replaced as a whole when the run completes if it is
        /// empty or holds an earlier run's results (never a directory of yours).
        #[arg(long)]
        out: PathBuf,
        /// Overrides simulation.seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Overrides simulation.threads: threads for this run, 0 for one per core (results are
        /// identical for every count).
        #[arg(long)]
        threads: Option<u32>,
        /// Overrides a config key, e.g. --set traffic.0.load=0.6 (repeatable); a key inside a
        /// table keeps the table's other keys.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Removes a config key, e.g. --unset switch.input_buffer_packets before --set
        /// switch.input_buffer_bytes=4096 (repeatable; applied before every --set).
        #[arg(long = "unset", value_name = "KEY")]
        unset: Vec<String>,
        /// No progress bar and no summary on stdout.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Check a scenario file (and overrides) without running it; print the memory it needs.
    Validate {
        /// Scenario file (TOML); see docs/config.md.
        config: PathBuf,
        /// Overrides a config key, e.g. --set traffic.0.load=0.6 (repeatable); a key inside a
        /// table keeps the table's other keys.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Removes a config key, e.g. --unset switch.input_buffer_packets before --set
        /// switch.input_buffer_bytes=4096 (repeatable; applied before every --set).
        #[arg(long = "unset", value_name = "KEY")]
        unset: Vec<String>,
    },
    /// List the topologies, routings, queues, mechanisms, traffic patterns and message sizes.
    List,
}

/// Runs the command line `args` (including the program name) and returns the exit status.
pub fn main_with_args<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_BAD_INPUT } else { 0 };
        }
    };
    // Bad input is refused before it can cause a panic: one is a bug, said as such.
    std::panic::catch_unwind(|| dispatch(cli.command)).unwrap_or_else(|_| {
        eprintln!("error: internal error (a bug in lossless, not in your input): please report it with the config and the message above");
        EXIT_INTERNAL
    })
}

fn dispatch(command: Command) -> i32 {
    match command {
        Command::Run { config, out, seed, threads, set, unset, quiet } => {
            let mut set = unsets_then(unset, set);
            set.extend(threads.map(|n| format!("simulation.threads={n}")));
            run(&config, &out, seed, &set, quiet)
        }
        Command::Validate { config, set, unset } => {
            let set = unsets_then(unset, set);
            match load(&config, None, &set).and_then(|c| lossless_core::check(&c).and_then(|_| lossless_core::memory_estimate(&c)).map(|m| (c, m))) {
                Ok((cfg, memory)) => {
                    warn(&cfg);
                    let memory = lossless_core::sim::memory::human(memory);
                    println!("{}: valid (a run needs about {memory} of memory)", config.display());
                    0
                }
                Err(e) => bad_input(&config, &e),
            }
        }
        Command::List => {
            for c in lossless_core::catalog::catalog() {
                println!("{}:", c.key);
                let width = c.values.iter().map(|(value, _)| value.len()).max().unwrap_or(0);
                for (value, doc) in c.values {
                    println!("  {value:<width$}  {doc}");
                }
            }
            0
        }
    }
}

/// The overrides in the order they apply: removals (`~key`, `config::apply_override`) first.
fn unsets_then(unset: Vec<String>, set: Vec<String>) -> Vec<String> {
    unset.into_iter().map(|k| format!("~{k}")).chain(set).collect()
}

fn load(path: &Path, seed: Option<u64>, set: &[String]) -> Result<Config, ConfigError> {
    let mut overrides = set.to_vec();
    if let Some(s) = seed {
        overrides.push(format!("simulation.seed={s}"));
    }
    Config::from_file(path, &overrides)
}

fn warn(cfg: &Config) {
    for w in cfg.warnings() {
        eprintln!("warning: {w}");
    }
}

fn bad_input(path: &Path, e: &ConfigError) -> i32 {
    eprintln!("error: {}: {e}", path.display());
    EXIT_BAD_INPUT
}

fn output_error(out: &Path, e: &output::OutputError) -> i32 {
    match e {
        output::OutputError::Refused(why) => {
            eprintln!("error: {why}");
            EXIT_BAD_INPUT
        }
        output::OutputError::Io(io) => {
            eprintln!("error: writing results to {}: {io}", out.display());
            EXIT_FAILURE
        }
    }
}

fn run(path: &Path, out: &Path, seed: Option<u64>, set: &[String], quiet: bool) -> i32 {
    let cfg = match load(path, seed, set) {
        Ok(c) => c,
        Err(e) => return bad_input(path, &e),
    };
    // Build everything that can fail on bad input before anything is written.
    if let Err(e) = lossless_core::check(&cfg) {
        return bad_input(path, &e);
    }
    if let Err(e) = output::claim(out) {
        return output_error(out, &e);
    }
    warn(&cfg);
    let mut bar = progress::Bar::new(quiet);
    let summary = match lossless_core::run(&cfg, &mut |p| {
        bar.update(p);
        ControlFlow::Continue(())
    }) {
        Ok(s) => s,
        Err(RunError::Config(e)) => return bad_input(path, &e),
        Err(RunError::Interrupted) => return EXIT_FAILURE,
    };
    bar.finish();
    if let Err(e) = output::write_atomically(out, &cfg, &summary) {
        return output_error(out, &e);
    }
    if let Some(d) = &summary.deadlock {
        eprintln!("error: deadlock: {} packets in the network, none moved since {} ns; stopped at {} ns", d.in_flight, d.last_move_ns, d.at_ns);
        if d.cycle.is_empty() {
            eprintln!("blocked channels (no cycle among them): {}", d.blocked.join(", "));
        } else {
            eprintln!("cycle of channels each waiting for the next: {}", d.cycle.join(" => "));
        }
        eprintln!("results up to then in {} (summary.json: \"deadlock\")", out.display());
        return EXIT_DEADLOCK;
    }
    if !quiet {
        output::print_table(&summary);
        println!("results in {}", out.display());
    }
    0
}
