//! lossless: a discrete-event simulator of congestion management in lossless interconnection
//! networks (credit-based link-level flow control, virtual cut-through).
//!
//! Data flows one way (docs/architecture.md): [`config`] -> [`topology`] + [`routing`] -> the network
//! ([`switch`], [`nic`], [`cc`] plug-ins, [`traffic`] sources) -> the event loop in [`sim`] ->
//! [`stats`] -> a [`stats::Summary`].

pub mod catalog;
pub mod cc;
pub mod config;
pub mod engine;
pub mod error;
pub mod event;
mod hint;
pub mod ids;
pub mod layout;
pub mod nic;
pub mod node_map;
pub mod packet;
pub mod plugin;
pub mod rng;
pub mod routing;
pub mod sim;
pub mod stats;
pub mod switch;
pub mod time;
pub mod topology;
pub mod traffic;

/// The version of lossless, and the git commit it was built from ("-dirty" with uncommitted
/// changes, "unknown" outside a checkout): provenance for every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const COMMIT: &str = env!("LOSSLESS_COMMIT");
/// `VERSION (commit COMMIT)`, as `lossless --version` prints it.
pub const VERSION_LINE: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("LOSSLESS_COMMIT"), ")");

pub use config::Config;
pub use error::{ConfigError, ConfigResult, RunError};
pub use sim::{check, memory_estimate, resolved_config, run, Progress, Sim};
pub use stats::Deadlock;
pub use stats::{FlowRow, Summary};
