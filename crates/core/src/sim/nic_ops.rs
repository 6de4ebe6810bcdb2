//! NIC behaviour: message arrival into per-destination send queues, round-robin injection
//! (control packets first), and delivery at the destination.

use super::Sim;
use crate::cc::{Ctx, Gate, Mechanism, QueueView, RngAt, VcClass};
use crate::event::Event;
use crate::ids::{ChannelId, Endpoint, NodeId, PacketId, PortId, QpId};
use crate::nic::{InRing, Message, Waiting};
use crate::packet::{Packet, PacketKind};
use crate::routing::Leg;
use crate::switch::Pooling;
use crate::time::{ps, Time};

impl<M: Mechanism> Sim<M> {
    /// Traffic source `s` generates a message now.
    pub(super) fn arrival(&mut self, s: usize) {
        if let Some(next_on) = self.traffic.open_on_period(s, self.now) {
            self.events.push(next_on, Event::Arrival { source: s as u32 });
        }
        let (class, node) = (self.traffic.sources[s].class, self.traffic.sources[s].node);
        if self.traffic.classes[class as usize].on_off.is_some() {
            // A greedy ON period opened: the source offers its link until it closes.
            let until = self.traffic.sources[s].on_until.min(self.traffic.classes[class as usize].stop);
            let mbps = self.topo.channels[self.nics[node.idx()].out.idx()].rate.mbps;
            self.stats.active(class, mbps, self.now, until);
        }
        let node = self.next_message(s);
        if self.traffic.repeats(s) {
            let t = self.now + self.traffic.gap(s);
            if t < self.traffic.stop(s) {
                self.events.push(t, Event::Arrival { source: s as u32 });
            }
        }
        self.try_inject(node);
    }

    /// Source `s` generates its next message into its send queue; returns its node.
    fn next_message(&mut self, s: usize) -> NodeId {
        let draw = self.traffic.draw(s, self.now);
        let (node, class) = (self.traffic.sources[s].node, self.traffic.sources[s].class);
        self.enqueue(node, draw.dst, Message { class, source: s as u32, packets: draw.packets, sent: 0, created: self.now });
        node
    }

    fn enqueue(&mut self, node: NodeId, dst: NodeId, msg: Message) {
        let bytes = msg.packets as u64 * self.traffic.classes[msg.class as usize].packet_bytes as u64;
        self.stats.offered(self.now, msg.class, node, dst, bytes, msg.packets);
        self.send_flow(node, dst, msg.class, self.now);
        // Behind a backlog a message waits in arrival order outside its send queue until
        // something could tell: oldest first serves every queue in the ring before the queue
        // it would join or start, so it goes in when a scan reaches the end of the ring
        // (`arbitrate`), or when its queue would otherwise empty (`launch`). Ages stay apart:
        // it waits only if created after every message in the queues, and each move takes
        // the messages created at one time together.
        let nic = &mut self.nics[node.idx()];
        if nic.defers && (!nic.unqueued.is_empty() || !nic.ring.is_empty() && msg.created > nic.last_queued) {
            nic.unqueued.push_back(Waiting { created: msg.created, dst, source: msg.source, packets: msg.packets });
            return;
        }
        self.queue_message(node, dst, msg);
    }

    /// Puts `msg` in `node`'s send queue to `dst`; says whether that activated the queue.
    fn queue_message(&mut self, node: NodeId, dst: NodeId, msg: Message) -> bool {
        let packets = msg.packets;
        let nic = &mut self.nics[node.idx()];
        nic.last_queued = msg.created;
        let qps = &mut self.qps;
        let qp = match (self.p.queue_per_flow, nic.qp_of.get(dst)) {
            (false, Some(qp)) => qp,
            (per_flow, _) => {
                let qp = nic.open_queue(qps, node, dst);
                if !per_flow {
                    nic.qp_of.insert(dst, qp);
                }
                qp
            }
        };
        let q = &mut qps.slots[qp.idx()];
        if q.messages.is_empty() {
            q.head_since = msg.created;
        }
        q.messages.push_back(msg);
        let activated = !q.active;
        if activated {
            q.active = true;
            self.activate(node, qp);
        }
        if M::HOOKS.message {
            let view = self.view(qp);
            let mut ctx = mech_ctx!(self, RngAt::Nic(node));
            self.mech.on_message(&mut ctx, view, packets);
        }
        activated
    }

    /// Moves `node`'s waiting messages into their send queues until one starts a queue in the
    /// ring; says whether one did.
    fn queue_waiting_until_active(&mut self, node: NodeId) -> bool {
        while !self.nics[node.idx()].unqueued.is_empty() {
            if self.queue_waiting(node, 1) {
                return true;
            }
        }
        false
    }

    /// Moves `node`'s first `n` waiting messages into their send queues, and those created at
    /// the same time as the last of them; says whether any activated its queue.
    fn queue_waiting(&mut self, node: NodeId, n: usize) -> bool {
        let mut activated = false;
        let mut last = None;
        for k in 0.. {
            let waiting = &mut self.nics[node.idx()].unqueued;
            match waiting.front() {
                Some(w) if k < n || last == Some(w.created) => {
                    let Waiting { created, dst, source, packets } = waiting.pop_front().expect("a front");
                    last = Some(created);
                    let class = self.traffic.sources[source as usize].class;
                    activated |= self.queue_message(node, dst, Message { class, source, packets, sent: 0, created });
                }
                _ => break,
            }
        }
        activated
    }

    fn view(&self, qp: QpId) -> QueueView {
        let q = &self.qps.slots[qp.idx()];
        let (packets, left, class) = q.messages.front().map_or((0, 0, 0), |m| (m.packets, m.packets - m.sent, m.class));
        let link_rate = self.topo.channels[self.nics[q.src.idx()].out.idx()].rate;
        let head_class = q.retx.front().map_or(class, |p| p.class);
        QueueView {
            qp,
            number: q.number,
            src: q.src,
            dst: q.dst,
            retransmission: !q.retx.is_empty(),
            head_message_packets: packets,
            head_message_left: left,
            head_class,
            link_rate,
        }
    }

    /// The mechanism handed `pkt` back to send queue `qp` of `node` (`Ctx::retransmit`).
    pub(super) fn requeue(&mut self, node: NodeId, qp: QpId, pkt: Packet<M::Header>) {
        let q = &mut self.qps.slots[qp.idx()];
        debug_assert_eq!((q.src, q.dst), (node, pkt.dst), "retransmission into a released queue");
        q.retx.push_back(pkt);
        if !q.active {
            q.active = true;
            self.activate(node, qp);
        } else if self.p.nic_by_age {
            // The resent packet may be older than the queue's head message: the queue moves up.
            let ring = &mut self.nics[node.idx()].ring;
            let at = ring.iter().position(|e| e.qp == qp).expect("an active queue is in the ring");
            ring.remove(at);
            self.activate(node, qp);
        }
        self.try_inject(node);
    }

    /// Puts send queue `qp` of `node` in its ring: last in round-robin order, first if its
    /// message is part sent under `message_round_robin`, or by the age of its oldest packet
    /// under `oldest_first` and `fifo` (ties: the earlier comer first).
    fn activate(&mut self, node: NodeId, qp: QpId) {
        let age = self.age(qp);
        let started = self.qps.slots[qp.idx()].head_started();
        let ring = &mut self.nics[node.idx()].ring;
        // Oldest first keeps the ring sorted by age (see `requeue`).
        let at = if self.p.nic_by_age {
            crate::nic::place_by_age(ring, age)
        } else if self.p.nic_whole_messages && started {
            0
        } else {
            ring.len()
        };
        ring.insert(at, InRing { qp, age });
    }

    /// Send queue `qp`'s age in the ring: the creation time of its oldest packet.
    pub(super) fn age(&self, qp: QpId) -> Time {
        let q = &self.qps.slots[qp.idx()];
        q.retx.front().map(|p| p.created).into_iter().chain(q.messages.front().map(|m| m.created)).min().unwrap_or(Time::MAX)
    }

    /// Whether send queue `qp`, at position `at` of `node`'s age-ordered ring since it was
    /// served, is still where `activate` would put it: its age unchanged (its head message part
    /// sent) and no queue as old after it (those before it are no younger: the ring is in age
    /// order). Half the packets of a backlogged NIC sending two-packet messages leave so, and
    /// the ring's search and two moves were most of its cost.
    fn stay_in_ring(&self, node: NodeId, at: usize, qp: QpId) -> bool {
        let ring = &self.nics[node.idx()].ring;
        let age = ring[at].age;
        age == self.age(qp) && ring.get(at + 1).is_none_or(|next| next.age > age)
    }

    /// Injects what the link can take now: a queued control packet first (interleaved into a
    /// data packet already on the link), then the next data packet. Without a transmit FIFO that
    /// is the pick of `arbitrate`, which needs credits for it; with one, the NIC first moves
    /// packets into the FIFO while it has room, and the FIFO's head goes when it has credits.
    pub(super) fn try_inject(&mut self, node: NodeId) {
        if self.p.tx_fifo > 0 {
            while self.arbitrate(node) {}
        }
        let nic = &self.nics[node.idx()];
        if nic.link_busy {
            // Control packets interleave into a data packet on the link (see `sim`), unless
            // they wait for its tail.
            if !nic.sending_control && !self.p.control_between_packets {
                while self.send_control_head(node) {}
            }
            return;
        }
        if self.send_control_head(node) {
            return;
        }
        if self.p.tx_fifo > 0 {
            return self.send_tx_head(node);
        }
        // Every queue would be asked and rotated once, back to the same order, for nothing.
        let data = &self.nics[node.idx()].credits[self.mech.data_vc() as usize];
        if (!M::HOOKS.inject_gate || M::GATE_ONLY_READS) && data.pooling == Pooling::Shared && data.free(0) < self.p.min_data_bytes {
            return;
        }
        self.arbitrate(node);
    }

    /// Picks the next send queue in ring order (round-robin, or oldest first) that its
    /// mechanism lets go and whose packet has room (credits, or room in the transmit FIFO), a
    /// queue going on a data VC ahead of one going on a low-priority VC; under `fifo` the
    /// oldest queue or none, under `message_round_robin` a part-sent message or none. It sends
    /// that queue's next packet and says whether it did; if none could go, it wakes the NIC
    /// when the first gate opens. The NIC is a priority arbiter like the switch outputs: SRP's
    /// speculative packets only fill injection slots no reserved or unreserved packet wants
    /// (SRP paper §6.1: "normal data packets are preferentially admitted into the network
    /// when competing with a speculative packet").
    fn arbitrate(&mut self, node: NodeId) -> bool {
        let mut wait: Option<Time> = None;
        let mut low: Option<(usize, QpId, u8)> = None;
        let oldest_first = self.p.nic_by_age;
        // Only the front queue is a candidate: under `fifo` always, under `message_round_robin`
        // while its message is part sent (`launch` keeps such a queue in front).
        let alone = self.p.nic_fifo || (self.p.nic_whole_messages && self.front_message_started(node));
        let mut k = 0;
        loop {
            let ring = self.nics[node.idx()].ring.len();
            // Past the ring come the queues the waiting messages start, oldest first.
            let more = if alone { k < ring.min(1) } else { k < ring || self.queue_waiting_until_active(node) };
            if !more {
                break;
            }
            // Round-robin rotates the ring as it goes; oldest-first keeps it ordered by age.
            let at = if oldest_first { k } else { 0 };
            let qp = self.nics[node.idx()].ring[at].qp;
            let paced = if self.p.paced { self.paced_until(qp) } else { 0 };
            let gate = if paced > self.now {
                Gate::At(paced)
            } else if M::HOOKS.inject_gate {
                let view = self.view(qp);
                let mut ctx = mech_ctx!(self, RngAt::Nic(node));
                let gate = self.mech.inject_gate(&mut ctx, view);
                // A control packet the gate queued (e.g. SRP's reservation) goes first, ahead of
                // the data packet it announces; the data packet waits for the link.
                if self.send_control_head(node) {
                    return false;
                }
                gate
            } else {
                Gate::Now(self.mech.data_vc())
            };
            match gate {
                Gate::Now(vc) if self.room_for_data(node, vc, qp) => {
                    if alone || self.vcs[vc as usize].class != VcClass::Low {
                        self.serve(node, at, qp, vc);
                        return true;
                    }
                    low.get_or_insert((k, qp, vc));
                }
                Gate::At(t) => wait = Some(wait.map_or(t, |w| w.min(t))),
                _ => {}
            }
            if !oldest_first && !alone {
                self.nics[node.idx()].ring.rotate_left(1);
            }
            k += 1;
        }
        // Round-robin came full circle: the queue is back at position `k`.
        if let Some((k, qp, vc)) = low {
            self.serve(node, k, qp, vc);
            return true;
        }
        if let Some(t) = wait {
            let nic = &mut self.nics[node.idx()];
            if nic.wake_at.is_none_or(|w| t < w) {
                nic.wake_at = Some(t);
                self.events.push(t, Event::NicWake { node });
            }
        }
        false
    }

    /// The next data packet of send queue `qp` may leave on `vc`: its destination is not
    /// stopped (`Nic::lines`), and the first switch has credits for it (in its destination's
    /// buffer, if that input has one per destination), or the transmit FIFO has room.
    fn room_for_data(&self, node: NodeId, vc: u8, qp: QpId) -> bool {
        let (nic, bytes) = (&self.nics[node.idx()], self.head_bytes(qp));
        if !nic.lines.is_empty() && nic.lines.iter().any(|(_, dests, stopped)| *stopped && dests.contains(&self.qps.slots[qp.idx()].dst)) {
            return false;
        }
        match self.p.tx_fifo {
            0 => {
                // A NIC's packets carry no lookahead: its switch's inputs are never divided per output.
                let credits = &nic.credits[vc as usize];
                credits.free(credits.pool_of(self.qps.slots[qp.idx()].dst, None)) >= bytes
            }
            cap => nic.tx_bytes + bytes <= cap,
        }
    }

    /// Bytes of the next packet of send queue `qp`: a retransmission's, or its head message's
    /// class's.
    #[inline]
    fn head_bytes(&self, qp: QpId) -> u32 {
        // Where every class sends packets of the MTU (most runs), so does every queue.
        if self.p.min_data_bytes == self.p.data_bytes {
            return self.p.data_bytes;
        }
        let q = &self.qps.slots[qp.idx()];
        match (q.retx.front(), q.messages.front()) {
            (Some(p), _) => p.bytes,
            (None, Some(m)) => self.traffic.classes[m.class as usize].packet_bytes,
            (None, None) => unreachable!("active queues hold a packet"),
        }
    }

    /// Sends the head of `node`'s transmit FIFO if its VC has credits (the link is free), and
    /// refills the FIFO.
    fn send_tx_head(&mut self, node: NodeId) {
        let nic = &self.nics[node.idx()];
        // The FIFO (0) and the hot-packet queues whose line is not stopped, in turn: each head
        // waits for credits alone.
        let queues = 1 + nic.hot.len();
        let next = (0..queues).map(|k| (nic.hot_turn + k) % queues).find_map(|q| {
            let head = match q {
                0 => nic.tx.front(),
                _ => Some(&nic.hot[q - 1]).filter(|(line, _)| !nic.line_stopped(*line)).and_then(|(_, packets)| packets.front()),
            };
            head.filter(|&&pkt| {
                let p = self.slab.get(pkt);
                nic.credits[p.vc as usize].room(p)
            })
            .map(|&pkt| (q, pkt))
        });
        let Some((q, pkt)) = next else { return };
        let nic = &mut self.nics[node.idx()];
        match q {
            0 => nic.tx.pop_front(),
            _ => nic.hot[q - 1].1.pop_front(),
        };
        nic.tx_bytes -= self.slab.get(pkt).bytes;
        nic.hot_turn = (q + 1) % queues;
        self.send(node, pkt);
        while self.arbitrate(node) {}
    }

    /// The queue in front of `node`'s ring has sent part of its head message.
    fn front_message_started(&self, node: NodeId) -> bool {
        self.nics[node.idx()].ring.front().is_some_and(|e| self.qps.slots[e.qp.idx()].head_started())
    }

    /// Injects the next packet of send queue `qp`, at position `at` in the ring, on `vc`. In
    /// round-robin order the queue moves to the front; in age order it stays where it is, for
    /// `launch` to leave it there if its age has not changed.
    fn serve(&mut self, node: NodeId, at: usize, qp: QpId, vc: u8) {
        let at = match self.p.nic_by_age {
            true => at,
            false => {
                self.nics[node.idx()].ring.rotate_left(at);
                0
            }
        };
        self.inject_data(node, at, qp, vc);
    }

    /// Earliest start of the next packet of send queue `qp` under its head message's source's
    /// `rate_limit` (0 if none). Retransmissions are the mechanism's and are not paced.
    fn paced_until(&self, qp: QpId) -> Time {
        let q = &self.qps.slots[qp.idx()];
        match q.messages.front() {
            Some(m) if q.retx.is_empty() => self.traffic.sources[m.source as usize].paced_until,
            _ => 0,
        }
    }

    /// Sends the oldest queued control packet if its VC has credits (interleaved if a data
    /// packet is on the link).
    fn send_control_head(&mut self, node: NodeId) -> bool {
        let Some(&pkt) = self.control[node.idx()].front() else { return false };
        let p = self.slab.get(pkt);
        if !self.nics[node.idx()].credits[p.vc as usize].room(p) {
            return false;
        }
        self.control[node.idx()].pop_front();
        self.send(node, pkt);
        true
    }

    /// Sends the next packet of send queue `qp` (at position `at` in the ring) on `vc`: a
    /// retransmission if one waits, else the next packet of its head message.
    fn inject_data(&mut self, node: NodeId, at: usize, qp: QpId, vc: u8) {
        let now = self.now;
        let q = &mut self.qps.slots[qp.idx()];
        if let Some(mut pkt) = q.retx.pop_front() {
            pkt.vc = vc;
            pkt.injected = now;
            self.stats.counters.retransmitted += 1;
            return self.launch(node, at, qp, pkt, None);
        }
        let msg = q.messages.front_mut().expect("active queues hold a message");
        msg.sent += 1;
        let bytes = self.traffic.classes[msg.class as usize].packet_bytes;
        if let Some(pace) = self.traffic.classes[msg.class as usize].pace {
            let ser = self.topo.channels[self.nics[node.idx()].out.idx()].rate.serialization(bytes);
            self.traffic.sources[msg.source as usize].paced_until = now + ps(ser as f64 * pace);
        }
        let pkt = Packet {
            src: node,
            dst: q.dst,
            bytes,
            kind: PacketKind::Data,
            vc,
            class: msg.class,
            qp,
            flow: if self.p.queue_per_flow { q.number } else { 0 },
            created: msg.created,
            ready: q.head_since,
            injected: now,
            head_in: 0,
            tail_in: 0,
            queued: 0,
            out_port: PortId(0),
            leg: Leg::START,
            ahead: None,
            marked: false,
            hdr: M::Header::default(),
            uid: self.nics[node.idx()].next_uid(node),
        };
        let finished = (msg.sent == msg.packets).then_some(msg.source);
        if finished.is_some() {
            q.messages.pop_front();
        }
        q.head_since = now;
        self.launch(node, at, qp, pkt, finished);
    }

    /// Puts data packet `pkt` of send queue `qp`, at position `at` in the ring, on the wire;
    /// `finished` names the source whose message it completed.
    fn launch(&mut self, node: NodeId, at: usize, qp: QpId, mut pkt: Packet<M::Header>, finished: Option<u32>) {
        let now = self.now;
        // Out of the ring first: a queue the refill below activates must not take its place.
        // In age order a queue whose age is past stays: the refill activates queues aged now,
        // which go behind it, and `stay_in_ring` then checks that its place is unchanged.
        let ring = &mut self.nics[node.idx()].ring;
        let kept = self.p.nic_by_age && ring[at].age < now;
        if !kept {
            ring.remove(at);
        }
        // A greedy source always has its next message ready, queued before this queue is
        // checked for emptiness: a greedy flow is one flow, its queue never empties (mechanisms
        // that keep per-flow state see one long flow, not one per message). The link is busy
        // from now on; its release tries the next injection.
        if let Some(s) = finished {
            if self.traffic.sending(s as usize, now) {
                self.next_message(s as usize);
            }
        }
        let q = &self.qps.slots[qp.idx()];
        let mut emptied = q.messages.is_empty() && q.retx.is_empty();
        if emptied {
            // A message waiting for this queue's destination was in it all along: its head
            // since this packet left.
            let (dst, since) = (q.dst, q.head_since);
            let waiting = self.nics[node.idx()].unqueued.iter().position(|w| w.dst == dst);
            if let Some(i) = waiting {
                self.queue_waiting(node, i + 1);
                self.qps.slots[qp.idx()].head_since = since;
                emptied = false;
            }
        }
        let q = &mut self.qps.slots[qp.idx()];
        if emptied {
            q.active = false;
        }
        // A kept queue is where it was, unless a mechanism requeued a packet meanwhile and moved
        // the queues.
        let in_place = kept && self.nics[node.idx()].ring.get(at).is_some_and(|e| e.qp == qp);
        let stays = in_place && !emptied && self.stay_in_ring(node, at, qp);
        if kept && !stays {
            let ring = &mut self.nics[node.idx()].ring;
            let at = if in_place { at } else { ring.iter().position(|e| e.qp == qp).expect("a kept queue is in the ring") };
            ring.remove(at);
        }
        if !emptied && !stays {
            self.activate(node, qp);
        }
        if M::HOOKS.injected {
            let view = self.view(qp);
            let mut ctx = mech_ctx!(self, RngAt::Nic(node));
            self.mech.on_injected(&mut ctx, view, &mut pkt);
        }
        let (bytes, dst) = (pkt.bytes, pkt.dst);
        let id = self.slab.alloc(pkt);
        self.stats.counters.injected += 1;
        if self.p.tx_fifo > 0 {
            let nic = &mut self.nics[node.idx()];
            nic.queue_for_link(id, dst);
            nic.tx_bytes += bytes;
        } else {
            self.send(node, id);
        }
        if emptied {
            self.release(node, qp);
        }
    }

    /// Send queue `qp` of `node` is empty: recycles it if its mechanism lets it go.
    fn release(&mut self, node: NodeId, qp: QpId) {
        let view = self.view(qp);
        let mut ctx = mech_ctx!(self, RngAt::Nic(node));
        if self.mech.release_queue(&mut ctx, view) {
            if !self.p.queue_per_flow {
                self.nics[node.idx()].qp_of.remove(view.dst);
            }
            self.qps.slots[qp.idx()].open = false;
            self.qps.free.push(qp);
        }
    }

    /// The mechanism offers send queue `qp` of `node` for release (`Ctx::offer_release`): asked
    /// again if it is still open and empty.
    pub(super) fn offer_release(&mut self, node: NodeId, qp: QpId) {
        let q = &self.qps.slots[qp.idx()];
        if q.open && q.src == node && !q.active && q.messages.is_empty() && q.retx.is_empty() {
            self.release(node, qp);
        }
    }

    /// Puts `pkt` on the injection link of `node`; if the link is busy (a control packet
    /// interleaving into a data packet), the link stays busy that much longer.
    fn send(&mut self, node: NodeId, pkt: PacketId) {
        let nic = &mut self.nics[node.idx()];
        let ch = nic.out;
        let p = self.slab.get_mut(pkt);
        p.injected = self.now;
        if self.p.flow.credits() {
            let credits = &mut nic.credits[p.vc as usize];
            let pool = credits.pool(p);
            credits.take(pool, p.bytes);
        }
        let c = &self.topo.channels[ch.idx()];
        let bytes = p.bytes;
        let ser = c.rate.serialization(bytes);
        if nic.link_busy {
            nic.stretch += ser;
        } else {
            nic.link_busy = true;
            nic.sending_control = p.kind != PacketKind::Data;
            self.events.push(self.now + ser, Event::LinkFree { ch });
        }
        self.events.push(self.now + c.latency + self.p.router_latency, Event::HeadArrive { ch, pkt });
        self.stats.sent(self.now, ch, bytes, ser);
    }

    /// The tail of `pkt` reached its destination NIC: it is consumed at once (ejection at link
    /// rate) and its buffer space credited back.
    pub(super) fn deliver(&mut self, ch: ChannelId, pkt: PacketId) {
        let Endpoint::Host(node) = self.topo.channels[ch.idx()].to else { unreachable!("delivery is to a host") };
        let p = *self.slab.get(pkt);
        // A NIC takes packets at link rate: under PFC it never pauses its switch, and it drops none.
        if self.p.flow.credits() {
            self.events.push(self.now + self.topo.channels[ch.idx()].latency, Event::Credit { ch, vc: p.vc, pool: 0, bytes: p.bytes });
        }
        match p.kind {
            PacketKind::Data => {
                // Mechanisms see every arrival (a duplicate still gets its ACK); statistics
                // count a packet once.
                if let Some((last, reordered)) = &mut self.order {
                    let latest = last.entry((p.src, p.dst)).or_insert(p.uid);
                    *reordered += (p.uid < *latest) as u64;
                    *latest = (*latest).max(p.uid);
                }
                if self.copies.arrived(p.uid) {
                    self.stats.delivered(self.now, &p);
                } else {
                    self.stats.counters.duplicates += 1;
                }
                if M::HOOKS.deliver {
                    let mut ctx = mech_ctx!(self, RngAt::Nic(node));
                    self.mech.on_deliver(&mut ctx, node, &p);
                }
            }
            PacketKind::Control(_) => {
                self.stats.counters.control_delivered += 1;
                if M::HOOKS.control {
                    let mut ctx = mech_ctx!(self, RngAt::Nic(node));
                    self.mech.on_control(&mut ctx, node, &p);
                }
            }
        }
        self.slab.release(pkt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::sim::Progress;
    use crate::stats::Summary;
    use std::ops::ControlFlow;

    /// Four hosts of a 16-host tree offer 80% of their link to one host and 80% to random ones,
    /// oldest message first: their backlogs grow through the run.
    fn backlogged(mechanism: &str) -> Config {
        let text = format!(
            "[simulation]\nmeasure_ns = 400000\n[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2\n[nic]\narbitration = \"oldest_first\"\n[cc]\nmechanism = \"{mechanism}\"\n\
             [[traffic]]\nname = \"hot\"\npattern = \"hotspot\"\ndest = 15\nsources = [0, 4, 8, 12]\narrival = \"periodic\"\nload = 0.8\n\
             [[traffic]]\nname = \"rest\"\npattern = \"uniform\"\nsources = [0, 4, 8, 12]\narrival = \"periodic\"\nload = 0.8\n"
        );
        Config::from_toml_str(&text, &[]).unwrap()
    }

    /// The summary of `cfg`'s run, its NICs putting each message in its send queue on arrival
    /// if `on_arrival`; and how many messages waited outside their queues halfway.
    fn run(cfg: &Config, on_arrival: bool) -> (Summary, usize) {
        crate::with_mechanism!(cfg, m => {
            let mut sim = Sim::new(cfg, m).unwrap();
            if on_arrival {
                sim.nics.iter_mut().for_each(|n| n.defers = false);
            }
            let go = &mut |_: &Progress| ControlFlow::Continue(());
            sim.run_until(sim.end() / 2, go).unwrap();
            let waiting = sim.nics.iter().map(|n| n.unqueued.iter().count()).sum();
            sim.run_until(sim.end(), go).unwrap();
            sim.check_invariants().unwrap();
            (sim.summary(0.0), waiting)
        })
        .unwrap()
    }

    #[test]
    fn messages_waiting_behind_a_backlog_change_no_result() {
        // IB CC throttles flows: scans often pass the whole ring and take waiting messages, so
        // fewer wait.
        for (mechanism, least) in [("none", 200), ("ibcc", 10)] {
            let cfg = backlogged(mechanism);
            let (deferred, waiting) = run(&cfg, false);
            let (on_arrival, none_waiting) = run(&cfg, true);
            assert!(waiting >= least && none_waiting == 0, "{mechanism}: {waiting} messages waited, {none_waiting} without deferring");
            // As text: an empty bin's mean latency is NaN, which equals nothing.
            assert_eq!(format!("{deferred:?}"), format!("{on_arrival:?}"), "{mechanism}");
        }
    }
}
