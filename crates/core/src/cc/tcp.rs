//! TCP Reno as an end-host transport (RFC 5681 with RFC 6298's retransmission timer), as the
//! ACCurate paper's baselines run it (§III: INET's TCP, "maximal receiver buffer capacity of
//! 21KB, no delayed ACKs, maximum segment size of 1500 Bytes and TCPreno congestion control"),
//! on lossy links (`flow_control.kind = "lossy"`) or lossless ones ("lossless TCP").
//!
//! - A connection is a send queue (one per message with `nic.send_queues = "per_flow"`, else the
//!   messages to one destination back to back). Its segments are the NIC's data packets
//!   (a class's `packet_bytes`, by default `nic.data_packet_bytes`, is its MSS), numbered from 0.
//! - The sender keeps at most min(cwnd, receiver window) segments unacknowledged. Slow start
//!   adds a segment per ACK, congestion avoidance 1/cwnd; three duplicate ACKs resend the oldest
//!   unacknowledged segment and enter fast recovery (ssthresh = max(FlightSize / 2, 2), cwnd =
//!   ssthresh + 3, one more per further duplicate), which the next new ACK ends (cwnd =
//!   ssthresh). A retransmission timeout sets cwnd to 1 and resends from the oldest
//!   unacknowledged segment on (go-back-N), doubling the timeout until an RTT is measured again
//!   (Karn: never on a resent segment).
//! - The receiver acknowledges every segment at once with the next segment it expects
//!   (cumulative; out-of-order segments are kept), as a control packet on the data VC: ACKs
//!   queue with data and a lossy switch may drop them.
//!
//! One VC: TCP has no priorities.

use super::{Ctx, Gate, Hooks, Mechanism, QueueView, Registered, Settings, VcRole};
use crate::config::limits::span_ns;
use crate::config::Config;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, QpId, Vc};
use crate::packet::{Packet, PacketKind};
use crate::time::{ps_from_ns, Time};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[cc.tcp]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// The receiver window in segments: 14, the ACCurate paper's 21 KB (§III) in 1,500-byte
    /// segments.
    pub receiver_window_segments: u32,
    /// The congestion window of a new connection: 1 segment (INET's TCP Reno, RFC 2581's initial
    /// window).
    pub initial_window_segments: u32,
    /// Duplicate ACKs that trigger fast retransmit: 3 (RFC 5681 §3.2).
    pub dupack_threshold: u32,
    /// The smallest retransmission timeout: 1 s (INET's TCP, after RFC 2988 §2.4).
    pub min_rto_ns: f64,
    /// The timeout before an RTT is measured: 3 s (RFC 2988 §2.1, INET's TCP).
    pub initial_rto_ns: f64,
    /// The largest timeout, after backing off: 240 s (INET's TCP: twice the maximum segment
    /// lifetime of RFC 1122).
    pub max_rto_ns: f64,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig { receiver_window_segments: 14, initial_window_segments: 1, dupack_threshold: 3, min_rto_ns: 1e9, initial_rto_ns: 3e9, max_rto_ns: 240e9 }
    }
}

impl Settings for TcpConfig {
    fn validate(&self) -> ConfigResult<()> {
        for (key, v) in [("receiver_window_segments", self.receiver_window_segments), ("initial_window_segments", self.initial_window_segments), ("dupack_threshold", self.dupack_threshold)] {
            if v == 0 {
                return Err(ConfigError::new(format!("cc.tcp.{key}"), "must be at least 1"));
            }
        }
        span_ns("cc.tcp.min_rto_ns", self.min_rto_ns)?;
        span_ns("cc.tcp.initial_rto_ns", self.initial_rto_ns)?;
        span_ns("cc.tcp.max_rto_ns", self.max_rto_ns)?;
        if self.max_rto_ns < self.min_rto_ns {
            return Err(ConfigError::new("cc.tcp.max_rto_ns", format!("must be at least min_rto_ns ({}), got {}", self.min_rto_ns, self.max_rto_ns)));
        }
        Ok(())
    }
}

const DATA_VC: Vc = 0;
/// Control packet subtype: an ACK.
const ACK: u8 = 1;

#[derive(Clone, Copy, Debug, Default)]
pub enum TcpHeader {
    /// Not yet sent: the sender numbers a segment as it first leaves.
    #[default]
    Unsent,
    Segment { conn: u64, seq: u32 },
    /// The next segment the receiver expects.
    Ack { conn: u64, next: u32 },
}

/// A connection's sender.
struct Sender {
    /// Its send queue's slot, for handing segments back to it.
    qp: QpId,
    src: NodeId,
    /// The oldest unacknowledged segment.
    una: u32,
    /// The next segment to send: below `high` while resending after a timeout.
    nxt: u32,
    /// One past the highest segment sent.
    high: u32,
    /// Copies of segments `una..high`, and whether each was sent more than once.
    unacked: VecDeque<(Packet<TcpHeader>, bool)>,
    cwnd: f64,
    ssthresh: f64,
    dupacks: u32,
    recovering: bool,
    /// Smoothed RTT and its variation, in ps, once measured.
    rtt: Option<(f64, f64)>,
    rto: Time,
    /// When the retransmission timer expires, while segments are unacknowledged.
    deadline: Option<Time>,
    /// The pending timer event, if any.
    timer_at: Option<Time>,
}

/// A connection's receiver: the next segment expected and those that came after a gap.
#[derive(Default)]
struct Receiver {
    next: u32,
    ahead: FxHashSet<u32>,
}

#[derive(Default)]
struct Counters {
    acks: u64,
    fast_retransmits: u64,
    timeouts: u64,
    connections: u64,
}

pub struct Tcp {
    window: u32,
    initial_window: f64,
    dupack_threshold: u32,
    min_rto: Time,
    initial_rto: Time,
    max_rto: Time,
    /// By connection (`conn`).
    senders: FxHashMap<u64, Sender>,
    receivers: FxHashMap<u64, Receiver>,
    c: Counters,
}

impl Registered for Tcp {
    const ABOUT: &'static str = "TCP Reno (RFC 5681, RFC 6298) as the ACCurate paper's baselines run it: windows, cumulative ACKs, fast retransmit and recovery, retransmission timeouts. One VC.";
    const DOC: &'static str = r##"RFC 5681 (Reno) and RFC 6298 (the retransmission timer), with the settings of the ACCurate
paper's TCP (§III: INET's, "maximal receiver buffer capacity of 21KB, no delayed ACKs, maximum
segment size of 1500 Bytes and TCPreno congestion control"). The MSS is a class's `packet_bytes`, by
default `nic.data_packet_bytes` (set it to 1500), and an ACK is `nic.control_packet_bytes` long (64, a minimum Ethernet frame).
With `flow_control.kind = "lossy"` switches drop segments and ACKs and TCP recovers them; under
credits or PFC nothing is lost ("lossless TCP").

| key | default | meaning |
|---|---|---|
| `receiver_window_segments` | `14` | The receiver window: the paper's 21 KB in 1,500-byte segments. |
| `initial_window_segments` | `1` | cwnd of a new connection (INET's Reno; RFC 2581). |
| `dupack_threshold` | `3` | Duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2). |
| `min_rto_ns` | `1000000000` | The smallest retransmission timeout: 1 s (INET; RFC 2988 §2.4). Datacenter stacks use far less (Linux 200 ms, DCTCP studies 10 ms or below). |
| `initial_rto_ns` | `3000000000` | The timeout before the first RTT sample: 3 s (RFC 2988 §2.1). |
| `max_rto_ns` | `240000000000` | The largest timeout after doubling: 240 s (INET; RFC 1122's 2 MSL). |

Choices the paper leaves open, and ours: a connection is a send queue (one per message with
`nic.send_queues = "per_flow"`), opened with its first message and closed once every segment
is acknowledged and the queue is empty, without handshakes; sequence numbers count segments;
the receiver keeps out-of-order segments (no SACK: the sender learns only the cumulative
point); after a timeout the sender resends from the oldest unacknowledged segment on, as the
window allows (go-back-N); the RTO's clock granularity is zero.
"##;
    type Settings = TcpConfig;

    fn new(_: &Config, s: TcpConfig) -> Tcp {
        Tcp {
            window: s.receiver_window_segments,
            initial_window: s.initial_window_segments as f64,
            dupack_threshold: s.dupack_threshold,
            min_rto: ps_from_ns(s.min_rto_ns),
            initial_rto: ps_from_ns(s.initial_rto_ns),
            max_rto: ps_from_ns(s.max_rto_ns),
            senders: FxHashMap::default(),
            receivers: FxHashMap::default(),
            c: Counters::default(),
        }
    }
}

impl Sender {
    /// Segments the sender may have outstanding.
    fn window(&self, receiver_window: u32) -> u32 {
        (self.cwnd as u32).clamp(1, receiver_window)
    }

    /// Starts the retransmission timer's event for the current deadline unless one is due
    /// before it (a timer that fires early re-arms itself).
    fn arm(&mut self, ctx: &mut Ctx<TcpHeader>, conn: u64) {
        if let Some(d) = self.deadline {
            if self.timer_at.is_none_or(|t| t > d) {
                ctx.set_timer(d, conn);
                self.timer_at = Some(d);
            }
        }
    }

    /// An RTT sample `r` (ps): RFC 6298 §2.2-2.3, clamped to the timeout's bounds.
    fn measured(&mut self, r: f64, min_rto: Time, max_rto: Time) {
        let (srtt, var) = match self.rtt {
            None => (r, r / 2.0),
            Some((s, v)) => (0.875 * s + 0.125 * r, 0.75 * v + 0.25 * (s - r).abs()),
        };
        self.rtt = Some((srtt, var));
        self.rto = ((srtt + 4.0 * var) as Time).clamp(min_rto, max_rto);
    }

    /// Hands the NIC the segments from `nxt` that the window now admits, while resending after
    /// a timeout.
    fn resend_admitted(&mut self, ctx: &mut Ctx<TcpHeader>, receiver_window: u32) {
        while self.nxt < self.high && self.nxt - self.una < self.window(receiver_window) {
            let (pkt, resent) = &mut self.unacked[(self.nxt - self.una) as usize];
            *resent = true;
            ctx.retransmit(self.src, self.qp, *pkt);
            self.nxt += 1;
        }
    }

    /// Resends the oldest unacknowledged segment now.
    fn resend_oldest(&mut self, ctx: &mut Ctx<TcpHeader>) {
        let (pkt, resent) = self.unacked.front_mut().expect("a segment is unacknowledged");
        *resent = true;
        ctx.retransmit(self.src, self.qp, *pkt);
    }
}

/// A connection: the source and its send queue's number there (`QueueView::number`), unique in
/// the run and the same however it is split over threads. It names the timer too, so timers due
/// at one instant fire in the order of their connections' numbers.
fn conn(q: &QueueView) -> u64 {
    (q.src.0 as u64) << 32 | q.number as u64
}

impl Tcp {
    fn on_ack(&mut self, ctx: &mut Ctx<TcpHeader>, conn: u64, next: u32) {
        let Some(s) = self.senders.get_mut(&conn) else { return };
        let now = ctx.now();
        if next > s.una {
            let mut sample = None;
            for _ in s.una..next {
                let (pkt, resent) = s.unacked.pop_front().expect("acknowledged segments were sent");
                ctx.settle(&pkt);
                sample = (!resent).then_some(pkt.injected);
            }
            if let Some(sent) = sample {
                s.measured((now - sent) as f64, self.min_rto, self.max_rto);
            }
            s.una = next;
            s.nxt = s.nxt.max(next);
            if s.recovering {
                (s.cwnd, s.recovering) = (s.ssthresh, false);
            } else if s.cwnd < s.ssthresh {
                s.cwnd += 1.0;
            } else {
                s.cwnd += 1.0 / s.cwnd;
            }
            s.dupacks = 0;
            // RFC 6298 §5.3: the timer restarts on an ACK of new data.
            s.deadline = (s.una < s.high).then_some(now + s.rto);
            s.arm(ctx, conn);
            s.resend_admitted(ctx, self.window);
            ctx.wake_nic(s.src);
            if s.una == s.high {
                ctx.offer_release(s.src, s.qp);
            }
        } else if next == s.una && s.una < s.high {
            s.dupacks += 1;
            if s.dupacks == self.dupack_threshold && !s.recovering {
                self.c.fast_retransmits += 1;
                s.ssthresh = ((s.high - s.una) as f64 / 2.0).max(2.0);
                s.cwnd = s.ssthresh + 3.0;
                s.recovering = true;
                s.resend_oldest(ctx);
            } else if s.recovering {
                s.cwnd += 1.0;
                ctx.wake_nic(s.src);
            }
        }
    }

    fn on_timeout(&mut self, ctx: &mut Ctx<TcpHeader>, conn: u64) {
        let now = ctx.now();
        let Some(s) = self.senders.get_mut(&conn).filter(|s| s.timer_at == Some(now)) else { return };
        s.timer_at = None;
        match s.deadline {
            Some(d) if d <= now => {}
            _ => return s.arm(ctx, conn),
        }
        self.c.timeouts += 1;
        s.ssthresh = ((s.high - s.una) as f64 / 2.0).max(2.0);
        (s.cwnd, s.recovering, s.dupacks) = (1.0, false, 0);
        s.rto = (s.rto * 2).min(self.max_rto);
        s.nxt = s.una;
        s.resend_admitted(ctx, self.window);
        s.deadline = Some(now + s.rto);
        s.arm(ctx, conn);
    }
}

impl Mechanism for Tcp {
    type Header = TcpHeader;
    const HOOKS: Hooks = Hooks { message: true, inject_gate: true, injected: true, deliver: true, control: true, timer: true, ..Hooks::NONE };
    const PARTITIONED: bool = true;
    const GATE_ONLY_READS: bool = true;

    fn name(&self) -> &'static str {
        "tcp"
    }

    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA]
    }

    fn on_message(&mut self, _: &mut Ctx<TcpHeader>, q: QueueView, _: u32) {
        if self.senders.contains_key(&conn(&q)) {
            return;
        }
        self.c.connections += 1;
        let s = Sender {
            qp: q.qp,
            src: q.src,
            una: 0,
            nxt: 0,
            high: 0,
            unacked: VecDeque::new(),
            cwnd: self.initial_window,
            ssthresh: f64::INFINITY,
            dupacks: 0,
            recovering: false,
            rtt: None,
            rto: self.initial_rto,
            deadline: None,
            timer_at: None,
        };
        self.senders.insert(conn(&q), s);
    }

    fn inject_gate(&mut self, _: &mut Ctx<TcpHeader>, q: QueueView) -> Gate {
        let Some(s) = self.senders.get(&conn(&q)) else { return Gate::Now(DATA_VC) };
        // Resent segments were admitted by the window when they were handed back.
        if q.retransmission || (s.nxt == s.high && s.high - s.una < s.window(self.window)) {
            Gate::Now(DATA_VC)
        } else {
            Gate::Hold
        }
    }

    fn on_injected(&mut self, ctx: &mut Ctx<TcpHeader>, q: QueueView, pkt: &mut Packet<TcpHeader>) {
        let conn = conn(&q);
        let Some(s) = self.senders.get_mut(&conn) else { return };
        if matches!(pkt.hdr, TcpHeader::Unsent) {
            pkt.hdr = TcpHeader::Segment { conn, seq: s.high };
            s.high += 1;
            s.nxt = s.high;
            ctx.track_copies(pkt);
            s.unacked.push_back((*pkt, false));
        }
        if s.deadline.is_none() {
            s.deadline = Some(ctx.now() + s.rto);
            s.arm(ctx, conn);
        }
    }

    fn release_queue(&mut self, _: &mut Ctx<TcpHeader>, q: QueueView) -> bool {
        let conn = conn(&q);
        let Some(s) = self.senders.get(&conn) else { return true };
        if s.una < s.high {
            return false; // `on_ack` offers it again once all is acknowledged
        }
        // The receiver's state goes with the connection where the receiver is in this thread;
        // in a run split over threads the other thread keeps it (a few bytes per connection,
        // never used again: connections are not renumbered).
        self.receivers.remove(&conn);
        self.senders.remove(&conn);
        true
    }

    fn on_deliver(&mut self, ctx: &mut Ctx<TcpHeader>, node: NodeId, pkt: &Packet<TcpHeader>) {
        let TcpHeader::Segment { conn, seq } = pkt.hdr else { return };
        let r = self.receivers.entry(conn).or_default();
        if seq == r.next {
            r.next += 1;
            while r.ahead.remove(&r.next) {
                r.next += 1;
            }
        } else if seq > r.next {
            r.ahead.insert(seq);
        }
        self.c.acks += 1;
        ctx.send_control(node, pkt.src, DATA_VC, ACK, TcpHeader::Ack { conn, next: r.next });
    }

    fn on_control(&mut self, ctx: &mut Ctx<TcpHeader>, _: NodeId, pkt: &Packet<TcpHeader>) {
        if let (PacketKind::Control(ACK), TcpHeader::Ack { conn, next }) = (pkt.kind, pkt.hdr) {
            self.on_ack(ctx, conn, next);
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<TcpHeader>, token: u64) {
        self.on_timeout(ctx, token);
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let open = self.senders.len() as u64;
        vec![("acks", self.c.acks), ("fast_retransmits", self.c.fast_retransmits), ("timeouts", self.c.timeouts), ("connections", self.c.connections), ("open_connections", open)]
    }
}
