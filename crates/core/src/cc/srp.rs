//! Speculative Reservation Protocol (Jiang, Becker, Michelogiannakis, Dally, HPCA 2012; §3, §6.6,
//! Table 1).
//!
//! - Source, per send queue: a message of at least n_min packets is sent in reservations of at
//!   most n_max packets ("chunking"). For each, a reservation R(n) goes out on the reservation
//!   VC and packets follow speculatively on the low-priority VC until the grant G(t_s) or the
//!   first NACK arrives; the rest, dropped packets first, go non-speculatively on the data VC
//!   from t_s. Speculative packets are kept until ACKed. The next reservation starts when every
//!   packet of this one is sent and no speculative packet is unanswered; a message's first
//!   reservation has gone out as the message arrived (`early_reservation`, the authors'
//!   BookSim), so it may be granted before its data reaches the head of the send queue. Shorter
//!   messages bypass the protocol.
//! - Destination: one reservation schedule register; a reservation for n packets is granted the
//!   start t_s = max(now, register) and moves the register to t_s + n(1 + epsilon) tau_p,
//!   tau_p being a packet's time on the ejection channel. Speculative packets are ACKed.
//! - Switches: the TTW bounds a speculative packet's "total accumulated queuing time" (§3), the
//!   time it waited in input buffers (`Packet::queued`); routers time-stamp "packets upon
//!   arrival at a router's input port and then [perform] checks on this timestamp when the
//!   packet is at the head of the input buffer". The check holds for as long as the packet
//!   waits at the head, as in the authors' BookSim, where a head waiting for its output is
//!   checked at every allocation attempt: once the TTW is used up there, the packet is dropped
//!   and the switch answers the source with a NACK (§6.6).
//!
//! VCs (§4): reservations (0) and grants/ACKs/NACKs (1) on two control VCs above the data VC
//! (2, VOQ), and the speculative VC (3, FIFO) below it.
//!
//! Options the paper discusses (off by default, as in its experiments): the in-order mode (§3)
//! resends, at t_s, every speculative packet still unanswered; fast retransmit (§6.1) resends
//! them once every other packet of the reservation is sent. Either may deliver a packet twice;
//! the receiver counts the second arrival as a duplicate.

use super::{Beyond, Ctx, Gate, Held, Hooks, Mechanism, QueueView, Registered, Settings, VcClass, VcRole, Verdict};
use crate::config::Config;
use crate::ids::{NodeId, PortId, QpId, SwitchId, Vc};
use crate::packet::{Packet, PacketKind};
use crate::time::{ps, ps_from_ns, Rate, Time};
use crate::config::limits::{in_range, span_ns};
use crate::error::{ConfigError, ConfigResult};
use serde::{Deserialize, Serialize};

/// `[cc.srp]`: SRP paper Table 1.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SrpConfig {
    /// epsilon: reservation overhead adjustment: 0.05.
    pub epsilon: f64,
    /// TTW: time a speculative packet may spend queued in the network: 1.3 us.
    pub ttw_ns: f64,
    /// n_max: reservation granularity: 16 packets.
    pub n_max: u32,
    /// n_min: messages shorter than this bypass reservation: 4 packets.
    pub n_min: u32,
    /// In-order mode (§3): at t_s, resend every speculative packet still unanswered, so packets
    /// arrive in order at the cost of duplicates. Off in the paper's experiments.
    pub in_order: bool,
    /// Fast retransmit (§6.1): resend the unanswered speculative packets once every other
    /// packet of the reservation is sent. Off in the paper's experiments.
    pub fast_retransmit: bool,
    /// A message's (first) reservation leaves as soon as the message exists, ahead of its data
    /// and of the earlier messages still waiting in its send queue: the authors' BookSim
    /// ("fast" reservation transmit, in the version of the paper's final configuration files).
    /// The paper's time diagrams (§3) show one message and are silent. False: the reservation
    /// leaves when the message's data is first offered the link.
    pub early_reservation: bool,
    /// Whether a speculative packet at the head of its input queue is also dropped before its
    /// TTW is used up. The paper (§3) drops on the TTW only.
    pub early_drop: EarlyDrop,
}

/// `cc.srp.early_drop`: when a speculative packet that has not yet queued for its TTW is
/// dropped at the head of its input queue.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EarlyDrop {
    /// Never: the TTW alone (§3).
    #[default]
    Off,
    /// When its queuing so far plus the time the data ahead of it on its output VC takes to
    /// drain at the link rate (the output buffer and the downstream input buffer, less what two
    /// link latencies carry) passes the TTW: it would time out downstream. The authors' BookSim
    /// (December 2011, `reservation_buffer_size_drop`), which checks it at every VC allocation
    /// attempt; here it is checked as the packet reaches the head and when its TTW runs out.
    Predicted,
    /// When the output buffer of its VC has no room for it: the speculative drops the CBCM
    /// paper's SRP shows in UR-UR traffic (§V), where no packet of ours waits a 2,000-cycle TTW.
    OutputFull,
}

impl Default for SrpConfig {
    fn default() -> Self {
        SrpConfig { epsilon: 0.05, ttw_ns: 1_300.0, n_max: 16, n_min: 4, in_order: false, fast_retransmit: false, early_reservation: true, early_drop: EarlyDrop::Off }
    }
}

impl Settings for SrpConfig {
    fn validate(&self) -> ConfigResult<()> {
        // Reservations of (1 + epsilon) packet times: a hundredfold overhead is already absurd.
        in_range("cc.srp.epsilon", self.epsilon, 0.0, 100.0, "(a fraction of the reserved time)")?;
        span_ns("cc.srp.ttw_ns", self.ttw_ns)?;
        if self.n_max == 0 {
            return Err(ConfigError::new("cc.srp.n_max", "must be at least 1 packet"));
        }
        if self.n_min > self.n_max {
            return Err(ConfigError::new("cc.srp.n_min", format!("({}) must not exceed n_max ({})", self.n_min, self.n_max)));
        }
        Ok(())
    }
}

const RESERVATION_VC: Vc = 0;
const REPLY_VC: Vc = 1;
const DATA_VC: Vc = 2;
const SPECULATIVE_VC: Vc = 3;

// Control packet subtypes.
const RESERVATION: u8 = 1;
const GRANT: u8 = 2;
const ACK: u8 = 3;
const NACK: u8 = 4;

/// SRP's header fields (§3, §6.6), by packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SrpHeader {
    /// A data packet sent under its reservation, bypassing reservation, or resent.
    #[default]
    Plain,
    /// A speculative data packet, numbered within its send queue so that its ACK or NACK finds
    /// the retained copy; and the channels it has crossed (what its drop wastes).
    Speculative { seq: u32, channels: u8 },
    /// Send queue `qp` reserves `packets` at the destination for its chunk `chunk`.
    Reservation { qp: QpId, chunk: u32, packets: u32 },
    /// The destination's answer to a reservation: the chunk may start at `start`.
    Grant { qp: QpId, chunk: u32, start: Time },
    /// The answer to speculative packet `seq` of send queue `qp`: delivered (ACK) or dropped
    /// (NACK).
    Answer { qp: QpId, seq: u32 },
}

pub struct Srp {
    epsilon: f64,
    ttw: Time,
    n_min: u32,
    n_max: u32,
    in_order: bool,
    fast_retransmit: bool,
    early_reservation: bool,
    early_drop: EarlyDrop,
    /// A data packet's time on an ejection channel.
    tau_p: Time,
    router_latency: Time,
    queues: Vec<Queue>,
    /// Reservation schedule register of each destination.
    schedule: Vec<Time>,
    c: Counters,
}

#[derive(Default, Clone, Copy)]
struct Counters {
    reservations: u64,
    grants: u64,
    speculative_injected: u64,
    speculative_delivered: u64,
    speculative_dropped: u64,
    nacks: u64,
    bypassed: u64,
    resent_early: u64,
    reservation_rtt_ps: u64,
    /// Bytes of dropped speculative packets times the channels each crossed before its drop.
    dropped_channel_bytes: u64,
}

/// What the gate let the next packet of a queue be.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Kind {
    #[default]
    Bypass,
    Speculative,
    Reserved,
    Retransmission,
}

#[derive(Default)]
struct Queue {
    chunk: Option<Chunk>,
    /// First reservations of messages not started yet, in message order (`early_reservation`).
    ahead: std::collections::VecDeque<Chunk>,
    next_chunk: u32,
    next_seq: u32,
    /// Speculative packets not yet ACKed or NACKed, by sequence number, and whether a copy was
    /// already resent (in-order mode, fast retransmit).
    retained: Vec<(u32, Packet<SrpHeader>, bool)>,
    /// The gate's last decision, which the packet injected next follows.
    kind: Kind,
}

/// One reservation in progress.
struct Chunk {
    id: u32,
    n: u32,
    /// New packets of the reservation injected so far (speculative or not).
    sent: u32,
    reserved_at: Time,
    start: Option<Time>,
    speculation_over: bool,
    /// Speculative packets awaiting ACK or NACK.
    unanswered: u32,
    /// NACKed packets handed back and not yet re-sent.
    to_resend: u32,
    /// The in-order mode's resend at t_s is done.
    resent_at_start: bool,
}

impl Counters {
    fn table(&self) -> Vec<(&'static str, u64)> {
        let c = self;
        vec![
            ("reservations", c.reservations),
            ("grants", c.grants),
            ("speculative_injected", c.speculative_injected),
            ("speculative_delivered", c.speculative_delivered),
            ("speculative_dropped", c.speculative_dropped),
            ("nacks", c.nacks),
            ("bypassed", c.bypassed),
            ("resent_early", c.resent_early),
            ("speculative_dropped_channel_bytes", c.dropped_channel_bytes),
            ("reservation_rtt_ns_mean", c.reservation_rtt_ps.checked_div(c.grants).unwrap_or(0) / 1_000),
        ]
    }

    fn absorb(&mut self, o: &Counters) {
        let Counters { reservations, grants, speculative_injected, speculative_delivered, speculative_dropped, nacks, bypassed, resent_early, reservation_rtt_ps, dropped_channel_bytes } = *o;
        self.reservations += reservations;
        self.grants += grants;
        self.speculative_injected += speculative_injected;
        self.speculative_delivered += speculative_delivered;
        self.speculative_dropped += speculative_dropped;
        self.nacks += nacks;
        self.bypassed += bypassed;
        self.resent_early += resent_early;
        self.reservation_rtt_ps += reservation_rtt_ps;
        self.dropped_channel_bytes += dropped_channel_bytes;
    }
}

impl Registered for Srp {
    const ABOUT: &'static str = "The Speculative Reservation Protocol (SRP paper §3, §6.6): two control VCs (0 reservations, 1 grants, ACKs and NACKs) above the data VC (2) above the speculative VC (3).";
    const DOC: &'static str = r##"SRP paper Table 1.

| key | default | meaning |
|---|---|---|
| `epsilon` | `0.05` | Reservation overhead adjustment: a reservation of n packets moves the destination's schedule by n(1+epsilon) packet times. |
| `ttw_ns` | `1300` | Time-to-wait: a speculative packet whose accumulated queuing (time in routers beyond the pipeline latency) exceeds it when it reaches the head of an input queue is dropped, and the switch NACKs it. |
| `n_max` | `16` | Reservation granularity: longer messages are reserved in chunks of n_max packets. |
| `n_min` | `4` | Messages shorter than this bypass reservation (sent as in the baseline). Must not exceed `n_max`. |
| `in_order` | `false` | §3's in-order mode: at t_s every speculative packet still unanswered is resent, ahead of the rest, so packets arrive in order; a resent packet whose original also arrives is counted once (`counters.duplicates`). |
| `fast_retransmit` | `false` | §6.1's fast retransmit: unanswered speculative packets are resent once every other packet of the reservation is sent. |
| `early_reservation` | `true` | A message's first reservation leaves as soon as the message exists, ahead of its data and of earlier messages still in its send queue (the authors' BookSim, December 2011: "fast" reservation transmit; the paper is silent). `false`: when the message's data is first offered the link. |
| `early_drop` | `"off"` | When a speculative packet at the head of its input queue is dropped before its TTW is used up: `"off"`, never (the paper, §3); `"predicted"`, when its queuing so far plus the time the data ahead of it on its output VC (output buffer and downstream input buffer, less what two link latencies carry) takes to drain at the link rate passes the TTW (the authors' BookSim, December 2011); `"output_full"`, when the output buffer of its VC has no room for it (what the CBCM paper's SRP drops in UR-UR traffic need, docs/validation.md). |
"##;
    type Settings = SrpConfig;

    fn new(cfg: &Config, settings: SrpConfig) -> Srp {
        let s = &settings;
        Srp {
            epsilon: s.epsilon,
            ttw: ps_from_ns(s.ttw_ns),
            n_min: s.n_min,
            n_max: s.n_max,
            in_order: s.in_order,
            fast_retransmit: s.fast_retransmit,
            early_reservation: s.early_reservation,
            early_drop: s.early_drop,
            tau_p: Rate::from_gbps(cfg.topology.link().host_gbps()).serialization(cfg.nic.data_packet_bytes),
            router_latency: ps_from_ns(cfg.switch.router_latency_ns),
            queues: Vec::new(),
            schedule: Vec::new(),
            c: Counters::default(),
        }
    }
}

impl Srp {
    fn queue(&mut self, qp: QpId) -> &mut Queue {
        if self.queues.len() <= qp.idx() {
            self.queues.resize_with(qp.idx() + 1, Queue::default);
        }
        &mut self.queues[qp.idx()]
    }

    /// Sends a reservation for `n` packets of send queue `v.qp` and returns its chunk.
    fn reserve(&mut self, ctx: &mut Ctx<SrpHeader>, v: &QueueView, n: u32) -> Chunk {
        let q = self.queue(v.qp);
        let id = q.next_chunk;
        q.next_chunk = q.next_chunk.wrapping_add(1);
        ctx.send_control(v.src, v.dst, RESERVATION_VC, RESERVATION, SrpHeader::Reservation { qp: v.qp, chunk: id, packets: n });
        self.c.reservations += 1;
        Chunk { id, n, sent: 0, reserved_at: ctx.now(), start: None, speculation_over: false, unanswered: 0, to_resend: 0, resent_at_start: false }
    }

    /// Ends the reservation once all its packets are out and none is unanswered.
    fn try_close(&mut self, ctx: &mut Ctx<SrpHeader>, node: NodeId, qp: QpId) {
        let q = self.queue(qp);
        if q.chunk.as_ref().is_some_and(|c| c.sent == c.n && c.unanswered == 0 && c.to_resend == 0) {
            q.chunk = None;
            ctx.wake_nic(node);
        }
    }

    /// Resends a copy of every unanswered speculative packet of `qp` not resent yet (§3 in-order
    /// mode, §6.1 fast retransmit). The originals stay unanswered until their ACK or NACK.
    fn resend_outstanding(&mut self, ctx: &mut Ctx<SrpHeader>, node: NodeId, qp: QpId) {
        let q = self.queue(qp);
        let mut copies = Vec::new();
        for (_, pkt, resent) in q.retained.iter_mut().filter(|(_, _, r)| !*r) {
            *resent = true;
            copies.push(Packet { hdr: SrpHeader::Plain, ..*pkt });
        }
        if let Some(c) = q.chunk.as_mut() {
            c.to_resend += copies.len() as u32;
        }
        self.c.resent_early += copies.len() as u64;
        for copy in copies {
            ctx.retransmit(node, qp, copy);
        }
    }
}

fn is_speculative(pkt: &Packet<SrpHeader>) -> bool {
    matches!(pkt.hdr, SrpHeader::Speculative { .. })
}

impl Mechanism for Srp {
    type Header = SrpHeader;
    const HOOKS: Hooks = Hooks { switch_arrival: true, queue_head: true, inject_gate: true, injected: true, deliver: true, control: true, message: true, ..Hooks::NONE };
    const PARTITIONED: bool = true;
    const STATE_PER_DESTINATION_QUEUE: bool = true;
    const TIMES_PACKETS_AT_MTU: bool = true;

    fn name(&self) -> &'static str {
        "srp"
    }

    fn vcs(&self) -> Vec<VcRole> {
        vec![
            VcRole::new("reservations", VcClass::Control),
            VcRole::new("grants, ACKs and NACKs", VcClass::Control),
            VcRole::DATA,
            VcRole::new("speculative packets", VcClass::Low),
        ]
    }

    fn data_vc(&self) -> Vc {
        DATA_VC
    }

    fn on_switch_arrival(&mut self, _: &mut Ctx<SrpHeader>, _: SwitchId, _: PortId, pkt: &mut Packet<SrpHeader>, _: Held) {
        if let SrpHeader::Speculative { channels, .. } = &mut pkt.hdr {
            *channels = channels.saturating_add(1);
        }
    }

    fn at_queue_head(&mut self, ctx: &mut Ctx<SrpHeader>, sw: SwitchId, _: PortId, pkt: &Packet<SrpHeader>, beyond: Beyond) -> Verdict {
        if !is_speculative(pkt) {
            return Verdict::Keep;
        }
        let queued = pkt.queued_until(ctx.now(), self.router_latency);
        let early = match self.early_drop {
            EarlyDrop::Off => false,
            EarlyDrop::Predicted => queued + beyond.drain > self.ttw,
            EarlyDrop::OutputFull => beyond.room < pkt.bytes,
        };
        if queued <= self.ttw && !early {
            // The first instant at which the packet would have queued longer than the TTW.
            return Verdict::Recheck(ctx.now() + (self.ttw - queued) + 1);
        }
        self.c.speculative_dropped += 1;
        let SrpHeader::Speculative { seq, channels } = pkt.hdr else { unreachable!("only speculative packets are dropped") };
        self.c.dropped_channel_bytes += pkt.bytes as u64 * channels as u64;
        ctx.send_control_from_switch(sw, pkt.src, REPLY_VC, NACK, SrpHeader::Answer { qp: pkt.qp, seq });
        Verdict::Drop
    }

    fn inject_gate(&mut self, ctx: &mut Ctx<SrpHeader>, v: QueueView) -> Gate {
        let now = ctx.now();
        let (n_min, n_max, in_order, early_reservation) = (self.n_min, self.n_max, self.in_order, self.early_reservation);
        let q = self.queue(v.qp);
        let when_reserved = |start: Option<Time>| match start {
            Some(t) if t <= now => Gate::Now(DATA_VC),
            Some(t) => Gate::At(t),
            None => Gate::Hold, // the grant wakes the NIC
        };
        if v.retransmission {
            q.kind = Kind::Retransmission;
            return when_reserved(q.chunk.as_ref().and_then(|c| c.start));
        }
        if v.head_message_packets < n_min {
            q.kind = Kind::Bypass;
            return Gate::Now(DATA_VC);
        }
        if q.chunk.is_none() {
            // A message not started has its first reservation out already (`on_message`).
            let early = early_reservation && v.head_message_left == v.head_message_packets;
            let chunk = match early {
                true => q.ahead.pop_front().expect("a message not started was reserved when it came"),
                false => self.reserve(ctx, &v, v.head_message_left.min(n_max)),
            };
            self.queue(v.qp).chunk = Some(chunk);
        }
        let q = self.queue(v.qp);
        let c = q.chunk.as_ref().expect("just made");
        if c.sent == c.n {
            q.kind = Kind::Reserved;
            return Gate::Hold; // the next reservation waits for this one to close
        }
        if c.start.is_some() {
            q.kind = Kind::Reserved;
            let started = c.start.is_some_and(|t| t <= now);
            if started && in_order && !c.resent_at_start {
                // At t_s the unanswered speculative packets go again, ahead of the rest.
                q.chunk.as_mut().expect("present").resent_at_start = true;
                self.resend_outstanding(ctx, v.src, v.qp);
                return Gate::Hold; // the resent copies wake the NIC
            }
            when_reserved(c.start)
        } else if !c.speculation_over {
            q.kind = Kind::Speculative;
            Gate::Now(SPECULATIVE_VC)
        } else {
            q.kind = Kind::Reserved;
            Gate::Hold
        }
    }

    fn on_injected(&mut self, ctx: &mut Ctx<SrpHeader>, v: QueueView, pkt: &mut Packet<SrpHeader>) {
        let resends = self.in_order || self.fast_retransmit;
        let q = self.queue(v.qp);
        match q.kind {
            Kind::Bypass => self.c.bypassed += 1,
            Kind::Retransmission => {
                if let Some(c) = q.chunk.as_mut() {
                    c.to_resend -= 1;
                }
            }
            Kind::Reserved => q.chunk.as_mut().expect("gated by a reservation").sent += 1,
            Kind::Speculative => {
                let seq = q.next_seq;
                q.next_seq = q.next_seq.wrapping_add(1);
                pkt.hdr = SrpHeader::Speculative { seq, channels: 0 };
                q.retained.push((seq, *pkt, false));
                if resends {
                    ctx.track_copies(pkt);
                }
                let c = q.chunk.as_mut().expect("gated by a reservation");
                c.sent += 1;
                c.unanswered += 1;
                self.c.speculative_injected += 1;
            }
        }
        let all_sent = self.queue(v.qp).chunk.as_ref().is_some_and(|c| c.sent == c.n);
        if self.fast_retransmit && all_sent {
            self.resend_outstanding(ctx, v.src, v.qp);
        }
        // The last packet may have gone non-speculatively after every ACK was in.
        self.try_close(ctx, v.src, v.qp);
    }

    fn on_message(&mut self, ctx: &mut Ctx<SrpHeader>, v: QueueView, packets: u32) {
        if self.early_reservation && packets >= self.n_min {
            let chunk = self.reserve(ctx, &v, packets.min(self.n_max));
            self.queue(v.qp).ahead.push_back(chunk);
        }
    }

    fn release_queue(&mut self, _: &mut Ctx<SrpHeader>, v: QueueView) -> bool {
        let q = self.queue(v.qp);
        let idle = q.chunk.is_none() && q.ahead.is_empty() && q.retained.is_empty();
        if idle {
            *q = Queue::default();
        }
        idle
    }

    fn on_deliver(&mut self, ctx: &mut Ctx<SrpHeader>, node: NodeId, pkt: &Packet<SrpHeader>) {
        if let SrpHeader::Speculative { seq, .. } = pkt.hdr {
            self.c.speculative_delivered += 1;
            ctx.send_control(node, pkt.src, REPLY_VC, ACK, SrpHeader::Answer { qp: pkt.qp, seq });
        }
    }

    fn on_control(&mut self, ctx: &mut Ctx<SrpHeader>, node: NodeId, pkt: &Packet<SrpHeader>) {
        let now = ctx.now();
        match (pkt.kind, pkt.hdr) {
            (PacketKind::Control(RESERVATION), SrpHeader::Reservation { qp, chunk, packets }) => {
                if self.schedule.len() <= node.idx() {
                    self.schedule.resize(node.idx() + 1, 0);
                }
                let start = now.max(self.schedule[node.idx()]);
                self.schedule[node.idx()] = start + ps(packets as f64 * (1.0 + self.epsilon) * self.tau_p as f64);
                ctx.send_control(node, pkt.src, REPLY_VC, GRANT, SrpHeader::Grant { qp, chunk, start });
            }
            (PacketKind::Control(GRANT), SrpHeader::Grant { qp, chunk, start }) => {
                let q = self.queue(qp);
                if let Some(c) = q.chunk.iter_mut().chain(q.ahead.iter_mut()).find(|c| c.id == chunk) {
                    c.start = Some(start);
                    c.speculation_over = true;
                    let rtt = now - c.reserved_at;
                    self.c.grants += 1;
                    self.c.reservation_rtt_ps += rtt;
                    ctx.wake_nic(node);
                }
            }
            (PacketKind::Control(ACK), SrpHeader::Answer { qp, seq }) => {
                let q = self.queue(qp);
                if let Some(i) = q.retained.iter().position(|(s, _, _)| *s == seq) {
                    let (_, original, _) = q.retained.swap_remove(i);
                    ctx.settle(&original);
                    if let Some(c) = q.chunk.as_mut() {
                        c.unanswered -= 1;
                    }
                    self.try_close(ctx, node, qp);
                }
            }
            (PacketKind::Control(NACK), SrpHeader::Answer { qp, seq }) => {
                let q = self.queue(qp);
                if let Some(i) = q.retained.iter().position(|(s, _, _)| *s == seq) {
                    let (_, mut copy, resent) = q.retained.swap_remove(i);
                    ctx.settle(&copy);
                    let c = q.chunk.as_mut().expect("an unanswered packet keeps its reservation open");
                    c.unanswered -= 1;
                    c.speculation_over = true;
                    if !resent {
                        c.to_resend += 1;
                        copy.hdr = SrpHeader::Plain;
                        ctx.retransmit(node, qp, copy);
                    }
                    self.c.nacks += 1;
                }
            }
            _ => {}
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.c.table()
    }

    /// The sums of the threads' counters, the mean round trip over all their grants.
    fn merged_counters(parts: &[&Self]) -> Vec<(&'static str, u64)> {
        let mut all = Counters::default();
        for p in parts {
            all.absorb(&p.c);
        }
        all.table()
    }
}
