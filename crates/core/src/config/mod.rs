//! Run configuration: the TOML schema, its defaults (each citing its source), `--set`
//! overrides and validation. Documented key by key in `docs/config.md`.
//!
//! Loading is two steps so that every error names its key: TOML text -> `toml::Table` (where
//! `--set key=value` overrides apply) -> typed [`Config`] (serde, unknown keys refused) ->
//! [`Config::validate`] (ranges and cross-field rules).

pub mod limits;
mod overrides;
mod schema;
mod validate;
pub use validate::{serde_plain_pattern, MAX_SWITCH_PORTS};

pub use overrides::apply_override;
pub use schema::*;

use crate::error::{ConfigError, ConfigResult};

impl Config {
    /// Parses TOML text, applies `key=value` overrides in order, and validates.
    pub fn from_toml_str(text: &str, overrides: &[String]) -> ConfigResult<Config> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ConfigError::new("", format!("invalid TOML: {}", e.message().trim())))?;
        Config::from_table(table, overrides)
    }

    /// Builds a config from an already parsed table (e.g. converted from a Python dict),
    /// applying `key=value` overrides first.
    pub fn from_table(mut table: toml::Table, overrides: &[String]) -> ConfigResult<Config> {
        if table.contains_key("sweep") {
            return Err(ConfigError::new("sweep", "this file is a sweep spec: run it with `lossless sweep FILE --out DIR` (docs/sweeps.md)"));
        }
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        let cfg: Config = serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(serde_error)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads and parses a config file.
    pub fn from_file(path: &std::path::Path, overrides: &[String]) -> ConfigResult<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::new("", format!("cannot read config file {}: {e}", path.display())))?;
        Config::from_toml_str(&text, overrides)
    }
}

/// A typing error (unknown key, wrong type, unknown variant) with the path of the key.
fn serde_error(e: serde_path_to_error::Error<toml::de::Error>) -> ConfigError {
    let path = e.path().to_string();
    let key = if path == "." { String::new() } else { path };
    ConfigError::new(key, format!("{} (see docs/config.md for the keys and their types)", e.inner().message().trim()))
}
