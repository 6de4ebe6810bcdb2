//! Virtual output queues (SRP paper §4): a FIFO per output port, so a packet waits only for its
//! own output (no head-of-line blocking inside the switch; the thesis' "VOQsw").

use super::{Popped, Queueing, Registered};
use crate::ids::{NodeId, PacketId, PortId};
use crate::plugin::Settings;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[switch.voq]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VoqSettings {
    /// Each virtual output queue of an input fed by another switch has a buffer of its own
    /// (`input_buffer_*` per output port and VC), with credits per queue upstream; the upstream
    /// switch routes one hop ahead to know which buffer a packet takes. The CBCM paper's routers
    /// (§V-A: "VOQ with four VCs for each output port at each input buffer"); BookSim's `voq`.
    /// Off: the queues of an input share its buffer (SRP paper §4).
    pub per_output_buffers: bool,
}

impl Settings for VoqSettings {
    fn validate(&self) -> crate::error::ConfigResult<()> {
        Ok(())
    }
}

pub struct Voq {
    queues: Vec<VecDeque<PacketId>>,
}

impl Registered for Voq {
    const ABOUT: &'static str = "Virtual output queues: a FIFO per output, so no head-of-line blocking (SRP paper §4).";
    const DOC: &'static str = "The SRP paper's switches (§4) and the thesis' (Paper II §IV): each input keeps a FIFO per output port, and every FIFO's head competes for its output.\n\n| key | default | meaning |\n|---|---|---|\n| `per_output_buffers` | `false` | Each queue of an input fed by another switch has a buffer of its own, `input_buffer_*` per output port and VC, with credits per queue upstream; the upstream switch routes one hop ahead (lookahead routing) to know which buffer a packet takes, and takes its credits when it grants the crossbar. The CBCM paper's routers (§V-A: \"VOQ with four VCs for each output port at each input buffer\"). Inputs fed by hosts keep one buffer per VC. `false`: the queues of an input share its buffer (SRP paper §4). |\n";
    const PER_OUTPUT: bool = true;
    type Settings = VoqSettings;

    fn new(_: &VoqSettings, ports: usize) -> Voq {
        Voq { queues: vec![VecDeque::new(); ports] }
    }
}
impl Queueing for Voq {
    fn push(&mut self, pkt: PacketId, out: PortId, _: NodeId, _: u32) -> bool {
        let q = &mut self.queues[out.idx()];
        q.push_back(pkt);
        q.len() == 1
    }

    fn pop(&mut self, pkt: PacketId, out: PortId) -> Popped {
        let q = &mut self.queues[out.idx()];
        let popped = q.pop_front();
        debug_assert_eq!(popped, Some(pkt));
        Popped::one(q.front().copied())
    }

    fn head(&self, out: PortId) -> Option<PacketId> {
        self.queues.get(out.idx()).and_then(|q| q.front().copied())
    }

    fn for_each(&self, f: impl FnMut(PacketId)) {
        self.queues.iter().flatten().copied().for_each(f)
    }
}
