//! Python bindings: the same run as the CLI, returning results as JSON text that the Python
//! layer (`python/lossless`) turns into dicts and pandas DataFrames.

use lossless_core::{Config, ConfigError as CoreConfigError, RunError};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

/// Running out of memory ends the process with a message, not an abort (`sim::oom`).
#[global_allocator]
static ALLOCATOR: lossless_core::sim::oom::Guarded = lossless_core::sim::oom::Guarded;

create_exception!(_lossless, ConfigError, PyValueError, "A configuration (file, dict, override) is invalid; the message names the key.");
create_exception!(_lossless, InternalError, PyRuntimeError, "A bug in lossless (not in the input): please report it with the config that caused it.");

/// Runs `f`, turning a panic (a bug: bad input is refused before it can cause one) into
/// `InternalError` instead of pyo3's `PanicException`, which is a `BaseException` that
/// `except Exception` does not catch.
fn no_panic<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let what = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default();
        Err(InternalError::new_err(format!("internal error, please report it with the config: {what}")))
    })
}

fn config_error(e: CoreConfigError) -> PyErr {
    ConfigError::new_err(e.to_string())
}

/// Parses a config given as TOML text (`toml_text`) or as JSON text of a dict (`json_text`).
fn parse(toml_text: Option<&str>, json_text: Option<&str>, overrides: &[String]) -> PyResult<Config> {
    match (toml_text, json_text) {
        (Some(t), None) => Config::from_toml_str(t, overrides).map_err(config_error),
        (None, Some(j)) => {
            let value: serde_json::Value = serde_json::from_str(j).map_err(|e| PyValueError::new_err(e.to_string()))?;
            let table = match toml::Value::try_from(value) {
                Ok(toml::Value::Table(t)) => t,
                Ok(_) => return Err(ConfigError::new_err("the config must be a mapping of tables")),
                Err(e) => return Err(ConfigError::new_err(format!("the config cannot be expressed in TOML: {e}"))),
            };
            Config::from_table(table, overrides).map_err(config_error)
        }
        _ => Err(PyValueError::new_err("give exactly one of toml_text and json_text")),
    }
}

/// While set (`stop_runs`), every run of this process stops at its next progress report as on
/// Ctrl-C. Python delivers a signal to its main thread only, where `check_signals` sees it: runs
/// on other threads (`lossless.parallel.map_parallel`) learn of it here.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Stops every run in progress, on any thread, and any started while `on` (each raises
/// `KeyboardInterrupt`); `False` lets runs go on again.
#[pyfunction]
fn stop_runs(on: bool) {
    STOPPING.store(on, Ordering::Relaxed);
}

/// Runs one simulation. Returns (summary JSON, time-series rows JSON, link rows JSON, flow rows
/// JSON or None without `simulation.record_flows`).
#[pyfunction]
#[pyo3(signature = (toml_text=None, json_text=None, overrides=Vec::new()))]
fn run(py: Python<'_>, toml_text: Option<&str>, json_text: Option<&str>, overrides: Vec<String>) -> PyResult<(String, String, String, Option<String>)> {
    no_panic(|| {
        let cfg = parse(toml_text, json_text, &overrides)?;
        // What the command line prints as warnings, as Python's, at the caller of `lossless.run`:
        // three frames up, past `run` and its `renamed_kwargs` wrapper (a test checks where).
        for w in cfg.warnings() {
            let message = std::ffi::CString::new(w).map_err(|e| InternalError::new_err(e.to_string()))?;
            PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 3)?;
        }
        // The simulation holds no Python object: other Python threads run meanwhile. Every
        // progress report (65,536 events) takes the GIL to see whether Ctrl-C was pressed, or
        // whether the main thread, which saw it, stops the runs of the others (`stop_runs`).
        let stop_on_signal = &mut |_: &lossless_core::Progress| {
            if STOPPING.load(Ordering::Relaxed) || Python::attach(|py| py.check_signals()).is_err() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let summary = py.detach(|| lossless_core::run(&cfg, stop_on_signal)).map_err(|e| match e {
            RunError::Config(e) => config_error(e),
            RunError::Interrupted => PyKeyboardInterrupt::new_err("the run was interrupted"),
        })?;
        Ok((to_json(&summary)?, to_json(&summary.series)?, to_json(&summary.links)?, cfg.simulation.record_flows.then(|| to_json(&summary.flows)).transpose()?))
    })
}

/// Checks a config (and overrides) without running it; returns the resolved config as TOML.
#[pyfunction]
#[pyo3(signature = (toml_text=None, json_text=None, overrides=Vec::new()))]
fn validate(toml_text: Option<&str>, json_text: Option<&str>, overrides: Vec<String>) -> PyResult<String> {
    no_panic(|| {
        let cfg = parse(toml_text, json_text, &overrides)?;
        lossless_core::check(&cfg).map_err(config_error)?;
        toml::to_string(&lossless_core::resolved_config(&cfg).map_err(config_error)?).map_err(|e| InternalError::new_err(e.to_string()))
    })
}

/// The `lossless` command line; returns its exit status.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| lossless_cli::main_with_args(argv))
}

fn to_json<T: serde::Serialize>(v: &T) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| InternalError::new_err(e.to_string()))
}

#[pymodule]
fn _lossless(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("__version__", lossless_core::VERSION)?;
    m.add("__commit__", lossless_core::COMMIT)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(stop_runs, m)?)?;
    Ok(())
}
