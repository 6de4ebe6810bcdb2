//! Input-queue organizations: how an input buffer of a data VC orders its packets and which of
//! them compete for the crossbar (`switch.input_queues`). Control and low-priority VCs are
//! always FIFOs (SRP paper §4).
//!
//! An organization is a file here and one line in [`organizations!`](crate::organizations):
//! its per-buffer state implements [`Queueing`], and [`Registered`] describes it and builds it
//! from its settings table `[switch.NAME]`. Dispatch is a `match` over [`Queues`], generated
//! from the list: no `dyn` on the hot path.

use crate::config::SwitchConfig;
use crate::error::ConfigResult;
use crate::ids::{PacketId, PortId};
use crate::plugin::{Kind, NoSettings, Settings};

/// The registry: `module::Type` of every organization; the module's name is the value of
/// `switch.input_queues` and of its settings table `[switch.NAME]`. Invokes `$callback!` with the
/// list (the generators below are its callbacks).
#[doc(hidden)]
#[macro_export]
macro_rules! organizations {
    ($callback:ident ! $args:tt) => {
        $crate::$callback! { $args
            voq::Voq,
            fifo::Fifo,
            bypass::Bypass,
        }
    };
}

/// The packets of one input buffer (port, VC), in the organization's order. Byte counts are
/// the buffer's (`InputVc`); an organization keeps packet ids only.
pub trait Queueing {
    /// Queues `pkt`, routed to output `out`; true if it is now what the buffer offers `out`
    /// (it requests the output).
    fn push(&mut self, pkt: PacketId, out: PortId) -> bool;
    /// Takes `pkt`, which the buffer offered `out` and the crossbar granted (or the mechanism
    /// dropped). Returns what the buffer offers `out` next, and whether only `fifo_head` may
    /// leave the buffer now (a bypass FIFO at its limit).
    fn pop(&mut self, pkt: PacketId, out: PortId) -> (Option<PacketId>, bool);
    /// What the buffer offers output `out`, if anything.
    fn head(&self, out: PortId) -> Option<PacketId>;
    /// The oldest packet, where it has precedence over the others (a bypass FIFO's head).
    fn fifo_head(&self) -> Option<PacketId> {
        None
    }
    /// Every queued packet.
    fn for_each(&self, f: impl FnMut(PacketId));
    /// The organization's own invariants, given each packet's output and whether the switch
    /// has the buffer pinned (only `fifo_head` may go).
    fn check(&self, _out_of: &dyn Fn(PacketId) -> PortId, pinned: bool) -> Result<(), String> {
        match pinned {
            true => Err("pinned, but the organization never pins".into()),
            false => Ok(()),
        }
    }
}

/// An organization `switch.input_queues` can name.
pub trait Registered: Queueing + Sized {
    /// One sentence for `lossless list`.
    const ABOUT: &'static str;
    /// Markdown for docs/config.md (a settings table if it has settings, checked by a test).
    const DOC: &'static str;
    /// Whether packets wait per output port (virtual output queues): `OutputView`'s per-VoQ
    /// detail reads them.
    const PER_OUTPUT: bool;
    /// The contents of `[switch.NAME]`.
    type Settings: Settings + Clone + std::fmt::Debug;
    /// A buffer's state, on a switch with `ports` ports.
    fn new(settings: &Self::Settings, ports: usize) -> Self;
}

/// Organizations as a kind of plug-in: selected by `switch.input_queues`, settings in
/// `[switch.NAME]`.
pub const KIND: Kind = Kind {
    section: "switch",
    selector: "input_queues",
    what: "input-queue organization",
    names: NAMES,
    keys: &[
        "router_latency_ns",
        "speedup",
        "read_ports",
        "input_buffer_packets",
        "input_buffer_bytes",
        "output_buffer_packets",
        "output_buffer_bytes",
        "input_queues",
        "arbitration",
    ],
    moved: &[("bypass_limit", "switch.bypass.limit")],
};

#[doc(hidden)]
#[macro_export]
macro_rules! __organizations {
    (() $($module:ident :: $ty:ident,)*) => {
        $(pub mod $module; pub use $module::$ty;)*

        $crate::__plugin_entries!($($module::$ty,)*);

        /// An organization with its settings: what a VC's buffers are built from.
        #[derive(Clone, Debug)]
        pub enum Spec {
            $($ty(<$ty as Registered>::Settings),)*
        }

        impl Spec {
            /// The organization `switch.input_queues` names, with its checked settings.
            pub fn of_data_vcs(cfg: &SwitchConfig) -> ConfigResult<Spec> {
                match cfg.input_queues.as_str() {
                    $(stringify!($module) => Ok(Spec::$ty(KIND.settings(&cfg.input_queues, &cfg.settings)?)),)*
                    other => Err(KIND.unknown(other)),
                }
            }

            /// `[switch.NAME]` with every default written out.
            pub fn resolved(&self) -> toml::Table {
                match self {
                    $(Spec::$ty(s) => KIND.resolved(stringify!($module), s),)*
                }
            }

            pub fn per_output(&self) -> bool {
                match self {
                    $(Spec::$ty(_) => <$ty>::PER_OUTPUT,)*
                }
            }

            /// A buffer's state on a switch with `ports` ports.
            pub fn build(&self, ports: usize) -> Queues {
                match self {
                    $(Spec::$ty(s) => Queues::$ty(<$ty>::new(s, ports)),)*
                }
            }
        }

        /// The state of one input buffer, whichever its organization.
        pub enum Queues {
            $($ty($ty),)*
        }

        impl Queueing for Queues {
            #[inline]
            fn push(&mut self, pkt: PacketId, out: PortId) -> bool {
                match self { $(Queues::$ty(q) => q.push(pkt, out),)* }
            }
            #[inline]
            fn pop(&mut self, pkt: PacketId, out: PortId) -> (Option<PacketId>, bool) {
                match self { $(Queues::$ty(q) => q.pop(pkt, out),)* }
            }
            #[inline]
            fn head(&self, out: PortId) -> Option<PacketId> {
                match self { $(Queues::$ty(q) => q.head(out),)* }
            }
            #[inline]
            fn fifo_head(&self) -> Option<PacketId> {
                match self { $(Queues::$ty(q) => q.fifo_head(),)* }
            }
            fn for_each(&self, f: impl FnMut(PacketId)) {
                match self { $(Queues::$ty(q) => q.for_each(f),)* }
            }
            fn check(&self, out_of: &dyn Fn(PacketId) -> PortId, pinned: bool) -> Result<(), String> {
                match self { $(Queues::$ty(q) => q.check(out_of, pinned),)* }
            }
        }
    };
}
crate::organizations!(__organizations!());

impl Spec {
    /// Control and low-priority VCs: one FIFO (SRP paper §4).
    pub fn fifo() -> Spec {
        Spec::Fifo(NoSettings {})
    }

    /// Whether each virtual output queue of an input fed by a switch has a buffer of its own
    /// (`[switch.voq] per_output_buffers`).
    pub fn per_output_buffers(&self) -> bool {
        matches!(self, Spec::Voq(s) if s.per_output_buffers)
    }
}
