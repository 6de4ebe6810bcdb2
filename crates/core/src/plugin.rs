//! What the kinds of plug-in share (congestion-control mechanisms, `cc::registry`; input-queue
//! organizations, `switch::queues`): a config section names the selected plug-in (`cc.mechanism`,
//! `switch.input_queues`) and each plug-in owns a settings table named after it (`[cc.srp]`,
//! `[switch.bypass]`). The config layer keeps those tables untyped; the plug-in types and checks
//! its own when the network is built, and a table for a plug-in that is not selected is refused,
//! because its settings would silently do nothing.

use crate::config;
use crate::error::{ConfigError, ConfigResult};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A plug-in's settings: a serde struct that refuses unknown keys, whose `Default` is the
/// papers' values (each field's doc comment names its source).
pub trait Settings: Default + Serialize + DeserializeOwned {
    /// Range and cross-field checks; errors name the full key (`cc.srp.n_min`).
    fn validate(&self) -> ConfigResult<()>;
}

/// For plug-ins without settings: their table may be given, empty.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoSettings {}

impl Settings for NoSettings {
    fn validate(&self) -> ConfigResult<()> {
        Ok(())
    }
}

/// One kind of plug-in: where it is selected and which names it has.
pub struct Kind {
    /// The config section, `cc` or `switch`.
    pub section: &'static str,
    /// The key in it that selects the plug-in, `mechanism` or `input_queues`.
    pub selector: &'static str,
    /// What a plug-in of this kind is called in messages, "mechanism".
    pub what: &'static str,
    /// The registered names.
    pub names: &'static [&'static str],
    /// The section's own keys, for guesses at a misspelt one.
    pub keys: &'static [&'static str],
    /// Keys of the section that moved into a plug-in's table: (old key, new full key).
    pub moved: &'static [(&'static str, &'static str)],
}

impl Kind {
    /// The settings of plug-in `selected` from `tables` (the section's keys that are not its own),
    /// checked. Tables of other plug-ins and unknown keys are refused.
    pub fn settings<S: Settings>(&self, selected: &str, tables: &toml::Table) -> ConfigResult<S> {
        if let Some((key, value)) = tables.iter().find(|(k, _)| *k != selected) {
            return Err(self.foreign(selected, key, value));
        }
        let empty = toml::Value::Table(toml::Table::new());
        let settings: S = config::typed(&format!("{}.{selected}", self.section), tables.get(selected).cloned().unwrap_or(empty))?;
        settings.validate()?;
        Ok(settings)
    }

    /// `settings` as the section's table for plug-in `selected`, every default written out
    /// (nothing for a plug-in without settings): what a run's `config.toml` records.
    pub fn resolved<S: Settings>(&self, selected: &str, settings: &S) -> toml::Table {
        let table = toml::Table::try_from(settings).expect("settings serialize to a table");
        if table.is_empty() {
            toml::Table::new()
        } else {
            toml::Table::from_iter([(selected.to_string(), toml::Value::Table(table))])
        }
    }

    /// The error for a selector that names no registered plug-in.
    pub fn unknown(&self, name: &str) -> ConfigError {
        let hint = config::closest(name, self.names.iter().copied()).map(|c| format!("did you mean `{c}`? ")).unwrap_or_default();
        ConfigError::new(
            format!("{}.{}", self.section, self.selector),
            format!("unknown {} `{name}`, expected one of {}; {hint}`lossless list` describes them", self.what, self.names.join(", ")),
        )
    }

    fn foreign(&self, selected: &str, key: &str, value: &toml::Value) -> ConfigError {
        let section = self.section;
        if let Some((_, new)) = self.moved.iter().find(|(old, _)| *old == key) {
            return ConfigError::new(
                format!("{section}.{key}"),
                format!("has moved: it is now `{new}`, the setting of the plug-in it belongs to (docs/config.md)"),
            );
        }
        if !self.names.contains(&key) {
            let hint = config::closest(key, self.names.iter().chain(self.keys).copied()).map(|c| format!("did you mean `{c}`? ")).unwrap_or_default();
            let tables: Vec<String> = self.names.iter().map(|n| format!("[{section}.{n}]")).collect();
            let keys: Vec<String> = self.keys.iter().map(|k| format!("`{k}`")).collect();
            return ConfigError::new(
                format!("{section}.{key}"),
                format!(
                    "unknown key: [{section}] takes {} and the selected {}'s table ({}); {hint}see docs/config.md",
                    keys.join(", "),
                    self.what,
                    tables.join(", ")
                ),
            );
        }
        let first = value.as_table().and_then(|t| t.keys().next()).map(|k| format!("{section}.{key}.{k}")).unwrap_or(format!("{section}.{key}"));
        let selector = format!("{section}.{}", self.selector);
        ConfigError::new(
            first,
            format!(
                "sets `{key}`'s settings, but {selector} is \"{selected}\", which would ignore them: remove them, or select it with {selector} = \"{key}\""
            ),
        )
    }
}

/// What a registry says of one plug-in, for `lossless list` and the generated docs.
pub struct Entry {
    pub name: &'static str,
    pub about: &'static str,
    pub doc: &'static str,
    /// Its settings table with every default written out.
    pub defaults: toml::Table,
}

impl Entry {
    pub fn new<S: Settings>(name: &'static str, about: &'static str, doc: &'static str) -> Entry {
        Entry { name, about, doc, defaults: toml::Table::try_from(S::default()).expect("settings serialize to a table") }
    }
}

/// In a registry's generator: the registered names (`NAMES`) and their entries (`entries()`),
/// from the list of `module::Type`; `Registered` is the registry's own trait (with `ABOUT`,
/// `DOC` and `Settings`), in scope where this is invoked.
#[doc(hidden)]
#[macro_export]
macro_rules! __plugin_entries {
    ($($module:ident :: $ty:ident,)*) => {
        /// The names the selector accepts, in the registry's order.
        pub const NAMES: &[&str] = &[$(stringify!($module)),*];

        /// Every plug-in of the registry, in its order.
        pub fn entries() -> Vec<$crate::plugin::Entry> {
            vec![$($crate::plugin::Entry::new::<<$ty as Registered>::Settings>(stringify!($module), <$ty as Registered>::ABOUT, <$ty as Registered>::DOC)),*]
        }
    };
}
