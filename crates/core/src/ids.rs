//! Dense identifiers. Every entity lives in a `Vec` indexed by its id (docs/architecture.md,
//! "Simulation model"): no hash maps and no pointers in the event loop.

/// A host (end node with a NIC), numbered 0..hosts.
pub type NodeId = u32;
/// A switch, numbered 0..switches.
pub type SwitchId = u32;
/// A switch port number.
pub type PortId = u16;
/// One direction of a link.
pub type ChannelId = u32;
/// A virtual channel index.
pub type Vc = u8;
/// A packet slot in the packet slab.
pub type PacketId = u32;
/// A send queue (queue pair) slot.
pub type QpId = u32;
/// A traffic class index (position in the `[[traffic]]` list).
pub type ClassId = u16;

/// Where a channel starts or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    Host(NodeId),
    Switch(SwitchId, PortId),
}
