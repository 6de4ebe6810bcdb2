//! Switch behaviour: input buffering, crossbar allocation, output links.
//!
//! Allocation runs when something it depends on changes (a head becomes eligible, an input or
//! an output crossbar port frees, output buffer space frees), never on a clock. Each output
//! serves VC priority classes in order (control > data > low) and, within a class, VCs and
//! inputs in round-robin order: the local fairness per input port that the SRP paper (§2) and
//! the thesis (Paper II) observe. The link takes the VCs of a class in turn too.

use super::{FlowControl, Sim};
use crate::cc::{Beyond, Ctx, Held, Mechanism, OutputView, Request, RngAt, VcClass, Verdict};
use crate::event::Event;
use crate::ids::{ChannelId, Endpoint, PacketId, PortId, SwitchId, Vc};
use crate::packet::{Packet, PacketKind};
use crate::routing::{Flow, Route};
use crate::switch::queues::{Popped, Queueing};
use crate::switch::{next_from, Pooling};
use crate::time::Time;
use std::num::NonZeroU32;

impl<M: Mechanism> Sim<M> {
    /// The head of `pkt`, which reached the switch input fed by channel `ch` one router latency
    /// ago, has been routed and written to its input queue (see `Event::HeadArrive`).
    pub(super) fn head_arrive(&mut self, ch: ChannelId, pkt: PacketId) {
        let Endpoint::Switch(s, port) = self.topo.channels[ch.idx()].to else { unreachable!("packets for hosts are delivered, not head-arrived") };
        let rate = self.topo.channels[ch.idx()].rate;
        let now = self.now;
        let p = self.slab.get_mut(pkt);
        p.head_in = now - self.p.router_latency;
        p.tail_in = p.head_in + rate.serialization(p.bytes);
        self.route_here(s, pkt);
        if let FlowControl::Lossy(rule) = self.p.flow {
            if self.drop_tail(rule, ch, s, port, pkt) {
                return;
            }
        }
        if M::HOOKS.switch_arrival {
            let mut copy = *self.slab.get(pkt);
            let sw = &self.switches[s.idx()];
            let ivc = sw.input(port.idx(), copy.vc as usize);
            let held = Held { buffer: ivc.held(ivc.pool(copy.out_port, copy.dst)), voq: sw.voq_row(copy.out_port, copy.vc)[port.idx()] };
            let mut ctx = mech_ctx!(self, RngAt::Switch(s));
            self.mech.on_switch_arrival(&mut ctx, s, port, &mut copy, held);
            *self.slab.get_mut(pkt) = copy;
        }
        let p = self.slab.get(pkt);
        let (vc, bytes, out, dst) = (p.vc, p.bytes, p.out_port, p.dst);
        let sw = &mut self.switches[s.idx()];
        let is_head = sw.enqueue(port, vc, out, pkt, bytes, dst, Self::COUNTS_VOQS);
        // Mechanisms with this hook run on undivided buffers only (`Sim::new`).
        if M::HOOKS.input_full && sw.input(port.idx(), vc as usize).bytes + self.p.data_bytes > self.p.in_cap {
            let tail = self.slab.get(pkt).tail_in.max(now);
            self.events.push(tail, Event::TailIn { sw: s, port, vc });
        }
        if let FlowControl::Pfc(pfc) = self.p.flow {
            let held = self.switches[s.idx()].input(port.idx(), vc as usize).bytes;
            self.pfc_watch(pfc, s, port, vc, held, now);
        }
        if is_head {
            self.request(s, port, pkt);
        }
        self.isolation_effects(s, port, vc);
    }

    /// The tail of an arrival is in input (`port`, `vc`) of switch `s`, which had no room for
    /// another data packet when its head came. Buffers fill flit by flit: the buffer is full
    /// only if it still holds that much and no packet of it is leaving across the crossbar (a
    /// leaving packet frees its space as fast as the arrival fills it, speedup >= 1). So a packet
    /// that cut through, or waited only while another crossed, occupied the buffer "only
    /// briefly" and is not among the packets of a full buffer (Santos et al. footnote 10).
    pub(super) fn tail_in(&mut self, s: SwitchId, port: PortId, vc: Vc) {
        let ivc = self.switches[s.idx()].input(port.idx(), vc as usize);
        let leaving = ivc.bytes != ivc.queued;
        if ivc.bytes + self.p.data_bytes > self.p.in_cap && !leaving {
            self.input_full(s, port, vc);
        }
    }

    /// Switch `s` sends control packet `pkt` (see `Switch::inputs`): it is at the head of the
    /// local input at once, its pipeline latency spent.
    pub(super) fn local_inject(&mut self, s: SwitchId, pkt: PacketId) {
        let port = PortId::new(self.switches[s.idx()].ports());
        let now = self.now;
        let p = self.slab.get_mut(pkt);
        p.head_in = now.saturating_sub(self.p.router_latency);
        p.tail_in = now;
        self.route_here(s, pkt);
        let p = self.slab.get(pkt);
        let (vc, bytes, out, dst) = (p.vc, p.bytes, p.out_port, p.dst);
        if self.switches[s.idx()].enqueue(port, vc, out, pkt, bytes, dst, Self::COUNTS_VOQS) {
            self.request(s, port, pkt);
        }
    }

    /// Routes `pkt` at switch `s`: to the port the switch before chose for it (lookahead), else
    /// now. If it leaves on a VC whose next buffers are per output port, routes it at the next
    /// switch too, so that it knows which buffer to take credits for (BookSim's lookahead
    /// routing).
    fn route_here(&mut self, s: SwitchId, pkt: PacketId) {
        let p = self.slab.get_mut(pkt);
        let sw = &mut self.switches[s.idx()];
        match p.ahead.take() {
            Some((port, leg)) => (p.out_port, p.leg) = (port, leg),
            None => p.out_port = self.routing.route(s, p.dst, Flow { src: p.src, id: p.flow }, &mut p.leg, &sw.outputs[..], &mut sw.rng),
        }
        let p = self.slab.get(pkt);
        let (out, ovc) = (p.out_port, self.out_vc(p) as usize);
        // The VC's organization answers most runs without reading the output, which misses the
        // cache on large networks; only a port facing a host differs from it.
        if self.vcs[ovc].queue.pooling(true) != Pooling::PerOutput || self.switches[s.idx()].outputs[out.idx()].vcs[ovc].credits.pooling != Pooling::PerOutput {
            return;
        }
        let Endpoint::Switch(n, _) = self.topo.channels[self.switches[s.idx()].outputs[out.idx()].link.ch.idx()].to else {
            unreachable!("only ports facing a switch have per-output buffers downstream")
        };
        // With this switch's stream and without the next switch's outputs, which another thread
        // may hold: routings read outputs only where they decide, at the first switch, and that
        // switch routes on arrival (inputs fed by hosts have no per-output buffers).
        let (sw, p) = (&mut self.switches[s.idx()], self.slab.get_mut(pkt));
        let mut leg = p.leg;
        let port = self.routing.route(n, p.dst, Flow { src: p.src, id: p.flow }, &mut leg, &crate::routing::Idle, &mut sw.rng);
        p.ahead = Some((port, leg));
    }

    /// Returns `bytes` of credit for buffer `pool` of input `port` upstream, once the tail has
    /// left (at `at`). The local input has no upstream.
    /// Under PFC, a resume if the buffer drained to XON instead; lossy links return nothing.
    fn return_credit(&mut self, s: SwitchId, port: PortId, vc: Vc, pool: u32, bytes: u32, at: crate::time::Time) {
        match self.p.flow {
            FlowControl::Credits => {}
            FlowControl::Pfc(pfc) => {
                let held = self.switches[s.idx()].input(port.idx(), vc as usize).bytes;
                return self.pfc_watch(pfc, s, port, vc, held, at);
            }
            FlowControl::Lossy(_) => return,
        }
        if let Some(up) = self.switches[s.idx()].input(port.idx(), vc as usize).upstream {
            self.post_to(at + up.latency, Event::Credit { ch: up.ch, vc, pool, bytes }, up.home);
        }
    }

    #[inline]
    fn is_control(&self, vc: Vc) -> bool {
        self.vcs[vc as usize].class == VcClass::Control
    }

    /// The VC `p` leaves its switch on: its mechanism VC in the phase its route has reached.
    #[inline]
    pub(super) fn out_vc(&self, p: &Packet<M::Header>) -> Vc {
        // With one routing phase the network's VCs are the mechanism's, and the arithmetic (a
        // division) gives the packet's own.
        if self.vcs.len() == self.mech_vcs {
            return p.vc;
        }
        (p.leg.phase as usize * self.mech_vcs + p.vc as usize % self.mech_vcs) as Vc
    }

    /// The network VCs that carry the packets of `vc`'s mechanism VC, one per routing phase.
    fn lane(&self, vc: Vc) -> impl Iterator<Item = usize> {
        let m = self.mech_vcs;
        (vc as usize % m..self.vcs.len()).step_by(m)
    }

    /// `pkt` reached the head of its input queue, its pipeline latency spent: it requests its
    /// output (or its mechanism drops it there).
    pub(super) fn request(&mut self, s: SwitchId, port: PortId, pkt: PacketId) {
        self.wake(s, self.slab.get(pkt).out_port);
        if M::HOOKS.queue_head && !self.judge_head(s, port, pkt) {
            self.drop_head(s, port, pkt);
            return;
        }
        let p = self.slab.get(pkt);
        let (vc, out) = (p.vc, p.out_port);
        self.switches[s.idx()].ask(port, out, vc);
        self.requesting(s, port, pkt, true);
        self.try_allocate(s, out);
    }

    /// Input (`port`, its VC) of switch `s` starts or stops requesting an output for `pkt`:
    /// tells the mechanism if it asked (`Hooks::request`).
    #[inline]
    fn requesting(&mut self, s: SwitchId, port: PortId, pkt: PacketId, on: bool) {
        if M::HOOKS.request {
            let p = self.slab.get(pkt);
            let req = Request { input: port, out: p.out_port, vc: p.vc, dst: p.dst };
            let mut ctx = mech_ctx!(self, RngAt::Switch(s));
            self.mech.on_request(&mut ctx, s, req, on);
        }
    }

    /// Asks the mechanism about head packet `pkt` (and schedules the recheck it asks for);
    /// false if it is to be dropped.
    fn judge_head(&mut self, s: SwitchId, port: PortId, pkt: PacketId) -> bool {
        let copy = *self.slab.get(pkt);
        let beyond = self.beyond(s, &copy);
        let mut ctx = mech_ctx!(self, RngAt::Switch(s));
        match self.mech.at_queue_head(&mut ctx, s, port, &copy, beyond) {
            Verdict::Keep => true,
            Verdict::Recheck(at) => {
                let generation = self.slab.generation(pkt);
                self.events.push(at.max(self.now), Event::HeadCheck { sw: s, port, pkt, generation });
                true
            }
            Verdict::Drop => false,
        }
    }

    /// The output VC of `p` at switch `s`, as the packet at the head of its input queue sees it.
    fn beyond(&self, s: SwitchId, p: &Packet<M::Header>) -> Beyond {
        let o = &self.switches[s.idx()].outputs[p.out_port.idx()];
        let ovc = &o.vcs[self.out_vc(p) as usize];
        let in_flight = o.link.rate.bytes_in(2 * o.link.latency) as u32;
        Beyond {
            room: self.p.out_cap.saturating_sub(ovc.bytes),
            drain: o.link.rate.serialization((ovc.bytes + ovc.credits.in_use()).saturating_sub(in_flight)),
        }
    }

    /// A recheck the mechanism asked for is due (`Event::HeadCheck`). If `pkt` still waits at
    /// the head of its queue it is judged again; dropped, it withdraws its request.
    pub(super) fn head_check(&mut self, s: SwitchId, port: PortId, pkt: PacketId, generation: u16) {
        if self.slab.generation(pkt) != generation {
            return;
        }
        let p = self.slab.get(pkt);
        let (vc, out) = (p.vc, p.out_port);
        let waiting = self.switches[s.idx()].input(port.idx(), vc as usize).queues.head(out) == Some(pkt);
        if !waiting || self.judge_head(s, port, pkt) {
            return;
        }
        self.switches[s.idx()].withdraw(port, out, vc);
        self.requesting(s, port, pkt, false);
        self.drop_head(s, port, pkt);
    }

    /// Removes the head packet `pkt` from its input queue, frees its buffer space once its tail
    /// has arrived, and counts the drop.
    fn drop_head(&mut self, s: SwitchId, port: PortId, pkt: PacketId) {
        let p = *self.slab.get(pkt);
        let next = self.take_head(s, port, p.vc, p.out_port, pkt);
        let sw = &mut self.switches[s.idx()];
        sw.outputs[p.out_port.idx()].vcs[p.vc as usize].queued -= p.bytes;
        let ivc = sw.input_mut(port.idx(), p.vc as usize);
        let pool = ivc.pool(p.out_port, p.dst);
        ivc.release(p.bytes, pool);
        self.return_credit(s, port, p.vc, pool, p.bytes, self.now.max(p.tail_in));
        if p.kind == PacketKind::Data {
            self.stats.counters.dropped += 1;
            self.copies.dropped(p.uid, p.dst);
        }
        self.slab.release(pkt);
        for n in next.into_iter().flatten() {
            self.request(s, port, n);
        }
        self.isolation_effects(s, port, p.vc);
    }

    /// Takes `pkt`, the head of input `port`'s queue for `out` on `vc`, out of its queues and
    /// (un)pins the input by its bypass count; returns the packets the buffer now newly offers.
    fn take_head(&mut self, s: SwitchId, port: PortId, vc: Vc, out: PortId, pkt: PacketId) -> [Option<PacketId>; 2] {
        let bytes = self.slab.get(pkt).bytes;
        let sw = &mut self.switches[s.idx()];
        let Popped { next, pinned } = sw.dequeue(port, vc, out, pkt, bytes, Self::COUNTS_VOQS);
        if pinned {
            sw.pinned[vc as usize] |= port.bit();
        } else {
            sw.pinned[vc as usize] &= !port.bit();
        }
        next
    }

    /// Grants output `out`'s crossbar port to one requesting input, if any can go.
    pub(super) fn try_allocate(&mut self, s: SwitchId, out: PortId) {
        let sw = &self.switches[s.idx()];
        if sw.out_req & out.bit() == 0 || sw.takes_only_control(out) && sw.out_req_control & out.bit() == 0 {
            return;
        }
        self.allocate(s, out);
    }

    /// `try_allocate` past the switch's masks. Apart, so that the many tries the masks answer
    /// do not save and restore the registers the whole allocation uses.
    #[inline(never)]
    fn allocate(&mut self, s: SwitchId, out: PortId) {
        if let Some((i, vc, pkt, next_vc)) = self.pick(s, out) {
            self.grant(s, i, out, vc, pkt, next_vc);
        }
    }

    /// The input, VC and packet that output `out` serves next (and the VC round-robin's next
    /// offset): VC classes in priority order, VCs of a class and inputs in round-robin order.
    fn pick(&self, s: SwitchId, out: PortId) -> Option<(PortId, Vc, PacketId, usize)> {
        let sw = &self.switches[s.idx()];
        let o = &sw.outputs[out.idx()];
        for group in &self.vc_groups {
            // Control packets cross even while the ports are moving a larger packet.
            let control = self.is_control(group[0]);
            if !control && sw.out_busy & out.bit() != 0 {
                return None;
            }
            let g = group.len();
            for k in 0..g {
                let vc = group[turn(k + o.vc_rr as usize, g)];
                let reach = self.reach[vc as usize];
                // Not even a control packet (the smallest) fits where this VC's packets may go:
                // skip without reading the inputs.
                if self.full(o, reach, self.p.control_bytes) == reach {
                    continue;
                }
                let req = o.vcs[vc as usize].req;
                let mut cand = if control { req } else { req & !sw.in_busy };
                // An input whose FIFO head has been bypassed its limit of times sends only that
                // head.
                let mut pinned = sw.pinned[vc as usize] & cand;
                while pinned != 0 {
                    let i = pinned.trailing_zeros();
                    pinned &= pinned - 1;
                    let head = sw.input(i as usize, vc as usize).queues.fifo_head().expect("a pinned input has a head");
                    if self.slab.get(head).out_port != out {
                        cand &= !(1 << i);
                    }
                }
                let head = |i: u32| sw.input(i as usize, vc as usize).queues.head(out).expect("a request has a head packet");
                let requesters = cand;
                let start = o.vcs[vc as usize].rr as u32;
                // Output VCs whose turn went to a packet without room: they take no other first.
                let mut blocked = 0u64;
                while cand != 0 && reach & !blocked != 0 {
                    let mut i = next_from(cand, start);
                    if self.p.oldest_first {
                        // The earliest arrival; ties go to the first in round-robin order.
                        let mut rest = cand & !(1 << i);
                        while rest != 0 {
                            let j = next_from(rest, start);
                            rest &= !(1 << j);
                            if self.slab.get(head(j)).head_in < self.slab.get(head(i)).head_in {
                                i = j;
                            }
                        }
                    }
                    cand &= !(1 << i);
                    let (i, mut pkt) = (PortId(i as u16), head(i));
                    let pooled = o.vcs[self.out_vc(self.slab.get(pkt)) as usize].pooled();
                    if pooled || self.p.isolates && !sw.extras[out.idx()].cam.is_empty() {
                        let extra = &sw.extras[out.idx()];
                        // The first packet the input offers that the input downstream has not
                        // stopped (congested-flow isolation) and whose buffer there it may take.
                        let mut may_take = |q: PacketId| {
                            let p = self.slab.get(q);
                            !extra.stopped(vc, p.dst) && (!pooled || blocked & 1 << self.out_vc(p) == 0 && self.pool_turn(s, out, vc, requesters, i, q))
                        };
                        match sw.input(i.idx(), vc as usize).queues.offer(out, &mut may_take) {
                            Some(q) => pkt = q,
                            None => continue,
                        }
                    }
                    let p = self.slab.get(pkt);
                    let ovc = self.out_vc(p);
                    if blocked & 1 << ovc != 0 {
                        continue;
                    }
                    let v = &o.vcs[ovc as usize];
                    if v.bytes + p.bytes <= self.p.out_cap {
                        return Some((i, vc, pkt, turn(k + o.vc_rr as usize + 1, g)));
                    }
                    blocked |= 1 << ovc;
                }
            }
        }
        None
    }

    /// Whether input `i`'s packet `q` for output `out` (offered on input VC `vc`) may take its
    /// downstream buffer's credits: there are enough, and no input before `i` in that buffer's
    /// round-robin order among `requesters` offers `out` a packet for the same buffer.
    fn pool_turn(&self, s: SwitchId, out: PortId, vc: Vc, requesters: u64, i: PortId, q: PacketId) -> bool {
        let sw = &self.switches[s.idx()];
        let p = self.slab.get(q);
        let ovc = self.out_vc(p);
        let v = &sw.outputs[out.idx()].vcs[ovc as usize];
        let pool = v.credits.pool(p);
        if v.credits.free(pool) < p.bytes {
            return false;
        }
        let mut rest = requesters;
        while rest != 0 {
            let j = next_from(rest, sw.extras[out.idx()].turn[ovc as usize][pool] as u32);
            if j == i.0 as u32 {
                return true;
            }
            rest &= !(1 << j);
            let mut same = |r: PacketId| {
                let r = self.slab.get(r);
                self.out_vc(r) == ovc && v.credits.pool(r) == pool
            };
            if sw.input(j as usize, vc as usize).queues.offer(out, &mut same).is_some() {
                return false;
            }
        }
        unreachable!("input {i:?} is among the requesters")
    }

    /// The VCs of `reach` whose output buffer at `o` has no room for `bytes` more.
    #[inline]
    fn full(&self, o: &crate::switch::Output, reach: u64, bytes: u32) -> u64 {
        let mut full = 0;
        let mut rest = reach;
        while rest != 0 {
            let v = rest.trailing_zeros();
            rest &= rest - 1;
            if o.vcs[v as usize].bytes + bytes > self.p.out_cap {
                full |= 1 << v;
            }
        }
        full
    }

    /// Moves `pkt`, the head of input (`i`, `vc`) for `out`, across the crossbar into the output
    /// VC its route gives it.
    fn grant(&mut self, s: SwitchId, i: PortId, out: PortId, vc: Vc, pkt: PacketId, next_vc: usize) {
        let inputs = self.switches[s.idx()].input_count();
        let xbar = self.switches[s.idx()].xbar;
        let now = self.now;
        let occupies = !self.is_control(vc);
        let out_vc = self.out_vc(self.slab.get(pkt));
        let next = self.take_head(s, i, vc, out, pkt);
        let sw = &mut self.switches[s.idx()];
        if occupies {
            sw.in_reads[i.idx()] += 1;
            if sw.in_reads[i.idx()] == self.p.read_ports {
                sw.in_busy |= i.bit();
            }
        }
        sw.withdraw(i, out, vc);
        self.requesting(s, i, pkt, false);
        let sw = &mut self.switches[s.idx()];
        sw.queued(out, out_vc);
        if occupies {
            sw.out_busy |= out.bit();
        }
        let p = self.slab.get_mut(pkt);
        let from = sw.input(i.idx(), vc as usize).pool(out, p.dst);
        let o = &mut sw.outputs[out.idx()];
        // The input after `i`, wrapping (without a division).
        let after = if i.idx() + 1 == inputs { 0 } else { i.idx() as u8 + 1 };
        o.vcs[vc as usize].rr = after;
        o.vc_rr = next_vc as u8;
        if occupies {
            o.crossing = from;
        }
        p.vc = out_vc;
        let ovc = &mut o.vcs[out_vc as usize];
        if ovc.pooled() {
            let pool = ovc.credits.pool(p);
            ovc.credits.take(pool, p.bytes);
            sw.extras[out.idx()].turn[out_vc as usize][pool] = after;
        }
        ovc.fifo.push_back(pkt, &mut self.slab);
        let p = self.slab.get_mut(pkt);
        ovc.bytes += p.bytes;
        ovc.peak = ovc.peak.max(ovc.bytes);
        sw.filled(out, out_vc);
        // The tail reaches the output buffer when the crossbar has moved the whole packet, and
        // not before it arrived at the input.
        let done = (now + xbar.serialization(p.bytes)).max(p.tail_in);
        p.tail_in = done;
        if M::HOOKS.queue_head {
            p.queued = p.queued_until(now, self.p.router_latency);
        }
        let bytes = p.bytes;
        self.events.push(done, Event::XbarDone { sw: s, inp: i, out, vc, bytes, occupied: occupies });
        for n in next.into_iter().flatten() {
            self.request(s, i, n);
        }
        self.isolation_effects(s, i, vc);
        self.try_link(s, out);
    }

    pub(super) fn xbar_done(&mut self, s: SwitchId, i: PortId, out: PortId, vc: Vc, bytes: u32, occupied: bool) {
        let sw = &mut self.switches[s.idx()];
        if occupied {
            sw.in_reads[i.idx()] -= 1;
            sw.in_busy &= !i.bit();
            sw.out_busy &= !out.bit();
        }
        let o = &mut sw.outputs[out.idx()];
        o.vcs[vc as usize].queued -= bytes;
        let pool = if occupied { o.crossing } else { 0 };
        let ivc = sw.input_mut(i.idx(), vc as usize);
        // A control packet crosses without holding the port, from an undivided buffer.
        debug_assert!(occupied || ivc.pooling == Pooling::Shared);
        ivc.release(bytes, pool);
        self.return_credit(s, i, vc, pool, bytes, self.now);
        // The input is free again. A bypass FIFO offers its head first (FIFO order), then
        // `out` takes its next input, then the input's other outputs, starting after `out` so
        // that none is favoured.
        if let Some(head) = self.switches[s.idx()].input(i.idx(), vc as usize).queues.fifo_head() {
            let head_out = self.slab.get(head).out_port;
            self.try_allocate(s, head_out);
        }
        self.try_allocate(s, out);
        let mut pending = self.switches[s.idx()].in_req[i.idx()];
        while pending != 0 {
            let o = next_from(pending, out.0 as u32 + 1);
            pending &= !(1 << o);
            self.try_allocate(s, PortId(o as u16));
        }
    }

    /// Output `port`'s link finished a packet (or a deferred start is due).
    pub(super) fn link_free(&mut self, s: SwitchId, port: PortId) {
        let o = &mut self.switches[s.idx()].outputs[port.idx()];
        if o.stretch > 0 {
            let extra = std::mem::take(&mut o.stretch);
            self.events.push(self.now + extra, Event::LinkFree { ch: o.link.ch });
            return;
        }
        let freed = self.switches[s.idx()].end_transmission(port);
        self.try_link(s, port);
        if freed {
            self.try_allocate(s, port);
        }
    }

    /// Under `switch.link_order = "oldest_first"`, the head of output `o`'s non-control VCs
    /// whose tail reached the buffer first and whose buffer downstream has room for it, as
    /// `try_link`'s choice (ties to the lower VC).
    fn oldest_data_head(&self, o: &crate::switch::Output) -> Option<(Vc, PacketId, u32, Time, usize)> {
        let mut oldest: Option<(Vc, PacketId, u32, Time, usize)> = None;
        for (vc, ovc) in o.vcs.iter().enumerate().map(|(v, ovc)| (v as Vc, ovc)).filter(|&(v, _)| !self.is_control(v)) {
            let Some(pkt) = ovc.fifo.front() else { continue };
            let p = self.slab.get(pkt);
            if ovc.may_send(p) && oldest.is_none_or(|(.., t, _)| p.tail_in < t) {
                oldest = Some((vc, pkt, p.bytes, p.tail_in, o.link_rr as usize));
            }
        }
        oldest
    }

    /// Starts sending the next packet on output `port`'s link if the link is idle and the
    /// downstream buffer has credits for a whole packet (virtual cut-through): the first class
    /// with such a packet, its VCs in round-robin order (after control, the oldest data packet
    /// of any VC under `switch.link_order = "oldest_first"`). While a
    /// lower-class packet is on the link, control packets interleave (see the module doc of
    /// `sim`).
    pub(super) fn try_link(&mut self, s: SwitchId, port: PortId) {
        let sw = &self.switches[s.idx()];
        // A busy link takes nothing but a control packet to interleave.
        if sw.out_queued & port.bit() == 0 || sw.out_sending & port.bit() != 0 && sw.out_queued_control & port.bit() == 0 {
            return;
        }
        self.link(s, port);
    }

    /// `try_link` past the switch's masks, apart for the reason `allocate` is.
    #[inline(never)]
    fn link(&mut self, s: SwitchId, port: PortId) {
        let sw = &self.switches[s.idx()];
        let interleave = sw.out_sending & port.bit() != 0;
        let now = self.now;
        let o = &sw.outputs[port.idx()];
        let crate::switch::OutLink { ch, rate, latency, to_host, home } = o.link;
        if interleave && o.sending.is_some_and(|(vc, _)| self.is_control(vc)) {
            return;
        }
        let mut chosen = None;
        'groups: for group in &self.vc_groups {
            if interleave && !self.is_control(group[0]) {
                break;
            }
            if self.p.link_oldest_first && !self.is_control(group[0]) {
                chosen = self.oldest_data_head(o);
                break;
            }
            let g = group.len();
            for k in 0..g {
                let vc = group[turn(k + o.link_rr as usize, g)];
                let ovc = &o.vcs[vc as usize];
                let Some(pkt) = ovc.fifo.front() else { continue };
                let p = self.slab.get(pkt);
                if !ovc.may_send(p) {
                    continue;
                }
                chosen = Some((vc, pkt, p.bytes, p.tail_in, turn(k + o.link_rr as usize + 1, g)));
                break 'groups;
            }
        }
        let Some((vc, pkt, bytes, tail_at_output, next_rr)) = chosen else { return };
        let ser = rate.serialization(bytes);
        // A tail may not leave before it reached the output buffer.
        let earliest = tail_at_output.saturating_sub(ser);
        // Only a mechanism that sees transmissions reads it (a sum over the routing's phases).
        let queued = if M::HOOKS.transmit { self.lane(vc).map(|v| self.switches[s.idx()].outputs[port.idx()].vcs[v].queued).sum() } else { 0 };
        let sw = &mut self.switches[s.idx()];
        if earliest > now {
            if !interleave {
                sw.out_sending |= port.bit();
                self.events.push(earliest, Event::LinkFree { ch });
            }
            return;
        }
        let o = &mut sw.outputs[port.idx()];
        o.link_rr = next_rr as u8;
        let ovc = &mut o.vcs[vc as usize];
        ovc.fifo.pop_front(&self.slab);
        let pool = ovc.credits.pool(self.slab.get(pkt));
        if !ovc.pooled() && self.p.flow.credits() {
            ovc.credits.take(pool, bytes);
        }
        let mut view = OutputView {
            queued_bytes: queued,
            downstream_credits: ovc.credits.free(pool),
            buffer_bytes: self.p.in_cap,
            to_host,
            link_rate: rate,
            voqs: None,
            root_cfq_bytes: 0,
        };
        if interleave {
            ovc.bytes -= bytes;
            o.stretch += ser;
        } else {
            o.sending = Some((vc, NonZeroU32::new(bytes).expect("a packet has bytes")));
            sw.out_sending |= port.bit();
        }
        sw.unqueued(port, vc);
        // After the queued mask: whether the link's release needs an event depends on it.
        if !interleave {
            self.link_frees(s, port, now + ser);
        }
        // Filled only where there are phases to add: the one-phase case pays no clearing.
        let mut summed: [u32; crate::config::MAX_SWITCH_PORTS as usize + 1];
        if M::HOOKS.voq_detail && self.vcs[vc as usize].queue.per_output() {
            let sw = &self.switches[s.idx()];
            let mut lanes = self.lane(vc).map(|v| sw.voq_row(port, v as Vc));
            let first = lanes.next().expect("a mechanism VC has a network VC in each phase");
            let row = match lanes.next() {
                None => first,
                Some(second) => {
                    summed = [0; crate::config::MAX_SWITCH_PORTS as usize + 1];
                    let summed = &mut summed[..first.len()];
                    summed.copy_from_slice(first);
                    for next in std::iter::once(second).chain(lanes) {
                        summed.iter_mut().zip(next).for_each(|(a, b)| *a += b);
                    }
                    summed
                }
            };
            view.voqs = Some(crate::cc::Voqs::new(row));
        }
        if M::HOOKS.voq_detail && matches!(self.vcs[vc as usize].queue, crate::switch::queues::Spec::Fbicm(_)) {
            view.root_cfq_bytes = self.switches[s.idx()].root_cfq_bytes(port, vc);
        }
        if M::HOOKS.transmit {
            let mut copy = *self.slab.get(pkt);
            let mut ctx = mech_ctx!(self, RngAt::Switch(s));
            self.mech.on_transmit(&mut ctx, s, port, &mut copy, view);
            *self.slab.get_mut(pkt) = copy;
        }
        self.stats.sent(now, ch, bytes, ser);
        if to_host {
            self.events.push(now + latency + ser, Event::Deliver { ch, pkt });
        } else {
            self.post_to(now + latency + self.p.router_latency, Event::HeadArrive { ch, pkt }, home);
        }
        if interleave {
            // More control packets may be waiting to interleave.
            self.try_link(s, port);
        }
    }

    /// Tells the mechanism that input buffer (port, VC) of switch `s` is full, with its data
    /// packets (uid, output port).
    fn input_full(&mut self, s: SwitchId, port: PortId, vc: Vc) {
        let mut contents = std::mem::take(&mut self.scratch);
        contents.clear();
        self.switches[s.idx()].input(port.idx(), vc as usize).queues.for_each(|id| {
            let p = self.slab.get(id);
            if p.kind == PacketKind::Data {
                contents.push((p.uid, p.out_port));
            }
        });
        let mut ctx = mech_ctx!(self, RngAt::Switch(s));
        self.mech.on_input_full(&mut ctx, s, port, vc, &contents);
        self.scratch = contents;
    }
}

/// `i` modulo `n`: the round-robin offsets (a group's size is 1 but where a mechanism or the
/// routing's phases put several VCs in one class, and a division is 20 to 40 cycles).
#[inline]
fn turn(i: usize, n: usize) -> usize {
    if n == 1 {
        0
    } else {
        i % n
    }
}
