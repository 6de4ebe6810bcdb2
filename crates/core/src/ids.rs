//! Dense identifiers. Every entity lives in a `Vec` indexed by its id (docs/architecture.md,
//! "Simulation model"): no hash maps and no pointers in the event loop. Each kind of id is its
//! own type, so that a host cannot be passed where a switch is meant; `idx()` indexes its `Vec`.

/// A newtype id over `$repr`: `Name(raw)`, `Name::new(index)`, `.idx()`.
macro_rules! id {
    ($(#[$doc:meta])* $name:ident($repr:ty)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub $repr);

        impl $name {
            /// The largest id: a sentinel ("none", "all") where a real id cannot reach it.
            pub const MAX: $name = $name(<$repr>::MAX);

            /// The id of the entity at `index` in its `Vec`.
            #[inline]
            pub const fn new(index: usize) -> $name {
                $name(index as $repr)
            }

            /// The index of the entity in its `Vec`.
            #[inline]
            pub const fn idx(self) -> usize {
                self.0 as usize
            }

            /// Its bit in a 64-bit mask of such ids (ports of a switch).
            #[inline]
            pub const fn bit(self) -> u64 {
                1 << self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id! {
    /// A host (end node with a NIC), numbered 0..hosts.
    NodeId(u32)
}
id! {
    /// A switch, numbered 0..switches.
    SwitchId(u32)
}
id! {
    /// A switch port number.
    PortId(u16)
}
id! {
    /// One direction of a link.
    ChannelId(u32)
}
/// A virtual channel index.
pub type Vc = u8;
id! {
    /// A packet slot in the packet slab.
    PacketId(u32)
}
id! {
    /// A send queue (queue pair) slot.
    QpId(u32)
}
/// A traffic class index (position in the `[[traffic]]` list).
pub type ClassId = u16;

/// Where a channel starts or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    Host(NodeId),
    Switch(SwitchId, PortId),
}
