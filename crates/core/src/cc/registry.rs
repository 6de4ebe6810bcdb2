//! The mechanisms `cc.mechanism` can name: [`mechanisms!`](crate::mechanisms) lists them, one
//! line each, and everything else (the module declarations, the names `lossless list` shows,
//! the dispatch of `with_mechanism!`, the documentation of `[cc.NAME]`) is generated from that
//! list. Adding a mechanism is its file under `cc/` and one line there (docs/architecture.md,
//! "Adding a mechanism").

use super::Mechanism;
use crate::config::{self, Config};
use crate::error::{ConfigError, ConfigResult};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The registry: `module::Type` of every mechanism; the module's name is the value of
/// `cc.mechanism` that selects it and the name of its settings table `[cc.NAME]`. Invokes
/// `$callback!` with the list (the generators below are its callbacks).
#[doc(hidden)]
#[macro_export]
macro_rules! mechanisms {
    ($callback:ident ! $args:tt) => {
        $crate::$callback! { $args
            none::NoCc,
            ecn::EcnIpd,
            srp::Srp,
            ibcc::IbCc,
            santos::Santos,
        }
    };
}

/// A mechanism `cc.mechanism` can name: how it is described and built.
pub trait Registered: Mechanism + Sized {
    /// One sentence for `lossless list`: what it is, after which paper.
    const ABOUT: &'static str;
    /// Markdown for docs/config.md after the `[cc.NAME]` heading: the source, a table of the
    /// settings (key, default, meaning) and the choices the papers leave open. A test checks
    /// that the table lists every key with its default.
    const DOC: &'static str;
    /// The contents of `[cc.NAME]`.
    type Settings: Settings;
    fn new(cfg: &Config, settings: Self::Settings) -> Self;
}

/// A mechanism's settings: a serde struct that refuses unknown keys, whose `Default` is the
/// papers' values (each field's doc comment names its source).
pub trait Settings: Default + Serialize + DeserializeOwned {
    /// Range and cross-field checks; errors name the full key (`cc.srp.n_min`).
    fn validate(&self) -> ConfigResult<()>;
}

/// For mechanisms without settings: `[cc.NAME]` may be given, empty.
#[derive(Default, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoSettings {}

impl Settings for NoSettings {
    fn validate(&self) -> ConfigResult<()> {
        Ok(())
    }
}

/// Builds mechanism `M` (named `cfg.cc.mechanism`) from its `[cc.NAME]` table. Settings given
/// for another mechanism are refused: they would silently do nothing.
pub fn build<M: Registered>(cfg: &Config) -> ConfigResult<M> {
    let name = cfg.cc.mechanism.as_str();
    for (key, value) in &cfg.cc.settings {
        if key != name {
            return Err(foreign_settings(name, key, value));
        }
    }
    let settings: M::Settings = config::typed(&format!("cc.{name}"), cfg.cc.settings.get(name).cloned().unwrap_or(toml::Value::Table(toml::Table::new())))?;
    settings.validate()?;
    Ok(M::new(cfg, settings))
}

/// `[cc.NAME]` of the mechanism `m` built from `cfg`, with every default written out (none
/// for a mechanism without settings): what a run's `config.toml` records.
pub fn resolved_settings<M: Registered>(_m: &M, cfg: &Config) -> ConfigResult<toml::Table> {
    let name = cfg.cc.mechanism.as_str();
    let settings: M::Settings = config::typed(&format!("cc.{name}"), cfg.cc.settings.get(name).cloned().unwrap_or(toml::Value::Table(toml::Table::new())))?;
    let table = toml::Table::try_from(settings).expect("settings serialize to a table");
    Ok(if table.is_empty() { toml::Table::new() } else { toml::Table::from_iter([(name.to_string(), toml::Value::Table(table))]) })
}

fn foreign_settings(selected: &str, key: &str, value: &toml::Value) -> ConfigError {
    if !NAMES.contains(&key) {
        let hint = config::closest(key, NAMES.iter().copied().chain(["mechanism", "vcs"])).map(|c| format!("did you mean `{c}`? ")).unwrap_or_default();
        return ConfigError::new(
            format!("cc.{key}"),
            format!("unknown key: [cc] takes `mechanism`, `vcs` and the selected mechanism's table ({}); {hint}see docs/config.md", tables()),
        );
    }
    let first = value.as_table().and_then(|t| t.keys().next()).map(|k| format!("cc.{key}.{k}")).unwrap_or(format!("cc.{key}"));
    ConfigError::new(
        first,
        format!("sets `{key}`'s settings, but cc.mechanism is \"{selected}\", which would ignore them: remove them, or select the mechanism with cc.mechanism = \"{key}\""),
    )
}

/// The error for a `cc.mechanism` that names no registered mechanism.
pub fn unknown(name: &str) -> ConfigError {
    let hint = config::closest(name, NAMES.iter().copied()).map(|c| format!("did you mean `{c}`? ")).unwrap_or_default();
    ConfigError::new("cc.mechanism", format!("unknown mechanism `{name}`, expected one of {}; {hint}`lossless list` describes them", NAMES.join(", ")))
}

fn tables() -> String {
    NAMES.iter().map(|n| format!("[cc.{n}]")).collect::<Vec<_>>().join(", ")
}

/// What the registry says of one mechanism.
pub struct Entry {
    pub name: &'static str,
    pub about: &'static str,
    pub doc: &'static str,
    /// `[cc.NAME]` with every default written out.
    pub defaults: toml::Table,
}

fn entry<M: Registered>(name: &'static str) -> Entry {
    let defaults = toml::Table::try_from(M::Settings::default()).expect("settings serialize to a table");
    Entry { name, about: M::ABOUT, doc: M::DOC, defaults }
}

#[doc(hidden)]
#[macro_export]
macro_rules! __mechanism_entries {
    (() $($module:ident :: $ty:ident,)*) => {
        /// Every mechanism, in the registry's order.
        pub fn entries() -> Vec<Entry> {
            vec![$(entry::<$crate::cc::$module::$ty>(stringify!($module))),*]
        }
        /// The values `cc.mechanism` accepts.
        pub const NAMES: &[&str] = &[$(stringify!($module)),*];
    };
}
crate::mechanisms!(__mechanism_entries!());

/// Evaluates `$body` with `$m` bound to the mechanism `cc.mechanism` names, built from its
/// settings: `Ok(body)`, or the error of an unknown name or bad settings. Static dispatch: one
/// arm per registered mechanism, each monomorphizing `$body`.
#[macro_export]
macro_rules! with_mechanism {
    ($cfg:expr, $m:ident => $body:expr) => {
        $crate::mechanisms!(__with_mechanism!($cfg, $m, $body))
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __with_mechanism {
    (($cfg:expr, $m:ident, $body:expr) $($module:ident :: $ty:ident,)*) => {
        match $cfg.cc.mechanism.as_str() {
            $(stringify!($module) => match $crate::cc::registry::build::<$crate::cc::$module::$ty>($cfg) {
                Ok($m) => Ok($body),
                Err(e) => Err(e),
            },)*
            other => Err($crate::cc::registry::unknown(other)),
        }
    };
}
