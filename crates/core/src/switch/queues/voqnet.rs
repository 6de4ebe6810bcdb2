//! Virtual output queues at network level (the thesis' "VOQnet", Paper V §IV-A, after Anderson
//! et al.): a FIFO per destination host at every input, each in a buffer of its own with
//! credits of its own upstream, so a congested destination's packets never hold up another's,
//! anywhere. The reference the isolation schemes are measured against: ideal and, with a
//! queue per host at every port, unaffordable in large networks.

use super::{Popped, Queueing, Registered};
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{NodeId, PacketId, PortId};
use crate::plugin::Settings;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[switch.voqnet]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VoqNetSettings {
    /// Bytes of each destination's buffer: 4,096, two 2 KB MTUs (thesis Paper V §IV-A: "a
    /// minimum of 4 KB per queue", 64 queues in 256 KB per port).
    pub queue_bytes: u32,
}

impl Default for VoqNetSettings {
    fn default() -> Self {
        VoqNetSettings { queue_bytes: 4096 }
    }
}

impl Settings for VoqNetSettings {
    fn validate(&self) -> ConfigResult<()> {
        if self.queue_bytes == 0 {
            return Err(ConfigError::new("switch.voqnet.queue_bytes", "must be at least one packet (nic.data_packet_bytes), got 0"));
        }
        Ok(())
    }
}

pub struct VoqNet {
    /// Per destination with packets here: its packets and their output ports, in arrival order.
    queues: FxHashMap<NodeId, VecDeque<(PacketId, PortId)>>,
    /// Per output port: the destinations whose head packet goes there, in turn order: a
    /// destination served goes last. Each head may go when its buffer downstream has room
    /// (`offer`), so a full one holds up no other.
    ready: Vec<VecDeque<NodeId>>,
}

impl Registered for VoqNet {
    const ABOUT: &'static str = "A FIFO per destination host, each in a buffer of its own with credits upstream (the thesis' VOQnet).";
    const DOC: &'static str = "The thesis' ideal reference (Paper V §IV-A; Paper VI): every input keeps a queue per destination host, each in a buffer of `queue_bytes` of its own, and the sender upstream (a switch output or a NIC) keeps credits per destination queue. A destination whose queue is full stops only its own packets, so no flow is ever blocked by another's congestion. Each output serves the destination queues whose head is for it in turn. `input_buffer_*` still sizes the control and low-priority VCs. It needs credit flow control, and mechanisms that react to a whole input buffer filling cannot run on it.\n\n| key | default | meaning |\n|---|---|---|\n| `queue_bytes` | `4096` | Bytes of each destination's buffer, at least one packet: two 2 KB MTUs (Paper V §IV-A: \"a minimum of 4 KB per queue\"). |\n";
    const PER_OUTPUT: bool = false;
    type Settings = VoqNetSettings;

    fn new(_: &VoqNetSettings, ports: usize) -> VoqNet {
        VoqNet { queues: FxHashMap::default(), ready: vec![VecDeque::new(); ports] }
    }
}

impl VoqNet {
    fn head_of(&self, dst: NodeId) -> (PacketId, PortId) {
        *self.queues[&dst].front().expect("a ready destination has a packet")
    }
}

impl Queueing for VoqNet {
    fn push(&mut self, pkt: PacketId, out: PortId, dst: NodeId, _: u32) -> bool {
        let q = self.queues.entry(dst).or_default();
        q.push_back((pkt, out));
        if q.len() > 1 {
            return false;
        }
        let ready = &mut self.ready[out.idx()];
        ready.push_back(dst);
        ready.len() == 1
    }

    fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped {
        let ready = &mut self.ready[out.idx()];
        let at = ready.iter().position(|d| self.queues[d].front().is_some_and(|&(p, _)| p == pkt)).expect("the buffer offered this output the packet");
        let dst = ready.remove(at).expect("a position in the turns");
        let q = self.queues.get_mut(&dst).expect("a ready destination has a queue");
        q.pop_front();
        let mut other = None;
        match q.front().copied() {
            Some((next, next_out)) => {
                // The destination takes its next turn last.
                let ready = &mut self.ready[next_out.idx()];
                ready.push_back(dst);
                if next_out != out && ready.len() == 1 {
                    other = Some(next);
                }
            }
            None => {
                self.queues.remove(&dst);
            }
        }
        Popped { next: [self.head(out), other], pinned: false }
    }

    fn offer(&self, out: PortId, fits: &mut dyn FnMut(PacketId) -> bool) -> Option<PacketId> {
        self.ready.get(out.idx())?.iter().map(|&d| self.head_of(d).0).find(|&p| fits(p))
    }

    fn head(&self, out: PortId) -> Option<PacketId> {
        self.ready.get(out.idx())?.front().map(|&d| self.head_of(d).0)
    }

    /// Heads first, by output and turn, then each destination's later packets in the same
    /// order: fixed by the arrivals, whatever the map's layout.
    fn for_each(&self, mut f: impl FnMut(PacketId)) {
        for ready in &self.ready {
            for d in ready {
                self.queues[d].iter().for_each(|&(p, _)| f(p));
            }
        }
    }

    fn check(&self, out_of: &dyn Fn(PacketId) -> PortId, pinned: bool) -> Result<(), String> {
        if pinned {
            return Err("pinned, but the organization never pins".into());
        }
        let listed: usize = self.ready.iter().map(VecDeque::len).sum();
        if listed != self.queues.len() {
            return Err(format!("{} destinations queued but {listed} in the outputs' turns", self.queues.len()));
        }
        for (out, ready) in self.ready.iter().enumerate() {
            for d in ready {
                let Some(q) = self.queues.get(d).filter(|q| !q.is_empty()) else {
                    return Err(format!("destination {d} takes a turn at output {out} without a packet"));
                };
                if q.front().is_some_and(|&(_, o)| o.idx() != out) {
                    return Err(format!("destination {d}'s head is for another output than {out}, where it takes its turn"));
                }
                if let Some(&(p, _)) = q.iter().find(|&&(p, o)| out_of(p) != o) {
                    return Err(format!("packet {p} of destination {d} is queued for another output than its route's"));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pop(v: &mut VoqNet, pkt: u32, out: u16) -> [Option<u32>; 2] {
        v.pop(PacketId(pkt), PortId(out)).next.map(|p| p.map(|p| p.0))
    }

    #[test]
    fn destinations_take_turns_and_never_block_each_other() {
        let mut v = VoqNet::new(&VoqNetSettings::default(), 2);
        // Destinations 7 and 8 both leave by output 0; 9 by output 1, behind nobody.
        assert!(v.push(PacketId(0), PortId(0), NodeId(7), 1));
        assert!(!v.push(PacketId(1), PortId(0), NodeId(7), 1));
        assert!(!v.push(PacketId(2), PortId(0), NodeId(8), 1));
        assert!(v.push(PacketId(3), PortId(1), NodeId(9), 1), "another output's packet is offered at once");
        assert_eq!(v.head(PortId(1)), Some(PacketId(3)));
        // Destination 7's buffer downstream is full: 8's head is offered instead.
        assert_eq!(v.offer(PortId(0), &mut |p| p != PacketId(0)), Some(PacketId(2)));
        assert_eq!(pop(&mut v, 2, 0), [Some(0), None], "7 keeps its turn");
        assert_eq!(pop(&mut v, 0, 0), [Some(1), None]);
        assert_eq!(pop(&mut v, 1, 0), [None, None]);
        assert!(v.check(&|p| PortId(if p.0 == 3 { 1 } else { 0 }), false).is_ok());
    }

    #[test]
    fn a_head_for_another_output_is_offered_there() {
        // Adaptive routes: one destination's packets leave by different ports.
        let mut v = VoqNet::new(&VoqNetSettings::default(), 2);
        v.push(PacketId(0), PortId(0), NodeId(5), 1);
        v.push(PacketId(1), PortId(1), NodeId(5), 1);
        assert_eq!(v.head(PortId(1)), None, "it waits behind its destination's head");
        assert_eq!(pop(&mut v, 0, 0), [None, Some(1)]);
        assert_eq!(v.head(PortId(1)), Some(PacketId(1)));
    }
}
