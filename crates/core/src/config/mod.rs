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
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let at = e.span().map(|s| line_column(text, s.start)).map(|(l, c)| format!(" at line {l}, column {c}")).unwrap_or_default();
            ConfigError::new("", format!("invalid TOML{at}: {}", e.message().trim()))
        })?;
        Config::from_table(table, overrides)
    }

    /// Builds a config from an already parsed table (e.g. converted from a Python dict),
    /// applying `key=value` overrides first.
    pub fn from_table(mut table: toml::Table, overrides: &[String]) -> ConfigResult<Config> {
        if table.contains_key("sweep") {
            return Err(ConfigError::new("sweep", "this file is a sweep spec: run it with `lossless sweep FILE --out DIR` (docs/sweeps.md)"));
        }
        // The file's own config, defaults filled in, for the tables an override reaches into.
        let defaults = if overrides.is_empty() { None } else { Config::defaults_of(&table) };
        for o in overrides {
            apply_override(&mut table, o, defaults.as_ref())?;
        }
        let root = toml::Value::Table(table);
        let cfg: Config = serde_path_to_error::deserialize(root.clone()).map_err(|e| serde_error(e, &root))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// `table` typed and written back, defaults included; none if it does not type as it is (an
    /// override may be what completes it).
    fn defaults_of(table: &toml::Table) -> Option<toml::Table> {
        let cfg: Config = toml::Value::Table(table.clone()).try_into().ok()?;
        toml::Table::try_from(&cfg).ok()
    }

    /// Reads and parses a config file.
    pub fn from_file(path: &std::path::Path, overrides: &[String]) -> ConfigResult<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::new("", format!("cannot read config file {}: {e}", path.display())))?;
        Config::from_toml_str(&text, overrides)
    }
}

/// `value` as a `T`, the contents of key `key` (a dotted path): for tables this layer keeps
/// untyped, as the mechanisms' settings. Errors name the full path of the offending key.
pub fn typed<T: serde::de::DeserializeOwned>(key: &str, value: toml::Value) -> ConfigResult<T> {
    serde_path_to_error::deserialize(value.clone()).map_err(|e| serde_error(e, &value)).map_err(|e| {
        let full = if e.key.is_empty() { key.to_string() } else { format!("{key}.{}", e.key) };
        ConfigError { key: full, ..e }
    })
}

/// How alike (normalized Damerau-Levenshtein) a name must be to a known one to be taken for a
/// slip of the keyboard: one edit in a name of four letters (`srpp`, `lod`) passes, two do not
/// (`hpcc` is not a misspelt `ibcc`).
const SLIP: f64 = 0.7;

/// The candidate closest to `given`, if close enough to be a slip of the keyboard.
pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::normalized_damerau_levenshtein(given, c), c))
        .filter(|(score, _)| *score >= SLIP)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// A typing error (unknown key, wrong type, unknown variant) in `root` with the path of the key,
/// and for a misspelt key or value the closest valid one.
fn serde_error(e: serde_path_to_error::Error<toml::de::Error>, root: &toml::Value) -> ConfigError {
    let path = e.path().to_string();
    let at = value_at(root, e.path());
    let message = in_config_words(e.inner().message().trim(), at).replace(", there are no fields", ": this kind takes no other keys");
    let key = match (path.as_str(), at.and_then(|v| buffered_field(v, &message))) {
        (".", _) => String::new(),
        (_, Some(field)) => format!("{path}{field}"),
        (_, None) => path,
    };
    let hint = did_you_mean(&message).map(|s| format!("did you mean `{s}`? ")).unwrap_or_default();
    ConfigError::new(key, format!("{message}; {hint}see docs/config.md for the keys and their types"))
}

/// serde's and toml's words for a wrong value, in the words of docs/config.md: Rust's type
/// names (`u32`, `f64`, `struct SimulationConfig`) as what a config holds (a whole number and
/// its range, a number, a table), and toml's words where a name or a table with a `kind` goes
/// (`unit variant, expected string only`, `expected variant identifier`, `expected internally
/// tagged enum TopologyConfig`), whose value `at` then names.
fn in_config_words(message: &str, at: Option<&toml::Value>) -> String {
    if let Some(name) = message.strip_prefix("data did not match any variant of untagged enum ") {
        let got = at.map(|v| format!("{}, ", unexpected(v))).unwrap_or_default();
        return format!("invalid value: {got}expected {}", either_of(name.trim()));
    }
    let Some((got, expected)) = wrong_and_expected(message) else {
        return message.to_string();
    };
    let wrong = if message.starts_with("invalid type: ") { "invalid type" } else { "invalid value" };
    let named = match expected {
        "string only" | "variant identifier" => Some("one of its names as a string (in quotes)"),
        e if e.starts_with("internally tagged enum ") => Some("a table whose `kind` is one of its names"),
        _ => None,
    };
    match (named, at) {
        (Some(named), Some(v)) if wrong == "invalid type" => format!("invalid type: {}, expected {named}", unexpected(v)),
        (Some(_), _) => message.to_string(),
        (None, _) => match config_type(expected) {
            Some(words) => format!("{wrong}: {got}, expected {words}"),
            None => message.to_string(),
        },
    }
}

/// What a key that takes one of two forms (serde's untagged enums) holds, in a config's words.
fn either_of(enum_name: &str) -> &'static str {
    match enum_name {
        "NodeRef" => "a host: its id (a whole number from 0) or its name (a string in quotes)",
        "Cct" => "a preset, `\"thesis\"`, `\"vendor\"` or `\"wide\"`, or a list of delays in ns",
        _ => "a value of another form (see docs/config.md)",
    }
}

/// What serde calls a type a config key holds, in a config's words; none for its other phrases.
fn config_type(expected: &str) -> Option<String> {
    let whole = |max: u64| format!("a whole number from 0 to {max}");
    Some(match expected {
        "u8" => whole(u8::MAX.into()),
        "u16" => whole(u16::MAX.into()),
        "u32" => whole(u32::MAX.into()),
        "u64" | "usize" => whole(u64::MAX),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a string" => "a string (in quotes)".into(),
        "a sequence" => "a list (in brackets)".into(),
        e if e.starts_with("struct ") => "a table of keys".into(),
        _ => return None,
    })
}

/// In serde's "invalid type: string "4", expected u32" (or "invalid value: ..."), what it got
/// and what it expected.
fn wrong_and_expected(message: &str) -> Option<(&str, &str)> {
    message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: "))?.split_once(", expected ")
}

/// The value at `path` of `root`, if the path leads to one.
fn value_at<'a>(root: &'a toml::Value, path: &serde_path_to_error::Path) -> Option<&'a toml::Value> {
    path.iter().try_fold(root, |at, segment| match segment {
        serde_path_to_error::Segment::Map { key } => at.get(key.as_str()),
        serde_path_to_error::Segment::Seq { index } => at.get(*index),
        _ => None,
    })
}

/// Where in `table` the wrong type, value or name that `message` quotes is (`.n`,
/// `.packets[1]`), where serde names only the table: a table whose `kind` picks its fields
/// (`topology`, `message`, `flow_control`: an internally tagged enum) is read through a buffer
/// that serde_path_to_error cannot follow. It is the one place in the table holding the value
/// as serde's own `Unexpected` writes it (`string "4"`, `floating point `2.5``); none if no
/// place or several do.
fn buffered_field(table: &toml::Value, message: &str) -> Option<String> {
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let field = rest.split('`').next()?;
        return table.get(field).map(|_| format!(".{field}"));
    }
    let quoted = match message.strip_prefix("unknown variant `") {
        Some(rest) => unexpected(&toml::Value::String(rest.split('`').next()?.to_string())).to_string(),
        None => wrong_and_expected(message)?.0.to_string(),
    };
    table.as_table()?;
    let mut found = Vec::new();
    holding(table, &quoted, String::new(), &mut found);
    let place = found.pop()?;
    found.is_empty().then_some(place)
}

/// Adds to `found` the places in `v` (their paths after `here`, `v`'s own) whose value `quoted`
/// describes.
fn holding(v: &toml::Value, quoted: &str, here: String, found: &mut Vec<String>) {
    match v {
        toml::Value::Table(t) => t.iter().for_each(|(k, x)| holding(x, quoted, format!("{here}.{k}"), found)),
        toml::Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| holding(x, quoted, format!("{here}[{i}]"), found)),
        _ => {}
    }
    if !here.is_empty() && unexpected(v).to_string() == quoted {
        found.push(here);
    }
}

/// `v` as serde describes a value it did not expect.
fn unexpected(v: &toml::Value) -> serde::de::Unexpected<'_> {
    use serde::de::Unexpected;
    match v {
        toml::Value::String(s) => Unexpected::Str(s),
        toml::Value::Integer(i) => Unexpected::Signed(*i),
        toml::Value::Float(f) => Unexpected::Float(*f),
        toml::Value::Boolean(b) => Unexpected::Bool(*b),
        toml::Value::Array(_) => Unexpected::Seq,
        toml::Value::Table(_) => Unexpected::Map,
        toml::Value::Datetime(_) => Unexpected::Other("datetime"),
    }
}

/// In serde's "unknown field `lod`, expected one of `name`, `load`, ..." (or "unknown variant"),
/// the expected name closest to the unknown one, if it is close enough to be a slip.
fn did_you_mean(message: &str) -> Option<&str> {
    if !(message.starts_with("unknown field") || message.starts_with("unknown variant")) {
        return None;
    }
    let mut quoted = message.split('`').skip(1).step_by(2);
    let given = quoted.next()?;
    closest(given, quoted)
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
