//! Python bindings: the same run as the CLI, returning results as JSON text that the Python
//! layer (`python/lossless`) turns into dicts and pandas DataFrames.

use lossless_core::{Config, ConfigError as CoreConfigError};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(_lossless, ConfigError, PyValueError, "A configuration (file, dict, override) is invalid; the message names the key.");

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

/// Runs one simulation. Returns (summary JSON, time-series rows JSON, link rows JSON).
#[pyfunction]
#[pyo3(signature = (toml_text=None, json_text=None, overrides=Vec::new()))]
fn run(py: Python<'_>, toml_text: Option<&str>, json_text: Option<&str>, overrides: Vec<String>) -> PyResult<(String, String, String)> {
    let cfg = parse(toml_text, json_text, &overrides)?;
    // The simulation holds no Python object: other Python threads run meanwhile.
    let summary = py.detach(|| lossless_core::run(&cfg, &mut |_| {})).map_err(config_error)?;
    Ok((to_json(&summary)?, to_json(&summary.series)?, to_json(&summary.links)?))
}

/// Checks a config (and overrides) without running it; returns the resolved config as TOML.
#[pyfunction]
#[pyo3(signature = (toml_text=None, json_text=None, overrides=Vec::new()))]
fn validate(toml_text: Option<&str>, json_text: Option<&str>, overrides: Vec<String>) -> PyResult<String> {
    let cfg = parse(toml_text, json_text, &overrides)?;
    lossless_core::check(&cfg).map_err(config_error)?;
    toml::to_string(&cfg).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// The `lossless` command line; returns its exit status.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| lossless_cli::main_with_args(argv))
}

fn to_json<T: serde::Serialize>(v: &T) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

#[pymodule]
fn _lossless(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__commit__", env!("LOSSLESS_COMMIT"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    Ok(())
}
