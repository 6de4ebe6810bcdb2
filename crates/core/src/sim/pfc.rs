//! Priority flow control (`flow_control.kind = "pfc"`, IEEE 802.1Qbb): instead of credits, a
//! switch input buffer holding more than XOFF bytes on a VC sends a PAUSE upstream, and one that
//! drains to XON a resume. The sender learns it a channel latency and a frame later, and starts
//! no packet on that VC until the resume arrives or the PAUSE's quanta run out; the receiver
//! refreshes a PAUSE at half its time while it still holds its sender. A sender's credit counter
//! is then a flag: `OPEN` or 0.
//!
//! Lossless only with headroom: after the buffer crosses XOFF it must still take what the sender
//! sends until the PAUSE arrives. The thresholds are checked against every channel when the
//! network is built (`Pfc::for_network`), so a buffer never overflows (the invariants check it).

use super::{FlowControl, Sim};
use crate::cc::Mechanism;
use crate::config::{Config, FlowControlConfig};
use crate::event::Event;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{ChannelId, Endpoint, PortId, SwitchId, Vc};
use crate::time::{ps_from_ns, Time};
use crate::topology::{Channel, Topology};

/// A sender's credits while it may send: more than any packet, never counted down.
pub(super) const OPEN: u32 = u32::MAX / 2;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Pfc {
    xoff: u32,
    xon: u32,
    frame_bytes: u32,
    quanta: u16,
}

/// One channel's VC under PFC.
#[derive(Clone, Copy, Default)]
pub(crate) struct PfcVc {
    /// The receiver holds its sender paused: it sent a PAUSE and no resume since.
    paused: bool,
    /// When the receiver refreshes that PAUSE (an earlier refresh event is stale).
    refresh_at: Time,
    /// Until when the sender is paused, by the frames that reached it.
    until: Time,
}

impl Pfc {
    /// How long a PAUSE holds the sender on `c`: its quanta of 512 bit times (64 bytes).
    fn pause_time(self, c: &Channel) -> Time {
        c.rate.serialization(u32::from(self.quanta) * 64)
    }

    /// The time a frame takes to reach the sender on `c`.
    fn flight(self, c: &Channel) -> Time {
        c.latency + c.rate.serialization(self.frame_bytes)
    }
}

impl Pfc {
    /// The thresholds of `cfg` (`None` under credits), checked against every channel of `topo`.
    pub(super) fn for_network(cfg: &Config, topo: &Topology, in_cap: u32) -> ConfigResult<Option<Pfc>> {
        let FlowControlConfig::Pfc { xoff_bytes, xon_bytes, pause_frame_bytes, pause_quanta } = cfg.flow_control else { return Ok(None) };
        if pause_frame_bytes == 0 {
            return Err(ConfigError::new("flow_control.pause_frame_bytes", "a PAUSE frame takes time on the wire: give at least 1 byte (64, IEEE 802.3's minimum frame, by default)"));
        }
        let packet = cfg.nic.data_packet_bytes;
        let router = ps_from_ns(cfg.switch.router_latency_ns);
        // Bytes that may still arrive once the buffer is past XOFF: the head that crossed it is
        // counted a router pipeline after it came in, while more streams in; the PAUSE takes the
        // channel and its own serialization to arrive, while the link holds a channel's worth
        // in flight; the sender finishes the packet it started; one more packet for rounding.
        let headroom = topo
            .channels
            .iter()
            .filter(|c| matches!(c.to, Endpoint::Switch(..)))
            .map(|c| {
                let window: Time = router + 2 * c.latency + c.rate.serialization(pause_frame_bytes);
                (window as u128 * c.rate.mbps as u128).div_ceil(8_000_000) as u32 + 2 * packet
            })
            .max()
            .unwrap_or(0);
        let room = in_cap.saturating_sub(headroom);
        if room < packet {
            return Err(ConfigError::new(
                "switch.input_buffer_bytes",
                format!("PFC needs {headroom} bytes of headroom on the longest link, and XOFF at least one data packet ({packet} bytes) below it: give input buffers at least {} bytes", headroom + packet),
            ));
        }
        let xoff = xoff_bytes.unwrap_or(room);
        if xoff > room || xoff < packet {
            return Err(ConfigError::new(
                "flow_control.xoff_bytes",
                format!("must be between one data packet ({packet}) and {room} bytes (the input buffer, {in_cap}, less the {headroom} bytes the longest link can still deliver after a PAUSE), got {xoff}"),
            ));
        }
        let xon = xon_bytes.unwrap_or(xoff.saturating_sub(2 * packet));
        if xon > xoff {
            return Err(ConfigError::new("flow_control.xon_bytes", format!("must be at most xoff_bytes ({xoff}), got {xon}")));
        }
        let pfc = Pfc { xoff, xon, frame_bytes: pause_frame_bytes, quanta: pause_quanta };
        // Refreshes come every half PAUSE: more often than one takes to arrive, they would stack
        // up on the reverse channel, whose time the model does not charge them.
        if let Some((ch, c)) =
            topo.channels.iter().enumerate().filter(|(_, c)| matches!(c.to, Endpoint::Switch(..))).find(|(_, c)| pfc.pause_time(c) <= 2 * pfc.flight(c))
        {
            let quantum = c.rate.serialization(64).max(1);
            return Err(ConfigError::new(
                "flow_control.pause_quanta",
                format!(
                    "a PAUSE of {pause_quanta} quanta lasts {} ns on {}: refreshed every half of that, frames would be sent faster than each takes to arrive ({} ns); give at least {} quanta",
                    pfc.pause_time(c) as f64 / 1e3,
                    topo.channel_names[ch],
                    pfc.flight(c) as f64 / 1e3,
                    2 * pfc.flight(c) / quantum + 1
                ),
            ));
        }
        Ok(Some(pfc))
    }
}

impl<M: Mechanism> Sim<M> {
    /// The channel into input `port` of switch `s` (none for the local input).
    fn upstream(&self, s: SwitchId, port: PortId) -> Option<ChannelId> {
        self.topo.switches[s.idx()].ports.get(port.idx()).map(|p| p.inp)
    }

    /// Where channel `ch`'s VC `vc` sits in `Sim::pfc`.
    fn pfc_at(&self, ch: ChannelId, vc: Vc) -> usize {
        ch.idx() * self.vcs.len() + vc as usize
    }

    /// Input (`port`, `vc`) of switch `s` now holds `held` bytes: PAUSE or resume its sender
    /// if it crossed XOFF or XON, sending the frame at `at`.
    pub(super) fn pfc_watch(&mut self, pfc: Pfc, s: SwitchId, port: PortId, vc: Vc, held: u32, at: Time) {
        let Some(ch) = self.upstream(s, port) else { return };
        let i = self.pfc_at(ch, vc);
        let pause = match self.pfc[i].paused {
            false if held > pfc.xoff => true,
            true if held <= pfc.xon => false,
            _ => return,
        };
        self.pfc[i].paused = pause;
        self.pfc_frame(pfc, ch, vc, pause, at);
    }

    /// The receiver on `ch` sends a PAUSE (or a resume) for `vc` at `at`, and plans its refresh.
    fn pfc_frame(&mut self, pfc: Pfc, ch: ChannelId, vc: Vc, pause: bool, at: Time) {
        self.stats.counters.pauses += pause as u64;
        let c = &self.topo.channels[ch.idx()];
        let (flight, pause_time) = (pfc.flight(c), pfc.pause_time(c));
        let quanta = if pause { pfc.quanta } else { 0 };
        self.post(at + flight, Event::Pause { ch, vc, quanta });
        if pause {
            let due = at + pause_time / 2;
            let i = self.pfc_at(ch, vc);
            self.pfc[i].refresh_at = due;
            self.events.push(due, Event::PauseRefresh { ch, vc });
        }
    }

    /// A refresh of the PAUSE on `ch`'s `vc` is due, if the receiver still holds it.
    pub(super) fn pause_refresh(&mut self, ch: ChannelId, vc: Vc) {
        let FlowControl::Pfc(pfc) = self.p.flow else { unreachable!("only PFC plans refreshes") };
        let link = self.pfc[self.pfc_at(ch, vc)];
        if link.paused && link.refresh_at == self.now {
            self.pfc_frame(pfc, ch, vc, true, self.now);
        }
    }

    /// A PFC frame of `quanta` (0: resume) reached the sender on channel `ch`.
    pub(super) fn pause_arrived(&mut self, ch: ChannelId, vc: Vc, quanta: u16) {
        let FlowControl::Pfc(pfc) = self.p.flow else { unreachable!("only PFC sends frames") };
        let until = self.now + pfc.pause_time(&self.topo.channels[ch.idx()]) * Time::from(quanta > 0);
        let i = self.pfc_at(ch, vc);
        self.pfc[i].until = until;
        if quanta > 0 {
            self.events.push(until, Event::PauseEnd { ch, vc });
        }
        self.set_paused(ch, vc, quanta > 0);
    }

    /// A PAUSE on `ch`'s `vc` may have run out: the sender goes on unless a refresh extended it.
    pub(super) fn pause_end(&mut self, ch: ChannelId, vc: Vc) {
        if self.pfc[self.pfc_at(ch, vc)].until <= self.now {
            self.set_paused(ch, vc, false);
        }
    }

    fn set_paused(&mut self, ch: ChannelId, vc: Vc, paused: bool) {
        let credits = if paused { 0 } else { OPEN };
        match self.topo.channels[ch.idx()].from {
            Endpoint::Host(n) => {
                self.nics[n.idx()].credits[vc as usize].set_shared(credits);
                self.try_inject(n);
            }
            Endpoint::Switch(s, p) => {
                self.switches[s.idx()].outputs[p.idx()].vcs[vc as usize].credits.set_shared(credits);
                self.try_link(s, p);
            }
        }
    }
}
