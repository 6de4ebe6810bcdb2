//! Congestion control as plug-ins.
//!
//! A mechanism implements [`Mechanism`]: hooks at the points docs/architecture.md lists (switch input,
//! queue head, output requests, a full input buffer, transmission; NIC message arrival, injection
//! gate, delivery; timers).
//! The engine is generic over the mechanism, so hooks are statically dispatched, and a mechanism
//! declares in [`Mechanism::HOOKS`] which ones it uses: the engine skips the rest at compile
//! time, and a disabled mechanism costs nothing on the hot path.
//!
//! Mechanisms act on the network only through [`Ctx`]: sending control packets from a NIC,
//! setting timers, drawing from their own random stream.

pub mod audit;
mod ctx;
pub mod registry;
mod throttle;

pub use audit::Hook;
pub use ctx::{Ctx, Deferred, RngAt, Streams};
pub use registry::{Registered, Settings};

/// Declares the registered mechanisms' modules (`cc/NAME.rs` or `cc/NAME/`) and re-exports
/// their types.
#[doc(hidden)]
#[macro_export]
macro_rules! __mechanism_modules {
    (() $($module:ident :: $ty:ident,)*) => {
        $(pub mod $module; pub use $module::$ty;)*
    };
}
crate::mechanisms!(__mechanism_modules!());

use crate::ids::{ClassId, NodeId, PortId, QpId, SwitchId, Vc};
use crate::packet::Packet;
use crate::time::{Rate, Time};

/// Priority classes of virtual channels (defined with the config, whose `cc.vcs` names them).
pub use crate::config::VcClass;

/// A virtual channel a mechanism needs: what travels on it (named in messages about
/// `cc.vcs`, which may give it another class) and its priority class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcRole {
    pub carries: &'static str,
    pub class: VcClass,
}

impl VcRole {
    /// Ordinary data packets, on a data-class VC: every mechanism has one.
    pub const DATA: VcRole = VcRole::new("data", VcClass::Data);

    pub const fn new(carries: &'static str, class: VcClass) -> VcRole {
        VcRole { carries, class }
    }
}

pub use crate::packet::MAX_HEADER_BYTES;

/// Which hooks a mechanism uses; the engine does not even prepare the arguments of the others.
/// Mechanisms write `Hooks { transmit: true, ..Hooks::NONE }`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hooks {
    pub switch_arrival: bool,
    pub queue_head: bool,
    pub request: bool,
    pub input_full: bool,
    pub transmit: bool,
    /// `on_transmit` reads the output's virtual output queues (`OutputView::voqs`): the switches
    /// count each one's bytes as packets come and go.
    pub voq_detail: bool,
    pub message: bool,
    pub inject_gate: bool,
    pub injected: bool,
    pub deliver: bool,
    pub control: bool,
    pub timer: bool,
}

impl Hooks {
    pub const NONE: Hooks = Hooks {
        switch_arrival: false,
        queue_head: false,
        request: false,
        input_full: false,
        transmit: false,
        voq_detail: false,
        message: false,
        inject_gate: false,
        injected: false,
        deliver: false,
        control: false,
        timer: false,
    };
}

/// Whether a NIC send queue may inject its next packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// Inject now on this VC.
    Now(Vc),
    /// Not before this time (a rate limiter); the NIC retries then.
    At(Time),
    /// Not until the mechanism changes its mind (a grant, an ACK); it wakes the NIC itself.
    Hold,
}

impl Gate {
    /// `Now(vc)` once `at` has come, `At(at)` before: the gate of a rate limiter.
    pub fn not_before(at: Time, now: Time, vc: Vc) -> Gate {
        if at > now {
            Gate::At(at)
        } else {
            Gate::Now(vc)
        }
    }
}

/// One control VC (0) above one data VC (1): the layout of the notification-based mechanisms
/// (ECN, IB CC, Santos et al.).
pub(crate) const CONTROL_AND_DATA_VCS: [VcRole; 2] = [VcRole::new("control packets", VcClass::Control), VcRole::DATA];

/// What a switch does with a packet that reached the head of its input queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Keep,
    /// Keep it, and ask again at this time if it is still waiting at the head (a deadline such
    /// as SRP's TTW runs on while the packet waits for its output).
    Recheck(Time),
    /// Drop it; the mechanism answers the source itself (e.g. SRP's NACK).
    Drop,
}

/// What the input buffer a packet's head enters already holds on its VC
/// (`Mechanism::on_switch_arrival`).
#[derive(Clone, Copy, Debug)]
pub struct Held {
    /// Bytes in the buffer (its output's share under per-output buffers).
    pub buffer: u32,
    /// Of those, bytes queued for the packet's output: its virtual output queue.
    pub voq: u32,
}

/// What lies beyond its input for a packet at the head of its queue, on its output VC
/// (`Mechanism::at_queue_head`).
#[derive(Clone, Copy, Debug)]
pub struct Beyond {
    /// Bytes the output buffer could still take.
    pub room: u32,
    /// The time the data queued in the output buffer and the downstream input buffer (credits
    /// in use), less what two link latencies carry (data on the wire, credits on their way
    /// back), takes to leave at the link's rate: a lower bound on the packet's wait there.
    pub drain: Time,
}

/// An output port as a mechanism sees it when a packet leaves through it.
#[derive(Clone, Copy, Debug)]
pub struct OutputView<'a> {
    /// Bytes waiting in the switch's input buffers for this output, on the packet's VC.
    pub queued_bytes: u32,
    /// Credits the downstream buffer has left for the packet's VC after this packet.
    pub downstream_credits: u32,
    /// Capacity of an input buffer (per port and VC).
    pub buffer_bytes: u32,
    /// The output leads to a host (a channel adapter), not to another switch.
    pub to_host: bool,
    /// The rate of the output's link.
    pub link_rate: Rate,
    /// With `Hooks::voq_detail` under virtual output queues: the output's VoQ in each input
    /// buffer, read through `voq_max_bytes`, `voq_sum_bytes` and `contributors`.
    pub voqs: Option<Voqs<'a>>,
    /// With `Hooks::voq_detail` and `input_queues = "fbicm"`: the fullest CFQ of the switch whose
    /// packets take this output and whose destination no CAM line of this output names, so
    /// that the congestion point is this output (CCFIT's root CFQs, thesis Paper V §IV-B); else 0.
    pub root_cfq_bytes: u32,
}

impl OutputView<'_> {
    /// The fullest virtual output queue for this output (bytes); without `voqs`,
    /// `queued_bytes`. A VoQ lets go of a packet when the crossbar takes it, while
    /// `queued_bytes` keeps it until its tail has crossed: at transmit time under cut-through it
    /// still counts the packet being sent.
    pub fn voq_max_bytes(&self) -> u32 {
        self.voqs.map_or(self.queued_bytes, |v| v.row.iter().copied().max().unwrap_or(0))
    }

    /// The VoQs' total (bytes); without `voqs`, `queued_bytes`.
    pub fn voq_sum_bytes(&self) -> u32 {
        self.voqs.map_or(self.queued_bytes, |v| v.row.iter().sum())
    }

    /// The inputs with bytes queued for this output; without `voqs`, 0.
    pub fn contributors(&self) -> u32 {
        self.voqs.map_or(0, |v| v.row.iter().filter(|&&b| b > 0).count() as u32)
    }
}

/// The bytes each input buffer of a switch (the local input last) holds for one output on
/// one VC, over the routing's phases: its virtual output queues. Read on demand, as a
/// mechanism needs them: IB CC asks for one figure, for data packets only, at every
/// transmit.
#[derive(Clone, Copy, Debug)]
pub struct Voqs<'a> {
    row: &'a [u32],
}

impl<'a> Voqs<'a> {
    /// The queues of `row`: bytes per input.
    pub fn new(row: &'a [u32]) -> Voqs<'a> {
        Voqs { row }
    }
}

/// A switch input VC's request for an output, for the packet at the head of its queue
/// (`Hooks::request`).
#[derive(Clone, Copy, Debug)]
pub struct Request {
    pub input: PortId,
    pub out: PortId,
    pub vc: Vc,
    /// The packet's destination (CBCM's per-destination contention at routers, §VI-A).
    pub dst: NodeId,
}

/// A send queue as a mechanism sees it.
#[derive(Clone, Copy, Debug)]
pub struct QueueView {
    /// The queue's slot, for `Ctx` calls about it: numbered in the order the thread's NICs
    /// opened their queues, so a slot number may differ when a run is split over threads.
    pub qp: QpId,
    /// The queue's number at its NIC, the same however a run is split: per-queue state that
    /// decides an order (of timers, of packets) or lives beyond the source is keyed by
    /// (`src`, `number`).
    pub number: u32,
    pub src: NodeId,
    pub dst: NodeId,
    /// The next packet is a retransmission handed back through `Ctx::retransmit`.
    pub retransmission: bool,
    /// Size in packets of the message at the head of the queue (0 if none).
    pub head_message_packets: u32,
    /// Packets of that message not yet injected.
    pub head_message_left: u32,
    /// The traffic class of the next packet (its index in `[[traffic]]`).
    pub head_class: ClassId,
    /// Rate of the source's injection link.
    pub link_rate: Rate,
}

pub trait Mechanism {
    /// The mechanism's packet header: its own fields, by name (whether a packet met congestion
    /// is `Packet::marked`, shared by all). At most `MAX_HEADER_BYTES`, so that packets stay the
    /// size they are on the hot path.
    type Header: Copy + Default + std::fmt::Debug;

    /// The hooks this mechanism implements.
    const HOOKS: Hooks;

    /// Whether `inject_gate` only reads state and answers with `data_vc()`. Then no answer can
    /// let a packet go while the data VC lacks credits for one, so the NIC does not ask: with
    /// hundreds of send queues per node, asking each of them after every event is most of the
    /// cost of a congested run.
    const GATE_ONLY_READS: bool = false;

    /// Whether the mechanism keeps a send queue's state from one message to the next (SRP's
    /// reservations): it then needs one queue per destination, and a run with
    /// `nic.send_queues = "per_flow"` is refused.
    const STATE_PER_DESTINATION_QUEUE: bool = false;

    /// Whether the mechanism times a message as its packet count times a packet of
    /// `nic.data_packet_bytes` (SRP's reservations, CBCM's generation rate): a class with
    /// smaller packets (`traffic[i].packet_bytes`) is then refused.
    const TIMES_PACKETS_AT_MTU: bool = false;

    /// Whether a run may be split over threads (`sim::parallel`): every hook reads and changes
    /// only the state of the NIC or switch it runs at, a timer fires where it was set, and the
    /// mechanism's random stream is not used. Each thread then keeps its own instance of the
    /// mechanism for its part of the network, and `merged_counters` adds up what they counted.
    /// A mechanism not yet shown to hold to this refuses `simulation.threads` above 1.
    const PARTITIONED: bool = false;

    /// The name used in results (`summary.json`'s `mechanism`).
    fn name(&self) -> &'static str;

    /// The virtual channels the network needs for this mechanism, in VC index order, with their
    /// default classes (`cc.vcs` may change the classes, not the number). The network gives
    /// data-class VCs the configured input queueing (`switch.input_queues`) and the others FIFOs.
    fn vcs(&self) -> Vec<VcRole>;

    /// The VC of ordinary data packets.
    fn data_vc(&self) -> Vc {
        0
    }

    /// A packet's head arrived at switch input `port` (timestamp it, count it, mark it).
    /// `held`: what the input buffer it enters already holds on its VC.
    fn on_switch_arrival(&mut self, _ctx: &mut Ctx<Self::Header>, _sw: SwitchId, _port: PortId, _pkt: &mut Packet<Self::Header>, _held: Held) {
        audit::default_ran(Hook::SwitchArrival)
    }

    /// A packet reached the head of its input queue and is about to compete for the crossbar,
    /// or is still waiting there at the time an earlier `Verdict::Recheck` named. The same
    /// packet may be asked several times, so the answer depends on the time, not on a count.
    fn at_queue_head(&mut self, _ctx: &mut Ctx<Self::Header>, _sw: SwitchId, _port: PortId, _pkt: &Packet<Self::Header>, _beyond: Beyond) -> Verdict {
        audit::default_ran(Hook::QueueHead);
        Verdict::Keep
    }

    /// An input VC of switch `sw` starts (`requesting`) or stops making `req`: a packet reached
    /// the head of that input VC's queue for `req.out`, or left it (granted the crossbar, or
    /// dropped). The requests an output has at a time are the switch allocation's view of
    /// contention (CBCM's contention degree, §IV-B1).
    fn on_request(&mut self, _ctx: &mut Ctx<Self::Header>, _sw: SwitchId, _req: Request, _requesting: bool) {
        audit::default_ran(Hook::Request)
    }

    /// Input buffer (port, VC) became full: an arrival's tail is in, no room is left for
    /// another data packet, and no packet of it is leaving across the crossbar (buffers fill
    /// flit by flit). `contents` lists the data packets it holds, as (uid, output port).
    fn on_input_full(&mut self, _ctx: &mut Ctx<Self::Header>, _sw: SwitchId, _port: PortId, _vc: Vc, _contents: &[(u64, PortId)]) {
        audit::default_ran(Hook::InputFull)
    }

    /// A packet starts leaving switch output `port` (read and rewrite header fields).
    fn on_transmit(&mut self, _ctx: &mut Ctx<Self::Header>, _sw: SwitchId, _port: PortId, _pkt: &mut Packet<Self::Header>, _out: OutputView) {
        audit::default_ran(Hook::Transmit)
    }

    /// A message entered a send queue.
    fn on_message(&mut self, _ctx: &mut Ctx<Self::Header>, _q: QueueView, _packets: u32) {
        audit::default_ran(Hook::Message)
    }

    /// May this send queue inject its next data packet now, and on which VC?
    fn inject_gate(&mut self, _ctx: &mut Ctx<Self::Header>, _q: QueueView) -> Gate {
        audit::default_ran(Hook::InjectGate);
        Gate::Now(self.data_vc())
    }

    /// Send queue `q` just emptied. Returning true lets the NIC recycle it (its `QpId` may then
    /// serve another destination); a mechanism that still needs per-queue state (a CCTI, a
    /// pending reservation) returns false and is asked again the next time the queue empties.
    /// Recycling keeps memory proportional to active queues, not to pairs ever used.
    fn release_queue(&mut self, _ctx: &mut Ctx<Self::Header>, _q: QueueView) -> bool {
        true
    }

    /// A data packet was just injected (stamp header fields, start timers).
    fn on_injected(&mut self, _ctx: &mut Ctx<Self::Header>, _q: QueueView, _pkt: &mut Packet<Self::Header>) {
        audit::default_ran(Hook::Injected)
    }

    /// A data packet was delivered at its destination NIC `node` (answer: ACK, CNP, grant...).
    fn on_deliver(&mut self, _ctx: &mut Ctx<Self::Header>, _node: NodeId, _pkt: &Packet<Self::Header>) {
        audit::default_ran(Hook::Deliver)
    }

    /// A control packet was delivered at NIC `node`.
    fn on_control(&mut self, _ctx: &mut Ctx<Self::Header>, _node: NodeId, _pkt: &Packet<Self::Header>) {
        audit::default_ran(Hook::Control)
    }

    /// A timer set through [`Ctx::set_timer`] fired.
    fn on_timer(&mut self, _ctx: &mut Ctx<Self::Header>, _token: u64) {
        audit::default_ran(Hook::Timer)
    }

    /// The mechanism's own counters (marks, notifications...), reported under `cc` in the
    /// summary.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// The counters of a run split over threads, from each thread's instance: by default their
    /// sums (a mechanism with a mean among its counters adds up its parts itself).
    fn merged_counters(parts: &[&Self]) -> Vec<(&'static str, u64)>
    where
        Self: Sized,
    {
        let mut all = parts.first().map(|m| m.counters()).unwrap_or_default();
        for m in &parts[1..] {
            for (total, (_, v)) in all.iter_mut().zip(m.counters()) {
                total.1 += v;
            }
        }
        all
    }
}

/// Mechanism `M`, registered as `name`, built through the registry on a minimal valid config
/// (a 2-host tree) with `settings` as its `[cc.NAME]` table: for mechanisms' unit tests.
#[cfg(test)]
pub(crate) fn test_build<M: Registered>(name: &str, settings: &str) -> M {
    let text = format!("[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 1\n[[traffic]]\npattern = \"uniform\"\nload = 0.1\n[cc]\nmechanism = \"{name}\"\n[cc.{name}]\n{settings}");
    let cfg = crate::config::Config::from_toml_str(&text, &[]).unwrap_or_else(|e| panic!("{e}"));
    registry::build::<M>(&cfg).unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::{OutputView, Voqs};
    use crate::time::Rate;

    /// The VoQ figures are read from the row when the view has one, and fall back to the
    /// output's queued bytes without.
    #[test]
    fn a_view_reads_its_voqs_on_demand() {
        // Three inputs and the local one: 0, 2048, 512 and 0 bytes for the output.
        let row = [0, 2048, 512, 0];
        let view = OutputView {
            queued_bytes: 3000,
            downstream_credits: 0,
            buffer_bytes: 8192,
            to_host: false,
            link_rate: Rate::from_gbps(10.0),
            voqs: Some(Voqs::new(&row)),
            root_cfq_bytes: 0,
        };
        assert_eq!((view.voq_max_bytes(), view.voq_sum_bytes(), view.contributors()), (2048, 2560, 2));
        let bare = OutputView { voqs: None, ..view };
        assert_eq!((bare.voq_max_bytes(), bare.voq_sum_bytes(), bare.contributors()), (3000, 3000, 0));
    }
}
