//! Lossy links (`flow_control.kind = "lossy"`, the ACCurate paper's lossy TCP baselines, §III):
//! no credits and no PAUSE. A sender starts a packet whenever its link is free, and a switch
//! drops an arrival that finds no room (drop-tail): at its input buffer, or at its output's queue
//! (the bytes the switch holds for that output on the packet's VC, as in an output-queued
//! switch). A drop happens when the head arrives, before any mechanism sees the packet; it is
//! counted for the run (`counters.dropped`, `counters.control_dropped`) and for the link it came
//! over (`links.drops`).

use super::Sim;
use crate::cc::Mechanism;
use crate::config::{Config, DropPoint, FlowControlConfig};
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{ChannelId, PacketId, PortId, SwitchId};
use crate::packet::PacketKind;

#[derive(Clone, Copy, Debug)]
pub(crate) struct DropTail {
    point: DropPoint,
    /// The most an output's queue holds on one VC, with `DropPoint::Output`.
    output_queue: u32,
}

impl DropTail {
    /// The drop rule of `cfg` (`None` unless lossy), with input buffers of `in_cap` bytes.
    pub(super) fn for_network(cfg: &Config, in_cap: u32) -> ConfigResult<Option<DropTail>> {
        let FlowControlConfig::Lossy { drop, output_queue_bytes } = cfg.flow_control else { return Ok(None) };
        let packet = cfg.nic.data_packet_bytes;
        let output_queue = match (drop, output_queue_bytes) {
            (DropPoint::Input, Some(_)) => {
                return Err(ConfigError::new("flow_control.output_queue_bytes", "applies only with drop = \"output\": remove it, or set drop = \"output\""));
            }
            (DropPoint::Output, Some(b)) if b < packet => {
                return Err(ConfigError::new("flow_control.output_queue_bytes", format!("must hold at least one data packet ({packet} bytes), got {b}")));
            }
            (_, b) => b.unwrap_or(in_cap),
        };
        Ok(Some(DropTail { point: drop, output_queue }))
    }
}

impl<M: Mechanism> Sim<M> {
    /// The head of `pkt`, routed at switch `s`, came over `ch` into input `port`: drops it if
    /// its input buffer, or under `DropPoint::Output` its output's queue, has no room for it.
    pub(super) fn drop_tail(&mut self, rule: DropTail, ch: ChannelId, s: SwitchId, port: PortId, pkt: PacketId) -> bool {
        let p = self.slab.get(pkt);
        let sw = &self.switches[s.idx()];
        let input_full = sw.input(port.idx(), p.vc as usize).bytes + p.bytes > self.p.in_cap;
        let output_full = rule.point == DropPoint::Output && sw.outputs[p.out_port.idx()].vcs[p.vc as usize].queued + p.bytes > rule.output_queue;
        if !(input_full || output_full) {
            return false;
        }
        match p.kind {
            PacketKind::Data => {
                self.stats.counters.dropped += 1;
                self.copies.dropped(p.uid, p.dst);
            }
            PacketKind::Control(_) => self.stats.counters.control_dropped += 1,
        }
        self.stats.dropped(self.now, ch);
        self.slab.release(pkt);
        true
    }
}
