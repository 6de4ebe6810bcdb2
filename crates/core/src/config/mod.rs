//! Run configuration: the TOML schema, its defaults (each citing its source), `--set`
//! overrides and validation. Documented key by key in `docs/config.md`.
//!
//! Loading is two steps so that every error names its key: TOML text -> `toml::Table` (where
//! `--set key=value` overrides apply) -> typed [`Config`] (serde, unknown keys refused) ->
//! [`Config::validate`] (ranges and cross-field rules).

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
        let mut table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| ConfigError::new("", format!("invalid TOML: {}", e.message().trim())))?;
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        Config::from_table(table)
    }

    pub fn from_table(table: toml::Table) -> ConfigResult<Config> {
        let cfg: Config = toml::Value::Table(table).try_into().map_err(serde_error)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads and parses a config file.
    pub fn from_file(path: &std::path::Path, overrides: &[String]) -> ConfigResult<Config> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::new("", format!("cannot read config file {}: {e}", path.display())))?;
        Config::from_toml_str(&text, overrides)
    }
}

/// Turns a serde error into one that names the key first.
fn serde_error(e: toml::de::Error) -> ConfigError {
    let msg = e.message().trim().to_string();
    // toml reports the path of the failing key in the message for unknown fields and type errors
    // ("unknown field `lod`, expected one of ..."); keep it and add the hint to check docs.
    ConfigError::new("", format!("{msg} (see docs/config.md for the keys and their types)"))
}
