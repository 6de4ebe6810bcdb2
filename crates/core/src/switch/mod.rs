//! Switch state: input-buffered (each data VC in the organization of `switch.input_queues`,
//! `queues`), a crossbar with speedup, and small per-VC output buffers (SRP paper §4). Plain data: the
//! behaviour lives in `sim::switch_ops`, which owns the event queue.

pub mod credits;
pub mod queues;

use crate::config::VcClass;
use crate::ids::{ChannelId, NodeId, PacketId, PortId, Vc};
use crate::packet::{Packet, Slab};
use crate::rng::Stream;
pub use credits::{Counts, Credits, Pooling};
use queues::{Popped, Queueing, Queues, Spec};
use smallvec::{smallvec, SmallVec};
use std::num::NonZeroU32;

/// A virtual channel as the network builds it: the mechanism's priority class and the input
/// queueing the config gives it.
#[derive(Clone, Debug)]
pub struct VcSpec {
    pub class: VcClass,
    pub queue: Spec,
}

/// Two cache lines, aligned (both of which `sim::prefetch` asks for, for a head arrival's or a
/// crossing's input, VC 0's): unaligned at 136 bytes it spanned three or four.
#[repr(align(64))]
pub struct InputVc {
    /// The packets waiting for the crossbar, in the VC's organization.
    pub queues: Queues,
    /// Bytes waiting in the queues (not yet granted the crossbar).
    pub queued: u32,
    /// Bytes held (from head arrival until the tail has crossed the crossbar).
    pub bytes: u32,
    /// How the buffer is divided into buffers of their own, each with credits upstream.
    pub pooling: Pooling,
    /// Per buffer of its own (`pooling`): the bytes it holds; none when the buffer is shared.
    pub pools: Counts,
    /// Bytes the buffer (or each of its own buffers) holds.
    pub capacity: u32,
    /// High-water mark of a buffer (the shared one, or the fullest own one), checked against the
    /// capacity by the invariant checks.
    pub peak: u32,
    /// The link its credits return over (none for the local input), kept here for the reason
    /// `OutLink` is.
    pub upstream: Option<InLink>,
}

const _: () = assert!(std::mem::size_of::<InputVc>() == 128, "InputVc outgrew two cache lines");

/// The channel into an input, whose sender its credits go back to, and that channel's latency.
#[derive(Clone, Copy, Debug)]
pub struct InLink {
    pub ch: ChannelId,
    pub latency: crate::time::Time,
    /// Where the sender's events are served (`Sim::post_to`): its block in a run served in
    /// blocks, else its partition in a split run (`Switch::set_homes`); 0 otherwise.
    pub home: u16,
}

impl InputVc {
    /// Queues `pkt` (`bytes` long, for output `out` and host `dst`); returns whether the buffer
    /// now offers it to `out`.
    pub fn push(&mut self, pkt: PacketId, bytes: u32, out: PortId, dst: NodeId) -> bool {
        self.queued += bytes;
        self.bytes += bytes;
        let pool = self.pool(out, dst);
        self.pools.add(pool as usize, bytes);
        self.peak = self.peak.max(self.held(pool));
        self.queues.push(pkt, out, dst, bytes)
    }

    /// Takes `pkt` (`bytes` long), offered to output `out`, out of the queues (its bytes stay in
    /// the buffer until its tail has left): see `Queueing::pop`.
    pub fn pop(&mut self, pkt: PacketId, bytes: u32, out: PortId) -> Popped {
        self.queued -= bytes;
        self.queues.pop(pkt, out)
    }

    /// The tail of a packet of `bytes` has left buffer `pool`.
    pub fn release(&mut self, bytes: u32, pool: u32) {
        self.bytes -= bytes;
        self.pools.sub(pool as usize, bytes);
    }

    /// Bytes held in buffer `pool` (the shared buffer's if it is not divided).
    pub fn held(&self, pool: u32) -> u32 {
        self.pools.get(pool as usize).unwrap_or(self.bytes)
    }

    /// The buffer a packet for output `out` and host `dst` takes, and the upstream credit
    /// counter it returns to.
    #[inline]
    pub fn pool(&self, out: PortId, dst: NodeId) -> u32 {
        self.pooling.pool(out, dst)
    }
}

/// One VC of an output: its output buffer and its credits downstream, and what the switch's
/// input VCs of the same number hold and request for the output (a packet may leave on another
/// VC than it came in on, `Sim::out_vc`). Each event at an output reads most of these together,
/// so they are one struct: as per-VC arrays of the output they were a cache line each.
pub struct OutputVc {
    pub fifo: OutFifo,
    /// Bytes reserved (from crossbar grant until the tail has left on the link).
    pub bytes: u32,
    /// Bytes in this switch's input buffers on the VC of this number routed to this output (the
    /// total occupancy of its virtual output queues, SRP paper §4's ECN trigger).
    pub queued: u32,
    /// Bit i set when input i has an eligible packet on the VC of this number at the head of
    /// its queue for this output.
    pub req: u64,
    /// Free bytes in the downstream input buffers for this VC, one counter per buffer the next
    /// input divides them into.
    pub credits: Credits,
    /// The input that round-robin serves first next time among those requests.
    pub rr: u8,
    pub peak: u32,
}

/// An output VC's buffer, oldest packet first: a list through the packet slab
/// (`Slab::behind`). Two ids in `OutputVc`, where a `VecDeque` kept a ring of its own: one more
/// cache line for every grant and every link start on large networks.
#[derive(Clone, Copy, Debug)]
pub struct OutFifo {
    front: PacketId,
    back: PacketId,
}

impl OutFifo {
    pub const EMPTY: OutFifo = OutFifo { front: PacketId::MAX, back: PacketId::MAX };

    #[inline]
    pub fn front(&self) -> Option<PacketId> {
        (self.front != PacketId::MAX).then_some(self.front)
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.front == PacketId::MAX
    }

    #[inline]
    pub fn push_back<H>(&mut self, pkt: PacketId, slab: &mut Slab<H>) {
        slab.set_behind(pkt, PacketId::MAX);
        if self.is_empty() {
            self.front = pkt;
        } else {
            slab.set_behind(self.back, pkt);
        }
        self.back = pkt;
    }

    /// Takes the front packet out (`back` is left as it was: an empty buffer never reads it).
    #[inline]
    pub fn pop_front<H>(&mut self, slab: &Slab<H>) {
        self.front = slab.behind(self.front);
    }

    /// The packets, front first.
    pub fn iter<'a, H>(&self, slab: &'a Slab<H>) -> impl Iterator<Item = PacketId> + 'a {
        std::iter::successors(self.front(), |&p| Some(slab.behind(p)).filter(|&n| n != PacketId::MAX))
    }
}

impl OutputVc {
    /// The downstream buffer is divided: a packet takes its credits when it is granted the
    /// crossbar (as a BookSim VC allocator grants an output VC only with buffer room), so the
    /// output buffer never holds a packet waiting for credits behind which others wait.
    #[inline]
    pub fn pooled(&self) -> bool {
        self.credits.pooling != Pooling::Shared
    }

    /// Whether the link may send `p` from this VC now: its credits were taken at the grant
    /// (`pooled`), or the downstream buffer has room for it (virtual cut-through).
    #[inline]
    pub fn may_send<H>(&self, p: &Packet<H>) -> bool {
        self.pooled() || self.credits.room(p)
    }
}

/// An output's link as the topology gives it. Every event at an output reads it; kept in the
/// output, it is in a cache line the event loads anyway, where the topology's port and channel
/// tables cost two more misses per event on large networks.
#[derive(Clone, Copy, Debug)]
pub struct OutLink {
    pub ch: ChannelId,
    pub rate: crate::time::Rate,
    pub latency: crate::time::Time,
    /// Whether a host is at the far end (else a switch, whose id the channel gives).
    pub to_host: bool,
    /// Where the far end's events are served, as `InLink::home`.
    pub home: u16,
}

/// Three cache lines, aligned; a run with one VC per output reads two of them, and
/// `sim::prefetch` asks for those (`Output::read_lines`). The fields other than the VCs once
/// took three lines of their own: the crossbar's rate is the switch's (`Switch::xbar`), the far
/// end of the link a flag, and the optional fields use their values' niches. Two VCs are inline: IB CC, ECN and SRP put a
/// control VC beside the data VC, and reached both through a pointer to an allocation of their
/// own, a miss more per event at the output.
#[repr(align(64))]
pub struct Output {
    pub link: OutLink,
    pub vcs: SmallVec<[OutputVc; 2]>,
    /// Round-robin among VCs of one priority class: the VC offset served first.
    pub vc_rr: u8,
    /// The same for the link: among the VCs of one class with a packet ready to go, the VC
    /// offset served first (a strict order would let a busy VC starve the others: the CBCM
    /// paper's Ideal and every routing phase put several data VCs on one link).
    pub link_rr: u8,
    /// VC and bytes of the packet on the link, released when serialization ends.
    pub sending: Option<(Vc, NonZeroU32)>,
    /// When serialization ends, if no `Event::LinkFree` was scheduled for it: nothing waited
    /// for the link when it started (`sim::lazy_link`). `NEVER` when there is none.
    deferred_free: crate::time::Time,
    /// The input buffer (`InputVc::pool`) of the data packet crossing to this output: its
    /// space is released when the tail has crossed (one at a time: it holds the crossbar port).
    pub crossing: u32,
    /// Link time taken by control packets interleaved into the current transmission: the link
    /// frees that much later.
    pub stretch: crate::time::Time,
}

const _: () = assert!(std::mem::size_of::<Output>() <= 192, "Output outgrew three cache lines");

/// `Output::deferred_free` when no release waits.
const NEVER: crate::time::Time = crate::time::Time::MAX;

/// What of an output only some mechanisms and input organizations read, apart from `Output`,
/// every line of which a packet's hop reads: in it these made it 264 bytes, five lines, where
/// it is now two.
#[derive(Default)]
pub struct OutputExtra {
    /// The CAM of congested-flow isolation (`input_queues = "fbicm"`): the lines of the input
    /// downstream, and whether each stopped its packets (thesis Paper V §IV-A).
    pub cam: Vec<CamLine>,
    /// Per VC, per downstream buffer when they are divided (`OutputVc::pooled`): the input whose
    /// packet for it goes first next time, so that inputs take a buffer's credits in turn
    /// (BookSim allocates each output VC with an arbiter of its own). Empty where no VC's are.
    pub turn: Vec<Vec<u8>>,
}

/// A line of an output's CAM: the input at the far end of the link isolates the packets for
/// `dests` on `vc` under its line `id`, and has told the output to hold them (`stopped`) or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CamLine {
    pub vc: Vc,
    pub id: u32,
    pub dests: Vec<NodeId>,
    pub stopped: bool,
}

impl OutputExtra {
    /// Whether the input downstream told this output to hold `dst`'s packets on `vc`.
    #[inline]
    pub fn stopped(&self, vc: Vc, dst: NodeId) -> bool {
        self.cam.iter().any(|l| l.stopped && l.vc == vc && l.dests.contains(&dst))
    }
}

impl Output {
    /// The cache lines of this output that events read, as a mask (bit k: the k-th line), for
    /// its number of VCs: what `sim::prefetch` asks for. One VC leaves a line unread (three
    /// lines asked for where two are read). Found from where the fields are, wherever the
    /// compiler puts them; VCs out of line (more than two) leave every line asked for.
    pub fn read_lines(&self) -> u8 {
        use std::mem::size_of;
        let base = self as *const Output as usize;
        let span = |at: usize, len: usize| (at / 64..=(at + len - 1) / 64).fold(0u8, |mask, line| mask | 1 << line);
        let field = |r: *const u8, len: usize| span(r as usize - base, len);
        if self.vcs.spilled() {
            return span(0, size_of::<Output>());
        }
        let vcs_at = std::mem::offset_of!(Output, vcs);
        let data = self.vcs.as_ptr() as usize - base;
        // The `SmallVec`'s length: after its inline data or before it.
        let length = if data == vcs_at { span(vcs_at + self.vcs.inline_size() * size_of::<OutputVc>(), 8) } else { span(vcs_at, 8) };
        let scalars = [
            field(std::ptr::addr_of!(self.link).cast(), size_of::<OutLink>()),
            field(std::ptr::addr_of!(self.vc_rr), 1),
            field(std::ptr::addr_of!(self.link_rr), 1),
            field(std::ptr::addr_of!(self.sending).cast(), size_of::<Option<(Vc, NonZeroU32)>>()),
            field(std::ptr::addr_of!(self.deferred_free).cast(), 8),
            field(std::ptr::addr_of!(self.crossing).cast(), 4),
            field(std::ptr::addr_of!(self.stretch).cast(), 8),
        ];
        scalars.iter().fold(span(data, self.vcs.len() * size_of::<OutputVc>()) | length, |mask, m| mask | m)
    }

    /// The release of the link, due at `at`, waits without an event (`sim::lazy_link`).
    pub fn defer_free(&mut self, at: crate::time::Time) {
        self.deferred_free = at;
    }

    /// The deferred release, if one waits; it waits no more.
    pub fn take_deferred_free(&mut self) -> Option<crate::time::Time> {
        Some(std::mem::replace(&mut self.deferred_free, NEVER)).filter(|&at| at != NEVER)
    }

    /// Whether a deferred release waits.
    pub fn defers_free(&self) -> bool {
        self.deferred_free != NEVER
    }

    /// The port's queue length as adaptive routing reads it: bytes waiting for it in the
    /// switch's input buffers, in its output buffer and downstream (credits in use), over all
    /// VCs.
    pub fn load_bytes(&self) -> u32 {
        self.vcs.iter().map(|v| v.queued + v.bytes + v.credits.in_use()).sum()
    }
}

impl crate::routing::PortLoads for [Output] {
    #[inline]
    fn load_bytes(&self, port: PortId) -> u32 {
        self[port.idx()].load_bytes()
    }
}

/// The fields a packet's hop reads fill the first three cache lines, aligned, ahead of the
/// random stream: the arrays (as boxed slices, a pointer and a length each) and the masks of
/// requests and queued packets first, then the per-input counters, the pins and the crossbar's
/// rate, then the masks of what each output is doing. On large networks each line of a switch
/// an event reads is a miss, and the compiler's own order spread these over four.
#[repr(C, align(64))]
pub struct Switch {
    /// Per input and VC, input-major (`Switch::input`): one per port, then the local input
    /// (index = number of ports), where control packets the switch itself sends (e.g. SRP's
    /// NACK) enter. It has no upstream channel, so no credits, and its packets compete for
    /// outputs like any other. One array, not a vector per input: reaching an input VC of a
    /// switch then takes one load that misses on large networks, not two.
    inputs: Box<[InputVc]>,
    pub outputs: Box<[Output]>,
    /// Bit i set while input i is moving as many packets across the crossbar as it has read
    /// ports (`switch.read_ports`).
    pub in_busy: u64,
    /// Bit o set while some input requests output o: half the crossbar allocations tried find
    /// none, and this answers them without reading the output.
    pub out_req: u64,
    /// Bit o set while output o's buffer holds a packet: half the link starts tried find it
    /// empty, and this answers them without reading the output.
    pub out_queued: u64,
    /// VCs per input: the stride of `inputs`.
    vcs: usize,
    /// Per input: packets it is moving across the crossbar.
    pub in_reads: Box<[u8]>,
    /// Per input: bit o set while the input requests output o on some VC (the union over VCs
    /// of the outputs' `req` bits), so a freed input finds its outputs without a scan.
    pub in_req: Box<[u64]>,
    /// Per VC: bit i set while only input i's `Queueing::fifo_head` may leave (a bypass FIFO's
    /// head overtaken its limit of times), so only the head's output may take from that input.
    /// Inline up to two VCs: every allocation and every dequeue reads it.
    pub pinned: SmallVec<[u64; 2]>,
    /// The crossbar's rate, towards every output: the switch's fastest port rate times
    /// `switch.speedup`.
    pub xbar: crate::time::Rate,
    /// Bit o set while output o's crossbar port moves a packet, from its grant until its tail
    /// has crossed (`Event::XbarDone`).
    pub out_busy: u64,
    /// Bit o set while output o's link is busy: sending a packet, or held for one whose tail
    /// has not reached the buffer yet.
    pub out_sending: u64,
    /// Bit o set while no VC of output o but a control VC has room for another packet, even the
    /// smallest (`Sim::pick`'s test). In a saturated network most allocations tried find their
    /// output busy or full: these masks answer them without reading the output.
    pub out_full: u64,
    /// Bit o set while some input requests output o on a control VC: the only packets an
    /// output takes while its crossbar port is busy or its other VCs are full
    /// (`Switch::takes_only_control`).
    pub out_req_control: u64,
    /// Bit o set while output o's buffer holds a control packet: the only packets its link
    /// takes while it sends another (`sim` module doc, on interleaving).
    pub out_queued_control: u64,
    /// Bit v set for the VCs of the control class.
    control_vcs: u64,
    /// An output VC holding more bytes than this has no room for another packet, even the
    /// smallest (a control packet): its buffer's capacity less one (`out_full`).
    room: u32,
    /// Routing decisions (random up ports) draw from the switch's own stream.
    pub rng: Stream,
    /// Per output: its state that only some mechanisms and organizations read.
    pub extras: Box<[OutputExtra]>,
    /// Per output, VC and input (`Switch::voq_row`): bytes waiting in that input's queue for
    /// the output, its virtual output queue. IB CC's per-VoQ threshold (thesis Paper I) reads a
    /// whole row at every transmit, and each packet in and out of an input writes its count:
    /// one array, its pointer beside `extras`, so that takes one load that misses on a large
    /// network where a vector per output and VC chained three. Empty unless the mechanism reads them.
    voq_bytes: Box<[u32]>,
}

// The layout the doc above describes: the second line starts with the per-input counters, the
// third with the outputs' masks.
const _: () =
    assert!(std::mem::offset_of!(Switch, in_reads) == 64 && std::mem::offset_of!(Switch, out_busy) == 128 && std::mem::offset_of!(Switch, rng) <= 192);

impl Switch {
    /// A switch with `ports` ports in a network of `hosts` hosts whose input buffers (each VC's)
    /// take `capacity` bytes. `neighbour(p)` is the number of ports of the switch at the far
    /// end of port `p`, `None` for a host: how a VC's organization divides its buffers may
    /// depend on what feeds them (`Spec::pooling`). Port `p` receives on `links(p).0` and sends
    /// on `links(p).1`, its crossbar moves packets at `xbar`, and the outputs count their virtual
    /// output queues' bytes if `voq_bytes`. Its output buffers hold `room` bytes per VC and
    /// room for another packet besides (`Switch::room`).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        ports: usize,
        hosts: usize,
        vcs: &[VcSpec],
        capacity: u32,
        room: u32,
        links: impl Fn(PortId) -> (InLink, OutLink),
        xbar: crate::time::Rate,
        neighbour: impl Fn(PortId) -> Option<usize>,
        voq_bytes: bool,
        rng: Stream,
    ) -> Switch {
        // Input-major, sized exactly (collecting a flattened iterator would double the
        // capacity past the need: 144 MB more at 65,536 hosts).
        let mut inputs = Vec::with_capacity((ports + 1) * vcs.len());
        for p in 0..=ports {
            // The local input has no upstream.
            let upstream = (p < ports).then(|| links(PortId::new(p)).0);
            inputs.extend(vcs.iter().map(|v| {
                // Without an upstream, one buffer.
                let pooling = if p < ports { v.queue.pooling(neighbour(PortId::new(p)).is_some()) } else { Pooling::Shared };
                let (own, capacity) = v.queue.buffers(pooling, ports, hosts, capacity);
                InputVc { queues: v.queue.build(ports), queued: 0, bytes: 0, pooling, pools: Counts::new(pooling, own, 0), capacity, peak: 0, upstream }
            }));
        }
        // Per output, per VC: the downstream buffers' sizes and how they are divided.
        let buffers = |p: usize| {
            let next = neighbour(PortId::new(p));
            vcs.iter().map(move |v| {
                // A host takes what arrives into one buffer.
                let pooling = if next.is_some() { v.queue.pooling(true) } else { Pooling::Shared };
                let (own, capacity) = v.queue.buffers(pooling, next.unwrap_or(0), hosts, capacity);
                (pooling, own, capacity)
            })
        };
        let extras = (0..ports)
            .map(|p| OutputExtra {
                cam: Vec::new(),
                // Kept only where some VC's buffers downstream are divided: an allocation per output.
                turn: if buffers(p).any(|(pooling, ..)| pooling != Pooling::Shared) {
                    buffers(p).map(|(_, own, _)| vec![0; own]).collect()
                } else {
                    Vec::new()
                },
            })
            .collect();
        let outputs = (0..ports)
            .map(|p| Output {
                link: links(PortId::new(p)).1,
                vcs: buffers(p)
                    .map(|(pooling, own, capacity)| {
                        let credits = Credits::new(pooling, own.max(1), capacity);
                        OutputVc { fifo: OutFifo::EMPTY, bytes: 0, queued: 0, req: 0, credits, rr: 0, peak: 0 }
                    })
                    .collect(),
                vc_rr: 0,
                link_rr: 0,
                deferred_free: NEVER,
                sending: None,
                crossing: 0,
                stretch: 0,
            })
            .collect();
        Switch {
            in_busy: 0,
            out_req: 0,
            out_req_control: 0,
            out_queued: 0,
            out_queued_control: 0,
            out_busy: 0,
            out_sending: 0,
            out_full: 0,
            inputs: inputs.into_boxed_slice(),
            outputs,
            vcs: vcs.len(),
            in_reads: vec![0; ports + 1].into_boxed_slice(),
            xbar,
            in_req: vec![0; ports + 1].into_boxed_slice(),
            pinned: smallvec![0; vcs.len()],
            control_vcs: vcs.iter().enumerate().filter(|(_, v)| v.class == VcClass::Control).fold(0, |mask, (v, _)| mask | 1 << v),
            room,
            rng,
            extras,
            voq_bytes: vec![0; if voq_bytes { ports * vcs.len() * (ports + 1) } else { 0 }].into_boxed_slice(),
        }
    }

    /// Whether the switch counts its virtual output queues' bytes (`voq_row`).
    pub fn counts_voqs(&self) -> bool {
        !self.voq_bytes.is_empty()
    }

    /// Output `out`'s virtual output queues on `vc`: bytes waiting for it per input, the local
    /// input last. Only where the switch counts them (`counts_voqs`).
    #[inline]
    pub fn voq_row(&self, out: PortId, vc: Vc) -> &[u32] {
        let at = self.voq_at(out, vc);
        &self.voq_bytes[at..at + self.input_count()]
    }

    #[inline]
    fn voq_at(&self, out: PortId, vc: Vc) -> usize {
        (out.idx() * self.vcs + vc as usize) * self.input_count()
    }

    /// Input `port`'s VC `vc`.
    #[inline]
    pub fn input(&self, port: usize, vc: usize) -> &InputVc {
        &self.inputs[port * self.vcs + vc]
    }

    /// Input `port`'s VC `vc`, to change.
    #[inline]
    pub fn input_mut(&mut self, port: usize, vc: usize) -> &mut InputVc {
        &mut self.inputs[port * self.vcs + vc]
    }

    /// Where the far ends of its links are served (`OutLink::home`, `InLink::home`): their
    /// partitions or blocks in `layout`.
    pub(crate) fn set_homes(&mut self, layout: &crate::layout::Layout) {
        for o in self.outputs.iter_mut() {
            o.link.home = layout.down[o.link.ch.idx()];
        }
        for up in self.inputs.iter_mut().filter_map(|i| i.upstream.as_mut()) {
            up.home = layout.up[up.ch.idx()];
        }
    }

    /// Input `port`'s VCs, in VC order.
    pub fn input_vcs(&self, port: usize) -> &[InputVc] {
        &self.inputs[port * self.vcs..(port + 1) * self.vcs]
    }

    /// Each input's VCs, the local input last.
    pub fn inputs(&self) -> std::slice::ChunksExact<'_, InputVc> {
        self.inputs.chunks_exact(self.vcs)
    }

    /// Ports; the local input is input `ports()`.
    pub fn ports(&self) -> usize {
        self.outputs.len()
    }

    /// Inputs, the local one included.
    pub fn input_count(&self) -> usize {
        self.ports() + 1
    }

    /// Queues `pkt` (`bytes` long, for host `dst`, routed to `out`) in input (`port`, `vc`) and
    /// counts it for `out` (in its virtual output queue's count too if `count_voq`: the rows
    /// exist, `Switch::new`); returns whether it is its queue's head.
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue(&mut self, port: PortId, vc: Vc, out: PortId, pkt: PacketId, bytes: u32, dst: NodeId, count_voq: bool) -> bool {
        self.outputs[out.idx()].vcs[vc as usize].queued += bytes;
        // Asked by the caller, not read from the rows: they are apart from the output, and
        // looking would cost every packet a load that misses on large networks.
        if count_voq {
            let at = self.voq_at(out, vc) + port.idx();
            self.voq_bytes[at] += bytes;
        }
        self.input_mut(port.idx(), vc as usize).push(pkt, bytes, out, dst)
    }

    /// Takes `pkt`, the head of input (`port`, `vc`)'s queue for `out`, out of its queues: see
    /// `InputVc::pop`. Its bytes stay counted in `OutputVc::queued` until its tail has crossed;
    /// they leave its virtual output queue's count if `count_voq` (as in `enqueue`).
    pub fn dequeue(&mut self, port: PortId, vc: Vc, out: PortId, pkt: PacketId, bytes: u32, count_voq: bool) -> Popped {
        if count_voq {
            let at = self.voq_at(out, vc) + port.idx();
            self.voq_bytes[at] -= bytes;
        }
        self.input_mut(port.idx(), vc as usize).pop(pkt, bytes, out)
    }

    /// The fullest CFQ (`input_queues = "fbicm"`) of any input on `vc` whose packets take `out`
    /// and none of whose destinations `out`'s CAM names: the congestion point is `out` itself
    /// (CCFIT's root CFQs, thesis Paper V §IV-B event #7).
    pub fn root_cfq_bytes(&self, out: PortId, vc: Vc) -> u32 {
        let cam = &self.extras[out.idx()].cam;
        let downstream = |line: &queues::isolation::Line| cam.iter().any(|l| l.vc == vc && l.dests.iter().any(|d| line.dests.contains(d)));
        let roots =
            self.inputs().filter_map(|i| i[vc as usize].queues.isolation()?.hot().for_output(out).filter(|(line, _)| !downstream(line)).map(|(_, b)| b).max());
        roots.max().unwrap_or(0)
    }

    /// Whether VC `vc` is of the control class.
    #[inline]
    pub fn is_control(&self, vc: Vc) -> bool {
        self.control_vcs >> vc & 1 == 1
    }

    /// Input `i` requests output `out` on `vc` (its head is there).
    pub fn ask(&mut self, i: PortId, out: PortId, vc: Vc) {
        self.outputs[out.idx()].vcs[vc as usize].req |= i.bit();
        self.in_req[i.idx()] |= out.bit();
        self.out_req |= out.bit();
        if self.is_control(vc) {
            self.out_req_control |= out.bit();
        }
    }

    /// Input `i` no longer requests output `out` on `vc` (its head was granted or dropped).
    pub fn withdraw(&mut self, i: PortId, out: PortId, vc: Vc) {
        let o = &mut self.outputs[out.idx()];
        o.vcs[vc as usize].req &= !i.bit();
        if o.vcs.iter().all(|v| v.req & i.bit() == 0) {
            self.in_req[i.idx()] &= !out.bit();
        }
        if o.vcs.iter().all(|v| v.req == 0) {
            self.out_req &= !out.bit();
        }
        if self.control_vcs >> vc & 1 == 1 && o.vcs.iter().enumerate().all(|(v, ovc)| self.control_vcs >> v & 1 == 0 || ovc.req == 0) {
            self.out_req_control &= !out.bit();
        }
    }

    /// Whether output `out` can take nothing but a control packet now: its crossbar port is
    /// busy, or no other VC of it has room (`Sim::pick`). Most allocations tried in a saturated
    /// network end here, without reading the output.
    #[inline]
    pub fn takes_only_control(&self, out: PortId) -> bool {
        (self.out_busy | self.out_full) & out.bit() != 0
    }

    /// Output `out`'s buffer took a packet on `vc`.
    #[inline]
    pub fn queued(&mut self, out: PortId, vc: Vc) {
        self.out_queued |= out.bit();
        if self.is_control(vc) {
            self.out_queued_control |= out.bit();
        }
    }

    /// Output `out`'s buffer sent a packet from `vc`: the masks of what it holds follow.
    #[inline]
    pub fn unqueued(&mut self, out: PortId, vc: Vc) {
        let o = &self.outputs[out.idx()];
        if !o.vcs[vc as usize].fifo.is_empty() {
            return;
        }
        if o.vcs.iter().all(|v| v.fifo.is_empty()) {
            self.out_queued &= !out.bit();
        }
        if self.is_control(vc) && o.vcs.iter().enumerate().all(|(v, ovc)| self.control_vcs >> v & 1 == 0 || ovc.fifo.is_empty()) {
            self.out_queued_control &= !out.bit();
        }
    }

    /// Output `out`'s VC `vc` took a packet: the output is full if no VC of it but a control
    /// one has room for another (`out_full`). It had room for this one, so it was not full.
    #[inline]
    pub fn filled(&mut self, out: PortId, vc: Vc) {
        let vcs = &self.outputs[out.idx()].vcs;
        if !self.is_control(vc) && vcs[vc as usize].bytes > self.room && vcs.iter().enumerate().all(|(v, o)| self.is_control(v as Vc) || o.bytes > self.room) {
            self.out_full |= out.bit();
        }
    }

    /// Output `out`'s link finished its packet: it is idle, and the packet's bytes leave the
    /// buffer. Whether a packet was on it (not a start deferred until its tail arrived).
    #[inline]
    pub fn end_transmission(&mut self, out: PortId) -> bool {
        self.out_sending &= !out.bit();
        let o = &mut self.outputs[out.idx()];
        let Some((vc, bytes)) = o.sending.take() else { return false };
        let ovc = &mut o.vcs[vc as usize];
        ovc.bytes -= bytes.get();
        if ovc.bytes <= self.room && !self.is_control(vc) {
            self.out_full &= !out.bit();
        }
        true
    }
}

/// Index of the first set bit of `mask` at or after `from`, wrapping around (round-robin).
#[inline]
pub fn next_from(mask: u64, from: u32) -> u32 {
    let from = from & 63;
    let high = mask & (u64::MAX << from);
    if high != 0 {
        high.trailing_zeros()
    } else {
        mask.trailing_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::{next_from, Credits, OutFifo, OutLink, Output, OutputVc, Pooling, NEVER};
    use crate::ids::{ChannelId, PacketId};
    use crate::packet::tests::packet;
    use crate::packet::Slab;

    fn contents(f: &OutFifo, slab: &Slab<()>) -> Vec<u64> {
        f.iter(slab).map(|p| slab.get(p).uid).collect()
    }

    /// Two buffers sharing one slab keep their own orders, and a slot released from one and
    /// taken again serves the other without carrying its old link along.
    #[test]
    fn out_fifo_keeps_order_through_the_slab() {
        let mut slab = Slab::default();
        let (mut a, mut b) = (OutFifo::EMPTY, OutFifo::EMPTY);
        let ids: Vec<PacketId> = (1..=4).map(|u| slab.alloc(packet(u))).collect();
        a.push_back(ids[0], &mut slab);
        b.push_back(ids[1], &mut slab);
        a.push_back(ids[2], &mut slab);
        a.push_back(ids[3], &mut slab);
        assert_eq!((contents(&a, &slab), contents(&b, &slab)), (vec![1, 3, 4], vec![2]));
        assert_eq!(a.front(), Some(ids[0]));
        a.pop_front(&slab);
        slab.release(ids[0]);
        let reused = slab.alloc(packet(5));
        assert_eq!(reused, ids[0]);
        b.push_back(reused, &mut slab);
        assert_eq!((contents(&a, &slab), contents(&b, &slab)), (vec![3, 4], vec![2, 5]));
        for _ in 0..2 {
            a.pop_front(&slab);
        }
        assert!(a.is_empty() && a.front().is_none() && contents(&a, &slab).is_empty());
        a.push_back(ids[2], &mut slab);
        assert_eq!(contents(&a, &slab), vec![3]);
    }

    #[test]
    fn round_robin_wraps() {
        assert_eq!(next_from(0b1010, 0), 1);
        assert_eq!(next_from(0b1010, 2), 3);
        assert_eq!(next_from(0b1010, 4), 1);
    }

    /// An output with one VC reads two of its three cache lines, with two all three, with more
    /// (its VCs out of line) all three too.
    #[test]
    fn outputs_read_lines_by_vcs() {
        let vc = || OutputVc { fifo: OutFifo::EMPTY, bytes: 0, queued: 0, req: 0, credits: Credits::new(Pooling::Shared, 1, 0), rr: 0, peak: 0 };
        let link = OutLink { ch: ChannelId(0), rate: crate::time::Rate { mbps: 1 }, latency: 0, to_host: false, home: 0 };
        let output = |vcs: usize| Output {
            link,
            vcs: (0..vcs).map(|_| vc()).collect(),
            vc_rr: 0,
            link_rr: 0,
            sending: None,
            deferred_free: NEVER,
            crossing: 0,
            stretch: 0,
        };
        let lines: Vec<u32> = (1..=3).map(|n| output(n).read_lines().count_ones()).collect();
        assert_eq!(lines, [2, 3, 3]);
        assert_eq!(output(2).read_lines(), 0b111);
    }
}
