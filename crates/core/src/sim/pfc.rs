//! Priority flow control (`flow_control.kind = "pfc"`, IEEE 802.1Qbb): instead of credits, a
//! switch input buffer holding more than XOFF bytes on a VC sends a PAUSE upstream, and one that
//! drains to XON a resume. The sender learns it a channel latency and a frame later, and starts
//! no packet on that VC meanwhile. A sender's credit counter is then a flag: `OPEN` or 0.
//!
//! Lossless only with headroom: after the buffer crosses XOFF it must still take what the sender
//! sends until the PAUSE arrives. The thresholds are checked against every channel when the
//! network is built (`Pfc::for_network`), so a buffer never overflows (the invariants check it).

use super::Sim;
use crate::cc::Mechanism;
use crate::config::{Config, FlowControlConfig};
use crate::engine::Event;
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{ChannelId, Endpoint, PortId, SwitchId, Vc};
use crate::time::{ps_from_ns, Time};
use crate::topology::Topology;

/// A sender's credits while it may send: more than any packet, never counted down.
pub(super) const OPEN: u32 = u32::MAX / 2;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Pfc {
    xoff: u32,
    xon: u32,
    frame_bytes: u32,
}

impl Pfc {
    /// The thresholds of `cfg` (`None` under credits), checked against every channel of `topo`.
    pub(super) fn for_network(cfg: &Config, topo: &Topology, in_cap: u32) -> ConfigResult<Option<Pfc>> {
        let FlowControlConfig::Pfc { xoff_bytes, xon_bytes, pause_frame_bytes } = cfg.flow_control else { return Ok(None) };
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
        Ok(Some(Pfc { xoff, xon, frame_bytes: pause_frame_bytes }))
    }
}

impl<M: Mechanism> Sim<M> {
    /// The channel into input `port` of switch `s` (none for the local input).
    fn upstream(&self, s: SwitchId, port: PortId) -> Option<ChannelId> {
        self.topo.switches[s.idx()].ports.get(port.idx()).map(|p| p.inp)
    }

    /// Input (`port`, `vc`) of switch `s` now holds `held` bytes: PAUSE or resume its sender
    /// if it crossed XOFF or XON, sending the frame at `at`.
    pub(super) fn pfc_watch(&mut self, pfc: Pfc, s: SwitchId, port: PortId, vc: Vc, held: u32, at: Time) {
        let Some(ch) = self.upstream(s, port) else { return };
        let i = ch.idx() * self.vcs.len() + vc as usize;
        let pause = match self.pfc_paused[i] {
            false if held > pfc.xoff => true,
            true if held <= pfc.xon => false,
            _ => return,
        };
        self.pfc_paused[i] = pause;
        self.stats.counters.pauses += pause as u64;
        let c = &self.topo.channels[ch.idx()];
        self.events.push(at + c.latency + c.rate.serialization(pfc.frame_bytes), Event::Pause { ch, vc, pause });
    }

    /// A PFC frame reached the sender on channel `ch`.
    pub(super) fn pause_arrived(&mut self, ch: ChannelId, vc: Vc, pause: bool) {
        let credits = if pause { 0 } else { OPEN };
        match self.topo.channels[ch.idx()].from {
            Endpoint::Host(n) => {
                self.nics[n.idx()].credits[vc as usize] = credits;
                self.try_inject(n);
            }
            Endpoint::Switch(s, p) => {
                self.switches[s.idx()].outputs[p.idx()].vcs[vc as usize].credits[0] = credits;
                self.try_link(s, p);
            }
        }
    }
}
