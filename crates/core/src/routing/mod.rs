//! Routing algorithms: given a switch and a packet's destination, the output port
//! (`routing.algorithm`).
//!
//! A routing may take a packet through phases (Valiant's two legs, UGAL's choice between them):
//! each phase has its own set of VCs, one per mechanism VC, and a packet's phase only grows, so
//! channel dependencies lead from one set to a later one and never back (Dally and Aoki's
//! structured buffer pool, IEEE TPDS 1993). The network then has [`Registered::phases`] times
//! the mechanism's VCs; the packet carries its phase in its [`Leg`].
//!
//! An algorithm is a file here and one line in [`routings!`](crate::routings): it implements
//! [`Route`], and [`Registered`] describes it and builds it for a topology from its settings
//! table `[routing.NAME]`. Dispatch is a `match` over [`Routing`], generated from the list: no
//! `dyn` on the hot path. Trees (`updown`, shared by `nca` and `dmodk`), flattened butterflies
//! (`grid`) and dragonflies (`groups`) route arithmetically (`direct` gives `minimal`, `valiant`
//! and `ugal` either); explicit topologies use dense tables (`switch * hosts +
//! dest`), meant for the small networks of the papers, whose routes are checked for
//! channel-dependency cycles when built (`cycles`); the arithmetic routings are acyclic by
//! construction, which their tests check.

pub(crate) mod cycles;
mod direct;
mod grid;
mod groups;
mod updown;

use crate::config::{RoutingConfig, TopologyConfig};
use crate::error::ConfigResult;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::plugin::{Kind, Settings};
use crate::rng::Stream;
use crate::topology::Topology;

/// The registry: `module::Type` of every algorithm; the module's name is the value of
/// `routing.algorithm` and of its settings table `[routing.NAME]`. Invokes `$callback!` with the
/// list (the generators below are its callbacks).
#[doc(hidden)]
#[macro_export]
macro_rules! routings {
    ($callback:ident ! $args:tt) => {
        $crate::$callback! { $args
            nca::Nca,
            dmodk::Dmodk,
            ecmp::Ecmp,
            minimal::Minimal,
            shortest_path::ShortestPath,
            valiant::Valiant,
            ugal::Ugal,
        }
    };
}

pub(crate) const NO_PORT: PortId = PortId::MAX;

/// Where a packet is on a route with phases, carried in its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leg {
    /// The phase whose VCs the packet takes on its next channel.
    pub phase: u8,
    /// The router a non-minimal route detours through ([`Leg::START`]'s until a switch chose).
    pub via: SwitchId,
    /// The packet must take a minimal route (a mechanism's choice at injection: CBCM's
    /// throttled hot-spot traffic, §IV-B3); routings without detours ignore it.
    pub minimal: bool,
}

impl Leg {
    /// A packet no switch has routed yet.
    pub const START: Leg = Leg { phase: 0, via: SwitchId::MAX, minimal: false };
    /// A packet no switch has routed yet that may not detour.
    pub const MINIMAL: Leg = Leg { minimal: true, ..Leg::START };

    /// No switch has routed the packet yet.
    pub fn is_start(self) -> bool {
        self.phase == 0 && self.via == SwitchId::MAX
    }
}

/// The flow a packet belongs to, for routings that keep a flow on one path (ECMP): its source,
/// and which of that source's flows to the packet's destination (`Packet::flow`: 0, or the
/// message's own with `nic.send_queues = "per_flow"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flow {
    pub src: NodeId,
    pub id: u32,
}

/// What adaptive routing reads of a switch's outputs: each port's queue length in bytes (the
/// switch's `Output`s give it). Routing reads nothing else of the switch.
pub trait PortLoads {
    fn load_bytes(&self, port: PortId) -> u32;
}

/// The loads of a switch whose state is not at hand (routes traced by the static checks): every
/// port idle.
pub struct Idle;

impl PortLoads for Idle {
    fn load_bytes(&self, _: PortId) -> u32 {
        0
    }
}

/// A routing function.
pub trait Route {
    /// The output port at switch `sw` for a packet of `flow` to `dst`; a routing with phases
    /// advances the packet's `leg`. `outputs` gives the switch's port loads (what adaptive
    /// routing reads) and `rng` its own stream.
    fn route<L: PortLoads + ?Sized>(&self, sw: SwitchId, dst: NodeId, flow: Flow, leg: &mut Leg, outputs: &L, rng: &mut Stream) -> PortId;

    /// Asks memory for what `route` reads at switch `sw`, before a packet arrives there
    /// (`sim::prefetch`; a hint, which changes nothing): its tables, and `rng` if it draws.
    fn prefetch(&self, _sw: SwitchId, _rng: &Stream) {}

    /// The port `route` would give a packet of `flow` to `dst` at switch `sw` now, drawing from a
    /// copy of `rng`, so that `sim::prefetch` can ask for that output before the packet arrives
    /// (a guess: the stream may have moved on by then). None where the route reads outputs or a
    /// packet's phase.
    fn predict(&self, _sw: SwitchId, _dst: NodeId, _flow: Flow, _rng: &Stream) -> Option<PortId> {
        None
    }
}

/// An algorithm `routing.algorithm` can name.
pub trait Registered: Route + Sized {
    /// One sentence for `lossless list`.
    const ABOUT: &'static str;
    /// Markdown for docs/config.md (a settings table if it has settings, checked by a test).
    const DOC: &'static str;
    /// The contents of `[routing.NAME]`.
    type Settings: Settings;
    /// Whether `route` reads its `outputs` (adaptive routing): their links then free by event
    /// (`sim::lazy_link`).
    const READS_OUTPUTS: bool = false;
    /// How many VC sets the routing needs to be deadlock-free on `topology` (see the module doc).
    fn phases(_topology: &TopologyConfig) -> u8 {
        1
    }
    /// The algorithm's tables for `topo`, or why it cannot route it.
    fn build(settings: Self::Settings, cfg: &RoutingConfig, topo: &Topology) -> ConfigResult<Self>;
}

/// The value of `routing.algorithm` that picks by topology.
pub const AUTO: &str = "auto";

/// Algorithms as a kind of plug-in: selected by `routing.algorithm`, settings in
/// `[routing.NAME]`.
pub const KIND: Kind = Kind {
    section: "routing",
    selector: "algorithm",
    what: "routing algorithm",
    names: NAMES,
    keys: &["algorithm", "allow_deadlock"],
    moved: &[("routes", "routing.shortest_path.routes")],
};

/// The algorithm `cfg` selects for `topo`: `auto` is `nca` on trees, `minimal` on flattened
/// butterflies and dragonflies, `shortest_path` otherwise.
/// What `auto` picks, in words (`lossless list`, docs/config.md): `selected`'s rule.
pub const AUTO_RULE: &str = "`nca` on trees, `minimal` on flattened butterflies and dragonflies, `shortest_path` elsewhere";

pub fn selected<'a>(cfg: &'a RoutingConfig, topo: &Topology) -> &'a str {
    match cfg.algorithm.as_str() {
        AUTO if topo.is_tree() => "nca",
        AUTO if topo.grid.is_some() || topo.groups.is_some() => "minimal",
        AUTO => "shortest_path",
        name => name,
    }
}

#[doc(hidden)]
#[macro_export]
macro_rules! __routings {
    (() $($module:ident :: $ty:ident,)*) => {
        $(pub mod $module; pub use $module::$ty;)*

        $crate::__plugin_entries!($($module::$ty,)*);

        /// The routing of a network, whichever its algorithm.
        pub enum Routing {
            $($ty($ty),)*
        }

        impl Routing {
            /// The algorithm `cfg` selects, built for `topo` from its checked settings.
            pub fn build(cfg: &RoutingConfig, topo: &Topology) -> ConfigResult<Routing> {
                let name = selected(cfg, topo);
                match name {
                    $(stringify!($module) => Ok(Routing::$ty(<$ty>::build(KIND.settings(name, &cfg.settings)?, cfg, topo)?)),)*
                    other => Err(KIND.unknown(other)),
                }
            }

            /// The VC sets the algorithm `cfg` selects needs on `topology` (`Registered::phases`;
            /// `auto` picks `minimal` on dragonflies).
            pub fn phases(cfg: &RoutingConfig, topology: &TopologyConfig) -> u8 {
                match cfg.algorithm.as_str() {
                    AUTO if matches!(topology, TopologyConfig::Dragonfly { .. }) => <Minimal>::phases(topology),
                    $(stringify!($module) => <$ty>::phases(topology),)*
                    _ => 1,
                }
            }

            /// Whether the algorithm reads the switch's outputs (`Registered::READS_OUTPUTS`).
            pub fn reads_outputs(&self) -> bool {
                match self { $(Routing::$ty(_) => <$ty as Registered>::READS_OUTPUTS,)* }
            }

            /// `[routing.NAME]` of the algorithm `cfg` selects for `topo`, every default written out.
            pub fn resolved(cfg: &RoutingConfig, topo: &Topology) -> ConfigResult<toml::Table> {
                let name = selected(cfg, topo);
                match name {
                    $(stringify!($module) => Ok(KIND.resolved(name, &KIND.settings::<<$ty as Registered>::Settings>(name, &cfg.settings)?)),)*
                    other => Err(KIND.unknown(other)),
                }
            }
        }

        impl Route for Routing {
            #[inline]
            fn route<L: PortLoads + ?Sized>(&self, sw: SwitchId, dst: NodeId, flow: Flow, leg: &mut Leg, outputs: &L, rng: &mut Stream) -> PortId {
                match self { $(Routing::$ty(r) => r.route(sw, dst, flow, leg, outputs, rng),)* }
            }

            #[inline]
            fn prefetch(&self, sw: SwitchId, rng: &Stream) {
                match self { $(Routing::$ty(r) => r.prefetch(sw, rng),)* }
            }

            #[inline]
            fn predict(&self, sw: SwitchId, dst: NodeId, flow: Flow, rng: &Stream) -> Option<PortId> {
                match self { $(Routing::$ty(r) => r.predict(sw, dst, flow, rng),)* }
            }
        }
    };
}
crate::routings!(__routings!());

/// A fixed next port per (switch, destination).
pub struct Table {
    hosts: usize,
    next: Vec<PortId>,
}

impl Table {
    #[inline]
    pub(crate) fn port(&self, sw: SwitchId, dst: NodeId) -> PortId {
        self.next[sw.idx() * self.hosts + dst.idx()]
    }
}
