//! Switch state: input-buffered (virtual output queues, FIFOs, or FIFOs with bounded bypass per
//! VC), a crossbar with speedup, and small per-VC output buffers (SRP paper §4). Plain data: the
//! behaviour lives in `sim::switch_ops`, which owns the event queue.

use crate::config::{InputQueues, SwitchConfig, VcClass};
use crate::ids::{PacketId, PortId, Vc};
use crate::rng::Stream;
use std::collections::VecDeque;

/// How an input buffer orders its packets. Data VCs follow `switch.input_queues`; control and
/// low-priority VCs are FIFOs (SRP paper §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputQueue {
    /// One FIFO: a head waiting for a busy output blocks the packets behind it.
    Fifo,
    /// A FIFO whose head younger packets may overtake at most `limit` times, then it alone may
    /// go (Santos et al. footnote 6: "bypass of older packets when the crossbar is busy ... at
    /// most 4 times"). Stored as per-output queues plus the arrival order.
    Bypass { limit: u8 },
    /// Virtual output queues (SRP paper §4): a FIFO with unlimited bypass.
    Voq,
}

impl InputQueue {
    /// The input queueing `switch.input_queues` gives data VCs.
    pub fn of_data_vcs(cfg: &SwitchConfig) -> InputQueue {
        match cfg.input_queues {
            InputQueues::Voq => InputQueue::Voq,
            InputQueues::Fifo => InputQueue::Fifo,
            InputQueues::Bypass => InputQueue::Bypass { limit: cfg.bypass_limit as u8 },
        }
    }

    /// Whether packets are kept in one queue per output port.
    pub fn per_output(self) -> bool {
        self != InputQueue::Fifo
    }

    /// The queue that holds packets for output `out`.
    pub fn queue_for(self, out: PortId) -> usize {
        if self.per_output() {
            out as usize
        } else {
            0
        }
    }
}

/// A virtual channel as the network builds it: the mechanism's priority class and the input
/// queueing the config gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcSpec {
    pub class: VcClass,
    pub queue: InputQueue,
}

pub struct InputVc {
    /// One queue per output port when `InputQueue::per_output`, a single FIFO otherwise.
    pub queues: Vec<VecDeque<PacketId>>,
    /// Bytes waiting in the queues (not yet granted the crossbar).
    pub queued: u32,
    /// `InputQueue::Bypass` only: every queued packet in arrival order (the FIFO whose head may
    /// be bypassed), and how many younger packets have left ahead of that head.
    pub order: VecDeque<PacketId>,
    pub bypassed: u8,
    /// Bytes held (from head arrival until the tail has crossed the crossbar).
    pub bytes: u32,
    /// High-water mark, checked against the capacity by the invariant checks.
    pub peak: u32,
}

impl InputVc {
    /// Queues `pkt` (`bytes` long, for output `out`); returns whether it is its queue's head.
    pub fn push(&mut self, pkt: PacketId, bytes: u32, out: PortId, queue: InputQueue) -> bool {
        let q = queue.queue_for(out);
        self.queues[q].push_back(pkt);
        self.queued += bytes;
        if matches!(queue, InputQueue::Bypass { .. }) {
            self.order.push_back(pkt);
        }
        self.bytes += bytes;
        self.peak = self.peak.max(self.bytes);
        self.queues[q].len() == 1
    }

    /// Takes `pkt` (`bytes` long), the head of the queue for output `out`, out of the queues
    /// (its bytes stay in the buffer until its tail has left). Returns the queue's next head
    /// and, for a bypass FIFO, whether the FIFO head has now been bypassed its limit of times.
    pub fn pop(&mut self, pkt: PacketId, bytes: u32, out: PortId, queue: InputQueue) -> (Option<PacketId>, bool) {
        let q = queue.queue_for(out);
        let popped = self.queues[q].pop_front();
        debug_assert_eq!(popped, Some(pkt));
        self.queued -= bytes;
        let mut pinned = false;
        if let InputQueue::Bypass { limit } = queue {
            if self.order.front() == Some(&pkt) {
                self.order.pop_front();
                self.bypassed = 0;
            } else {
                let at = self.order.iter().position(|&p| p == pkt).expect("a queued packet is in the arrival order");
                self.order.remove(at);
                self.bypassed += 1;
                pinned = self.bypassed >= limit;
            }
        }
        (self.queues[q].front().copied(), pinned)
    }
}

pub struct OutputVc {
    pub fifo: VecDeque<PacketId>,
    /// Bytes reserved (from crossbar grant until the tail has left on the link).
    pub bytes: u32,
    pub peak: u32,
    /// Free bytes in the downstream input buffer for this VC.
    pub credits: u32,
}

pub struct Output {
    pub vcs: Vec<OutputVc>,
    /// Per VC: bytes in this switch's input buffers routed to this output (the total
    /// occupancy of its virtual output queues, SRP paper §4's ECN trigger).
    pub queued: Vec<u32>,
    /// Per VC and input: bytes waiting in that input's queue for this output, its virtual output
    /// queue (IB CC's per-VoQ threshold, thesis Paper I, reads them all at every transmit: one
    /// contiguous row instead of one read per input).
    pub voq_bytes: Vec<Vec<u32>>,
    /// Per VC: bit i set when input i has an eligible packet at the head of its queue for this
    /// output.
    pub req: Vec<u64>,
    /// Per VC: the input that round-robin serves first next time.
    pub rr: Vec<u8>,
    /// Round-robin among VCs of one priority class: the VC offset served first.
    pub vc_rr: u8,
    pub xbar_busy: bool,
    pub link_busy: bool,
    /// VC and bytes of the packet on the link, released when serialization ends.
    pub sending: Option<(Vc, u32)>,
    /// Link time taken by control packets interleaved into the current transmission: the link
    /// frees that much later.
    pub stretch: crate::time::Time,
}

pub struct Switch {
    /// One per port, then the local input (index = number of ports): control packets the
    /// switch itself sends (e.g. SRP's NACK) enter there. It has no upstream channel, so no
    /// credits, and its packets compete for outputs like any other.
    pub inputs: Vec<Vec<InputVc>>,
    pub outputs: Vec<Output>,
    /// Bit i set while input i is moving a packet across the crossbar.
    pub in_busy: u64,
    /// Per input: bit o set while the input requests output o on some VC (the union over VCs
    /// of the outputs' `req` bits), so a freed input finds its outputs without a scan.
    pub in_req: Vec<u64>,
    /// Per VC: bit i set while input i's FIFO head has been bypassed `InputQueue::Bypass::limit`
    /// times, so only the head's output may take from that input.
    pub pinned: Vec<u64>,
    pub ports: usize,
    /// Routing decisions (random up ports) draw from the switch's own stream.
    pub rng: Stream,
}

impl Switch {
    pub fn new(ports: usize, vcs: &[VcSpec], downstream_credits: impl Fn(PortId) -> u32, rng: Stream) -> Switch {
        let inputs = (0..=ports)
            .map(|_| {
                vcs.iter()
                    .map(|v| {
                        let n = if v.queue.per_output() { ports } else { 1 };
                        InputVc { queues: vec![VecDeque::new(); n], queued: 0, order: VecDeque::new(), bypassed: 0, bytes: 0, peak: 0 }
                    })
                    .collect()
            })
            .collect();
        let outputs = (0..ports)
            .map(|p| Output {
                vcs: vcs.iter().map(|_| OutputVc { fifo: VecDeque::new(), bytes: 0, peak: 0, credits: downstream_credits(p as PortId) }).collect(),
                queued: vec![0; vcs.len()],
                voq_bytes: vec![vec![0; ports + 1]; vcs.len()],
                req: vec![0; vcs.len()],
                rr: vec![0; vcs.len()],
                vc_rr: 0,
                xbar_busy: false,
                link_busy: false,
                sending: None,
                stretch: 0,
            })
            .collect();
        Switch { inputs, outputs, in_busy: 0, in_req: vec![0; ports + 1], pinned: vec![0; vcs.len()], ports, rng }
    }

    /// Queues `pkt` (`bytes` long, routed to `out`) in input (`port`, `vc`) and counts it for
    /// `out`; returns whether it is its queue's head.
    pub fn enqueue(&mut self, port: PortId, vc: Vc, out: PortId, pkt: PacketId, bytes: u32, queue: InputQueue) -> bool {
        let o = &mut self.outputs[out as usize];
        o.queued[vc as usize] += bytes;
        o.voq_bytes[vc as usize][port as usize] += bytes;
        self.inputs[port as usize][vc as usize].push(pkt, bytes, out, queue)
    }

    /// Takes `pkt`, the head of input (`port`, `vc`)'s queue for `out`, out of its queues: see
    /// `InputVc::pop`. Its bytes stay counted in `Output::queued` until its tail has crossed.
    pub fn dequeue(&mut self, port: PortId, vc: Vc, out: PortId, pkt: PacketId, bytes: u32, queue: InputQueue) -> (Option<PacketId>, bool) {
        self.outputs[out as usize].voq_bytes[vc as usize][port as usize] -= bytes;
        self.inputs[port as usize][vc as usize].pop(pkt, bytes, out, queue)
    }

    /// Input `i` no longer requests output `out` on `vc` (its head was granted or dropped).
    pub fn withdraw(&mut self, i: PortId, out: PortId, vc: Vc) {
        let o = &mut self.outputs[out as usize];
        o.req[vc as usize] &= !(1 << i);
        if o.req.iter().all(|r| r & (1 << i) == 0) {
            self.in_req[i as usize] &= !(1 << out);
        }
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
    use super::{next_from, InputQueue, InputVc};
    use std::collections::VecDeque;

    #[test]
    fn bypass_fifo_pins_its_head_at_the_limit() {
        let queue = InputQueue::Bypass { limit: 2 };
        let mut ivc = InputVc { queues: vec![VecDeque::new(); 2], queued: 0, order: VecDeque::new(), bypassed: 0, bytes: 0, peak: 0 };
        // Packet 0 (the FIFO head) waits for output 0; 1, 2 and 3 go to output 1.
        for (pkt, q) in [(0, 0), (1, 1), (2, 1), (3, 1)] {
            ivc.push(pkt, 100, q, queue);
        }
        assert_eq!(ivc.pop(1, 100, 1, queue), (Some(2), false), "first overtaking");
        assert_eq!(ivc.pop(2, 100, 1, queue), (Some(3), true), "second overtaking reaches the limit");
        assert_eq!(ivc.pop(0, 100, 0, queue), (None, false), "the head leaves: count and pin reset");
        assert_eq!((ivc.bypassed, ivc.order.iter().copied().collect::<Vec<_>>()), (0, vec![3]));
        assert_eq!((ivc.peak, ivc.queued), (400, 100));
    }

    #[test]
    fn round_robin_wraps() {
        assert_eq!(next_from(0b1010, 0), 1);
        assert_eq!(next_from(0b1010, 2), 3);
        assert_eq!(next_from(0b1010, 4), 1);
    }
}
