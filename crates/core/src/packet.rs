//! Packets and the slab that stores them. Packets are created when they leave a NIC's send queue
//! and freed on delivery or drop; ids index the slab so the hot path never allocates.

use crate::ids::{ClassId, NodeId, PacketId, PortId, QpId, Vc};
use crate::routing::Leg;
use crate::time::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    /// A mechanism's control packet; the subtype is the mechanism's own (ACK, CNP, grant...).
    Control(u8),
}

/// A packet with header `H`, the mechanism's own (`Mechanism::Header`).
///
/// In declaration order: what a hop reads and writes (routing, queues, allocation, the link)
/// in the first 64 bytes, what only its ends and a few mechanisms read (the times statistics
/// take at delivery, the identity, the header) after them. The slab's slots are two cache
/// lines, aligned (`Slot`), so a hop touches one; unaligned, the slots of 104 to 128 bytes
/// spanned two or three lines each. The packet itself is not
/// over-aligned: events and messages that carry one by value stay their size.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Packet<H> {
    /// Arrival of the head at the buffer the packet is in now.
    pub head_in: Time,
    /// When the tail has fully arrived in the buffer the packet is in now.
    pub tail_in: Time,
    pub src: NodeId,
    pub dst: NodeId,
    pub bytes: u32,
    /// Which of its source's flows to its destination the packet is in, the flow ECMP keeps on
    /// one path: 0 where one send queue takes every message to a destination, the message's
    /// queue number (`QueueView::number`) where each message has its own (`nic.send_queues =
    /// "per_flow"`). Unlike `qp`'s slot, the same however a run is split over threads. 0 for
    /// control packets.
    pub flow: u32,
    /// Progress on a route with phases: the packet leaves the current switch on VC `vc` of
    /// phase `leg.phase` (`routing` module doc).
    pub leg: Leg,
    /// The output port and leg the next switch gives the packet, chosen one hop ahead by the
    /// switch it is in (lookahead routing): with `[switch.voq] per_output_buffers` that port
    /// names the buffer the packet takes downstream, whose credits it needs to leave.
    pub ahead: Option<(PortId, Leg)>,
    /// Output port chosen at the current switch.
    pub out_port: PortId,
    pub kind: PacketKind,
    pub class: ClassId,
    pub vc: Vc,
    /// The packet met congestion on its way: IB CC's FECN, the SRP paper's ECN mark, Santos'
    /// full-buffer mark. Every marking mechanism sets this one bit, so statistics count marks
    /// per traffic class (`marked`, docs/metrics.md) whatever the mechanism.
    pub marked: bool,
    pub qp: QpId,
    /// Creation of the message the packet belongs to.
    pub created: Time,
    /// When the packet reached the head of its send queue.
    pub ready: Time,
    /// When its head left the source NIC.
    pub injected: Time,
    /// Time spent queuing in switch input buffers so far: at each switch, from its arrival
    /// (past the pipeline) to its crossbar grant (SRP's "accumulated queuing time", §3). Kept
    /// for mechanisms with `Hooks::queue_head`, the hook that judges it.
    pub queued: Time,
    /// Identity of a data packet, kept by its retransmissions (0 for control packets): the
    /// receiver counts a packet delivered twice once.
    pub uid: u64,
    /// The mechanism's header fields.
    pub hdr: H,
}

impl<H> Packet<H> {
    /// `queued` as of `now` for a packet waiting in an input buffer: its time there past the
    /// pipeline (`router_latency`) added.
    pub fn queued_until(&self, now: Time, router_latency: Time) -> Time {
        self.queued + now.saturating_sub(self.head_in + router_latency)
    }
}

/// In a run served block by block (`sim::blocks`) slots are handed out a chunk at a time, each
/// chunk to one block: 32 slots of 128 bytes, a page. A packet that crosses into another block
/// moves into one of that block's slots, so the packets a block's events read lie in its own
/// pages rather than anywhere in the slab (65,536 hosts: a quarter to two fifths fewer page
/// walks). Other runs grow the slab a slot at a time.
const CHUNK_SLOTS: usize = 32;

/// The largest mechanism header (`cc::Mechanism::Header`), in bytes: four words; packets are
/// sized around it.
pub const MAX_HEADER_BYTES: usize = 24;

/// A slab slot: a packet on two whole cache lines (`Packet`'s layout).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot<H>(Packet<H>);

// What a hop touches lies in a slot's first line; a slot with the largest header a mechanism
// may carry (`MAX_HEADER_BYTES`) is two lines; carried by value in events and messages, a
// packet keeps its own alignment (aligned itself, it made every message carrying one a
// multiple of 64 bytes).
const _: () = assert!(std::mem::offset_of!(Packet<()>, created) == 64, "a hop's fields outgrew a packet's first cache line");
const _: () = assert!(std::mem::size_of::<Slot<[u64; MAX_HEADER_BYTES / 8]>>() == 128, "a packet slot outgrew two cache lines");
const _: () = assert!(std::mem::align_of::<Packet<[u64; MAX_HEADER_BYTES / 8]>>() == 8);

pub struct Slab<H> {
    packets: Vec<Slot<H>>,
    /// The free slots of the block being served (of the whole slab where the run is not served
    /// in blocks).
    free: Vec<PacketId>,
    /// Per block, in a run served in blocks: its free slots (the block being served has them
    /// in `free`).
    others: Vec<Vec<PacketId>>,
    /// Per chunk, in a run served in blocks: the block whose free list its slots return to.
    chunk_block: Vec<u16>,
    /// The block being served.
    block: u16,
    /// Per slot: how many packets it has held (wrapping), so a late event about a packet can
    /// tell it from a later one in the same slot.
    generations: Vec<u16>,
    /// Per slot: the packet behind it in the output buffer it waits in (`switch::OutFifo`; a
    /// packet is in one at a time). Beside the packets rather than in them: four bytes a slot,
    /// so the links of every packet in flight share a few cache lines.
    behind: Vec<PacketId>,
}

impl<H> Default for Slab<H> {
    fn default() -> Self {
        Slab { packets: Vec::new(), free: Vec::new(), others: Vec::new(), chunk_block: Vec::new(), block: 0, generations: Vec::new(), behind: Vec::new() }
    }
}

impl<H: Copy> Slab<H> {
    pub fn alloc(&mut self, p: Packet<H>) -> PacketId {
        match self.free.pop() {
            Some(id) => {
                self.packets[id.idx()] = Slot(p);
                self.generations[id.idx()] = self.generations[id.idx()].wrapping_add(1);
                id
            }
            None if self.in_blocks() => {
                self.grow(CHUNK_SLOTS, p);
                self.chunk_block.push(self.block);
                self.alloc(p)
            }
            None => {
                self.packets.push(Slot(p));
                self.generations.push(0);
                self.behind.push(PacketId::MAX);
                PacketId::new(self.packets.len() - 1)
            }
        }
    }

    /// Adds `slots` free slots for the block being served (`p` fills them until taken), the
    /// first to be taken first.
    fn grow(&mut self, slots: usize, p: Packet<H>) {
        let first = self.packets.len();
        self.packets.resize(first + slots, Slot(p));
        self.generations.resize(first + slots, u16::MAX);
        self.behind.resize(first + slots, PacketId::MAX);
        self.free.extend((first..first + slots).rev().map(PacketId::new));
    }

    /// Keeps a free list for each of `blocks` blocks (`sim::blocks`) from now on, block 0 being
    /// served; the slots so far, padded to a whole chunk, are block 0's.
    pub fn divide(&mut self, blocks: usize) {
        if let Some(&Slot(p)) = self.packets.first() {
            self.grow(self.packets.len().next_multiple_of(CHUNK_SLOTS) - self.packets.len(), p);
        }
        self.chunk_block = vec![0; self.packets.len() / CHUNK_SLOTS];
        self.others = (0..blocks).map(|_| Vec::new()).collect();
        self.block = 0;
    }
}

impl<H> Slab<H> {
    fn in_blocks(&self) -> bool {
        !self.others.is_empty()
    }

    /// New packets go to block `b`'s slots from now on.
    #[inline]
    pub fn serve(&mut self, b: usize) {
        std::mem::swap(&mut self.free, &mut self.others[self.block as usize]);
        std::mem::swap(&mut self.free, &mut self.others[b]);
        self.block = b as u16;
    }

    /// The generation of slot `id`: it changes each time the slot takes a new packet.
    pub fn generation(&self, id: PacketId) -> u16 {
        self.generations[id.idx()]
    }

    /// The packet behind `id` in its output buffer (`switch::OutFifo`).
    #[inline]
    pub fn behind(&self, id: PacketId) -> PacketId {
        self.behind[id.idx()]
    }

    #[inline]
    pub fn set_behind(&mut self, id: PacketId, next: PacketId) {
        self.behind[id.idx()] = next;
    }

    pub fn release(&mut self, id: PacketId) {
        if self.in_blocks() {
            let b = self.chunk_block[id.idx() / CHUNK_SLOTS];
            if b != self.block {
                self.others[b as usize].push(id);
                return;
            }
        }
        self.free.push(id);
    }

    /// Packets allocated and not released: in the network, or control packets waiting at a NIC.
    pub fn live(&self) -> usize {
        self.packets.len() - self.free.len() - self.others.iter().map(Vec::len).sum::<usize>()
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet<H> {
        &self.packets[id.idx()].0
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet<H> {
        &mut self.packets[id.idx()].0
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{Packet, PacketKind, Slab, CHUNK_SLOTS};
    use crate::ids::{NodeId, PortId, QpId};
    use crate::routing::Leg;

    pub(crate) fn packet(uid: u64) -> Packet<()> {
        let (n, t) = (NodeId(0), 0);
        Packet {
            src: n,
            dst: n,
            bytes: 64,
            kind: PacketKind::Data,
            vc: 0,
            class: 0,
            qp: QpId(0),
            flow: 0,
            created: t,
            ready: t,
            injected: t,
            head_in: t,
            tail_in: t,
            out_port: PortId(0),
            leg: Leg::START,
            ahead: None,
            queued: t,
            marked: false,
            hdr: (),
            uid,
        }
    }

    /// In blocks, a block's packets take slots of its own chunks, and a slot released while
    /// another block is served goes back to its own block.
    #[test]
    fn a_block_takes_the_slots_of_its_own_chunks() {
        let mut slab = Slab::default();
        slab.divide(3);
        slab.serve(1);
        let (a, b) = (slab.alloc(packet(1)), slab.alloc(packet(2)));
        assert_eq!(b.idx(), a.idx() + 1, "one block's packets side by side");
        slab.serve(2);
        let c = slab.alloc(packet(3));
        assert_ne!(c.idx() / CHUNK_SLOTS, a.idx() / CHUNK_SLOTS, "another block, another chunk");
        slab.release(a);
        let d = slab.alloc(packet(4));
        assert_ne!(d, a, "block 1's slot is not block 2's to take");
        slab.serve(1);
        assert_eq!(slab.alloc(packet(5)), a);
        assert_eq!((slab.get(a).uid, slab.get(d).uid, slab.live()), (5, 4, 4));
    }
}
