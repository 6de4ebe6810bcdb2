//! The mechanisms `cc.mechanism` can name: [`mechanisms!`](crate::mechanisms) lists them, one
//! line each, and everything else (the module declarations, the names `lossless list` shows,
//! the dispatch of `with_mechanism!`, the documentation of `[cc.NAME]`) is generated from that
//! list. Adding a mechanism is its file under `cc/` and one line there (docs/architecture.md,
//! "Adding a mechanism").

use super::Mechanism;
use crate::config::Config;
use crate::error::ConfigResult;
use crate::plugin::Kind;
pub use crate::plugin::{NoSettings, Settings};

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
            ideal::Ideal,
            cbcm::Cbcm,
            accurate::Accurate,
            tcp::Tcp,
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
    /// Refuses settings that contradict the rest of `cfg` (a field alone is checked by
    /// `Settings::validate`).
    fn check(_cfg: &Config, _settings: &Self::Settings) -> ConfigResult<()> {
        Ok(())
    }
    fn new(cfg: &Config, settings: Self::Settings) -> Self;
}

/// Mechanisms as a kind of plug-in: selected by `cc.mechanism`, settings in `[cc.NAME]`.
pub const KIND: Kind = Kind { section: "cc", selector: "mechanism", what: "mechanism", names: NAMES, keys: &["mechanism", "vcs"], moved: &[] };

/// Builds mechanism `M` (named `cfg.cc.mechanism`) from its `[cc.NAME]` table.
pub fn build<M: Registered>(cfg: &Config) -> ConfigResult<M> {
    let settings = KIND.settings(&cfg.cc.mechanism, &cfg.cc.settings)?;
    M::check(cfg, &settings)?;
    Ok(M::new(cfg, settings))
}

/// `[cc.NAME]` of the mechanism `m` built from `cfg`, every default written out.
pub fn resolved_settings<M: Registered>(_m: &M, cfg: &Config) -> ConfigResult<toml::Table> {
    let settings: M::Settings = KIND.settings(&cfg.cc.mechanism, &cfg.cc.settings)?;
    Ok(KIND.resolved(&cfg.cc.mechanism, &settings))
}

#[doc(hidden)]
#[macro_export]
macro_rules! __mechanism_entries {
    (() $($module:ident :: $ty:ident,)*) => {
        use $crate::cc::{$($ty),*};
        $crate::__plugin_entries!($($module::$ty,)*);
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
            other => Err($crate::cc::registry::KIND.unknown(other)),
        }
    };
}
