//! Input-queue organizations: how an input buffer of a data VC orders its packets and which of
//! them compete for the crossbar (`switch.input_queues`). Control and low-priority VCs are
//! always FIFOs (SRP paper §4).
//!
//! An organization is a file here and one line in [`organizations!`](crate::organizations):
//! its per-buffer state implements [`Queueing`], and [`Registered`] describes it and builds it
//! from its settings table `[switch.NAME]`. Dispatch is a `match` over [`Queues`], generated
//! from the list: no `dyn` on the hot path.

use super::Pooling;

pub mod isolation;
use crate::config::SwitchConfig;
use crate::error::ConfigResult;
use crate::ids::{NodeId, PacketId, PortId};
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
            voqnet::VoqNet,
            fbicm::Fbicm,
            hfdi::Hfdi,
        }
    };
}

/// What a packet leaving a buffer changes: the packets the buffer now newly offers an output
/// (at most two: the next for the same output, and under `voqnet` the new head of the leaving
/// packet's destination queue, bound elsewhere), and whether only `fifo_head` may leave the
/// buffer now (a bypass FIFO at its limit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Popped {
    pub next: [Option<PacketId>; 2],
    pub pinned: bool,
}

impl Popped {
    /// The buffer offers `next` (if anything) to its output, and nothing else changed.
    pub fn one(next: Option<PacketId>) -> Popped {
        Popped { next: [next, None], pinned: false }
    }
}

/// The packets of one input buffer (port, VC), in the organization's order. Byte counts are
/// the buffer's (`InputVc`); an organization keeps packet ids (and where it needs them, their
/// outputs) only.
pub trait Queueing {
    /// Queues `pkt` (`bytes` long) for host `dst`, routed to output `out`; true if it is now
    /// what the buffer offers `out` (it requests the output).
    fn push(&mut self, pkt: PacketId, out: PortId, dst: NodeId, bytes: u32) -> bool;
    /// Takes `pkt`, which the buffer offered `out` (`head` or `offer`) and the crossbar granted
    /// (or the mechanism dropped).
    fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped;
    /// What the buffer offers output `out` first, if anything.
    fn head(&self, out: PortId) -> Option<PacketId>;
    /// The first packet the buffer offers `out` that `fits` accepts, in the buffer's order:
    /// its head for `out` alone, except where packets wait per destination (`voqnet`), whose
    /// queues for `out` take turns and each of whose heads may go if its own buffer downstream
    /// has room.
    fn offer(&self, out: PortId, fits: &mut dyn FnMut(PacketId) -> bool) -> Option<PacketId> {
        self.head(out).filter(|&p| fits(p))
    }
    /// The oldest packet, where it has precedence over the others (a bypass FIFO's head).
    fn fifo_head(&self) -> Option<PacketId> {
        None
    }
    /// Asks memory for what `push` and `head` for `out` will read first, ahead of a packet's
    /// arrival (`sim::prefetch`); a hint that changes nothing.
    fn prefetch(&self, _out: PortId) {}
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
    /// Whether it isolates congested flows and sends lines upstream (`Isolating`): what a NIC's
    /// hot-packet queues (`nic.hot_queues`) follow.
    const ISOLATES: bool = false;
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

            pub fn isolates(&self) -> bool {
                match self {
                    $(Spec::$ty(_) => <$ty>::ISOLATES,)*
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
            fn push(&mut self, pkt: PacketId, out: PortId, dst: NodeId, bytes: u32) -> bool {
                match self { $(Queues::$ty(q) => q.push(pkt, out, dst, bytes),)* }
            }
            #[inline]
            fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped {
                match self { $(Queues::$ty(q) => q.pop(pkt, out),)* }
            }
            #[inline]
            fn head(&self, out: PortId) -> Option<PacketId> {
                match self { $(Queues::$ty(q) => q.head(out),)* }
            }
            #[inline]
            fn offer(&self, out: PortId, fits: &mut dyn FnMut(PacketId) -> bool) -> Option<PacketId> {
                match self { $(Queues::$ty(q) => q.offer(out, fits),)* }
            }
            #[inline]
            fn fifo_head(&self) -> Option<PacketId> {
                match self { $(Queues::$ty(q) => q.fifo_head(),)* }
            }
            #[inline]
            fn prefetch(&self, out: PortId) {
                match self { $(Queues::$ty(q) => q.prefetch(out),)* }
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

/// The most one buffer's `Queues` may take. Every input buffer of every switch holds one, as
/// large as the largest organization: a 65,536-host tree has over half a million, and when
/// FBICM and HFDI kept their state inline (216 bytes) an input VC spread its counters over four
/// cache lines. An organization with more state boxes it.
pub const QUEUES_BYTES: usize = 64;
const _: () = assert!(std::mem::size_of::<Queues>() <= QUEUES_BYTES, "an organization's state outgrew QUEUES_BYTES: box it");

impl Queues {
    /// The buffer's congested-flow isolation, if its organization has one.
    pub fn isolating(&mut self) -> Option<&mut dyn isolation::Isolating> {
        match self {
            Queues::Fbicm(f) => Some(f),
            Queues::Hfdi(h) => Some(h),
            _ => None,
        }
    }

    /// The same, to read.
    pub fn isolation(&self) -> Option<&dyn isolation::Isolating> {
        match self {
            Queues::Fbicm(f) => Some(f),
            Queues::Hfdi(h) => Some(h),
            _ => None,
        }
    }
}

impl Spec {
    /// Control and low-priority VCs: one FIFO (SRP paper §4).
    pub fn fifo() -> Spec {
        Spec::Fifo(NoSettings {})
    }

    /// How an input buffer of this organization is divided into buffers of their own, each with
    /// credits upstream: per output port where `[switch.voq] per_output_buffers` says so (inputs
    /// fed by a switch, which routes one hop ahead to know the port), per destination under
    /// `voqnet`, else shared.
    pub fn pooling(&self, fed_by_switch: bool) -> Pooling {
        match self {
            Spec::Voq(s) if s.per_output_buffers && fed_by_switch => Pooling::PerOutput,
            Spec::VoqNet(_) => Pooling::PerDestination,
            _ => Pooling::Shared,
        }
    }

    /// Whether some input buffers of this organization are divided (see `pooling`).
    pub fn divided(&self) -> bool {
        self.pooling(true) != Pooling::Shared
    }

    /// How many buffers of their own an input divided by `pooling` has, on a switch with
    /// `ports` ports in a network of `hosts` hosts, and each one's size (`in_cap`, from
    /// `input_buffer_*`, unless the organization sizes them).
    pub fn buffers(&self, pooling: Pooling, ports: usize, hosts: usize, in_cap: u32) -> (usize, u32) {
        match (pooling, self) {
            (Pooling::Shared, _) => (0, in_cap),
            (Pooling::PerOutput, _) => (ports, in_cap),
            (Pooling::PerDestination, Spec::VoqNet(s)) => (hosts, s.queue_bytes),
            (Pooling::PerDestination, _) => (hosts, in_cap),
        }
    }
}
