//! Invariants of the network, checked from the simulation's state (tests call
//! [`Sim::check_invariants`] at the end of every run):
//! - conservation: every injected data packet is delivered, dropped (and counted), or still
//!   somewhere in the network: a NIC's transmit FIFO, an input queue, an output buffer, or on
//!   a link;
//! - credits (credit flow control; under PFC they only say who is paused, lossy links keep
//!   none): for every channel,
//!   VC and downstream buffer (one, or one per output port or destination where the buffers
//!   are divided), the upstream's credits + bytes it granted the crossbar but has not sent
//!   (divided buffers only: their credits are taken at the crossbar) + bytes on the link +
//!   bytes in the downstream buffer + credits travelling back = the buffer's capacity;
//! - no buffer ever held more than its capacity (high-water marks), nor a transmit FIFO;
//! - a bypass FIFO's arrival order lists exactly its queued packets, and its input is pinned
//!   exactly when its head has been bypassed the limit of times;
//! - each input queue's byte count is the sum of its packets;
//! - an input that offers an output a packet requests that output (no request is lost);
//! - an output's CAM lines (congested-flow isolation) are distinct and no more than the input
//!   downstream can hold;
//! - a switch output's link release is deferred only while no packet is in its buffer and no
//!   input asks for it (`sim::lazy_link`);
//! - each output's `queued` bytes per VC are those of the packets routed to it that are still in
//!   the switch's input buffers (queued, or granted with their tail still crossing).

use super::Sim;
use crate::cc::Mechanism;
use crate::event::Event;
use crate::ids::{ChannelId, Endpoint, PacketId, PortId};
use crate::packet::{Packet, PacketKind};
use crate::switch::queues::Queueing;
use crate::topology::Channel;
use rustc_hash::{FxHashMap, FxHashSet};

/// The most lines an input holds per VC, so the most its sender's CAM mirrors: a root per
/// output port and its hot queues.
const CAM_LINES_PER_VC: usize = crate::config::MAX_SWITCH_PORTS as usize + crate::switch::queues::isolation::MAX_HOT_QUEUES as usize;

/// Bytes per (channel, VC, downstream buffer).
type PerBuffer = FxHashMap<(usize, usize, u32), u64>;

/// What one simulation holds of the quantities the run-wide invariants add up: a split run's
/// partitions each hold part (`check_split_invariants`).
#[derive(Default)]
struct Tally {
    /// Bytes on the link, in returning credits, and (per-output buffers) granted upstream but
    /// not yet sent.
    on_link: PerBuffer,
    credits_back: PerBuffer,
    reserved: PerBuffer,
    data_in_network: u64,
    control_in_network: u64,
    queued_control: u64,
}

impl Tally {
    fn absorb(&mut self, o: Tally) {
        for (mine, theirs) in [(&mut self.on_link, o.on_link), (&mut self.credits_back, o.credits_back), (&mut self.reserved, o.reserved)] {
            for (k, v) in theirs {
                *mine.entry(k).or_default() += v;
            }
        }
        self.data_in_network += o.data_in_network;
        self.control_in_network += o.control_in_network;
        self.queued_control += o.queued_control;
    }
}

/// The invariants of a run split over threads, after it (`sim::parallel`): each partition's
/// own, then conservation over all of them and credits over each channel's two ends.
pub(crate) fn check_split_invariants<M: Mechanism>(sims: &[Sim<M>], of_switch: &[u16], of_host: &[u16]) -> Result<(), String> {
    let mut all = Tally::default();
    let mut counters = crate::stats::RawCounters::default();
    let owner = |e: Endpoint| match e {
        Endpoint::Host(n) => &sims[of_host[n.idx()] as usize],
        Endpoint::Switch(s, _) => &sims[of_switch[s.idx()] as usize],
    };
    // A packet on a channel is held downstream; its buffer there is the sender's to tell.
    let pool_of = |ch: ChannelId, p: &Packet<M::Header>| owner(sims[0].topo.channels[ch.idx()].from).pool_of(ch, p);
    for sim in sims {
        all.absorb(sim.tally(&pool_of)?);
        counters.absorb(&sim.stats.counters);
    }
    sims[0].check_totals(&all, &counters, |c| owner(c.from), |c| owner(c.to))
}

impl<M: Mechanism> Sim<M> {
    pub fn check_invariants(&self) -> Result<(), String> {
        let tally = self.tally(&|ch, p| self.pool_of(ch, p))?;
        self.check_totals(&tally, &self.stats.counters, |_| self, |_| self)
    }

    /// Checks what each switch and NIC holds, and tallies what the run-wide checks add up
    /// (`pool_of`: the downstream buffer a packet on a channel takes).
    fn tally(&self, pool_of: &dyn Fn(ChannelId, &Packet<M::Header>) -> u32) -> Result<Tally, String> {
        let nv = self.vcs.len();
        let mut on_link = PerBuffer::default();
        let mut credits_back = PerBuffer::default();
        let mut reserved = PerBuffer::default();
        // Per (switch, output, VC): bytes routed there and still in input buffers.
        let mut routed: Vec<Vec<u64>> = self.switches.iter().map(|sw| vec![0; sw.outputs.len() * nv]).collect();
        let mut data_in_network = 0u64;
        let mut control_in_network = 0u64;
        let mut count = |kind: PacketKind| match kind {
            PacketKind::Data => data_in_network += 1,
            PacketKind::Control(_) => control_in_network += 1,
        };
        for (ev, packet) in self.pending() {
            match (*ev, packet) {
                (Event::HeadArrive { ch, .. } | Event::Deliver { ch, .. }, Some(p)) => {
                    *on_link.entry((ch.idx(), p.vc as usize, pool_of(ch, p))).or_default() += p.bytes as u64;
                    count(p.kind);
                }
                (Event::Credit { ch, vc, pool, bytes }, _) => *credits_back.entry((ch.idx(), vc as usize, pool)).or_default() += bytes as u64,
                (Event::XbarDone { sw, out, vc, bytes, .. }, _) => routed[sw.idx()][out.idx() * nv + vc as usize] += bytes as u64,
                _ => {}
            }
        }
        for (s, sw) in self.switches.iter().enumerate() {
            for (port, vcs) in sw.inputs().enumerate() {
                for (vc, ivc) in vcs.iter().enumerate() {
                    // The local input (last) has no upstream and no capacity.
                    if port < sw.ports() && ivc.peak > ivc.capacity {
                        return Err(format!("switch {s} input {port} VC {vc} held {} bytes, capacity {}", ivc.peak, ivc.capacity));
                    }
                    let mut voqs = vec![0; sw.ports()];
                    ivc.queues.for_each(|pkt| {
                        let p = self.slab.get(pkt);
                        count(p.kind);
                        routed[s][p.out_port.idx() * nv + vc] += p.bytes as u64;
                        voqs[p.out_port.idx()] += p.bytes;
                    });
                    if voqs.iter().sum::<u32>() != ivc.queued {
                        return Err(format!("switch {s} input {port} VC {vc}: its queued byte count is not the sum of its packets"));
                    }
                    if let Some(out) = (0..sw.ports()).find(|&out| sw.counts_voqs() && sw.voq_row(PortId::new(out), vc as crate::ids::Vc)[port] != voqs[out]) {
                        return Err(format!(
                            "switch {s} input {port} VC {vc}: output {out}'s count of this virtual output queue is not the sum of its packets"
                        ));
                    }
                    let out_of = |pkt: PacketId| self.slab.get(pkt).out_port;
                    ivc.queues.check(&out_of, sw.pinned[vc] >> port & 1 == 1).map_err(|e| format!("switch {s} input {port} VC {vc}: {e}"))?;
                    if let Some(out) = (0..sw.ports())
                        .find(|&out| ivc.queues.head(PortId::new(out)).is_some_and(|p| out_of(p).idx() == out) && sw.outputs[out].vcs[vc].req >> port & 1 == 0)
                    {
                        return Err(format!("switch {s} input {port} VC {vc} offers output {out} a packet but does not request it (a lost request)"));
                    }
                }
            }
            for (port, o) in sw.outputs.iter().enumerate() {
                if (sw.out_req >> port & 1 == 1) != o.vcs.iter().any(|v| v.req != 0) {
                    return Err(format!("switch {s} output {port}: its bit in the switch's requested outputs disagrees with its requests"));
                }
                if (sw.out_queued >> port & 1 == 1) != o.vcs.iter().any(|v| !v.fifo.is_empty()) {
                    return Err(format!("switch {s} output {port}: its bit in the switch's outputs with packets disagrees with its buffer"));
                }
                let control = |v: &usize| self.vcs[*v].class == crate::cc::VcClass::Control;
                if (sw.out_req_control >> port & 1 == 1) != o.vcs.iter().enumerate().any(|(v, ovc)| control(&v) && ovc.req != 0) {
                    return Err(format!("switch {s} output {port}: its bit in the switch's outputs requested on a control VC disagrees with its requests"));
                }
                if (sw.out_queued_control >> port & 1 == 1) != o.vcs.iter().enumerate().any(|(v, ovc)| control(&v) && !ovc.fifo.is_empty()) {
                    return Err(format!("switch {s} output {port}: its bit in the switch's outputs holding a control packet disagrees with its buffer"));
                }
                let full = o.vcs.iter().enumerate().all(|(v, ovc)| control(&v) || ovc.bytes + self.p.control_bytes > self.p.out_cap);
                if (sw.out_full >> port & 1 == 1) != full {
                    return Err(format!("switch {s} output {port}: its bit in the switch's full outputs disagrees with its buffers"));
                }
                if o.defers_free() && (sw.out_queued | sw.out_req) >> port & 1 == 1 {
                    return Err(format!("switch {s} output {port}: its link's release is deferred while a packet waits for the output (`sim::lazy_link`)"));
                }
                // A CAM line mirrors one line of the input downstream: one per (VC, id).
                let cam = &sw.extras[port].cam;
                for (i, l) in cam.iter().enumerate() {
                    if cam[..i].iter().any(|m| (m.vc, m.id) == (l.vc, l.id)) {
                        return Err(format!("switch {s} output {port}: CAM line {} on VC {} twice", l.id, l.vc));
                    }
                }
                if cam.len() > CAM_LINES_PER_VC * nv {
                    return Err(format!("switch {s} output {port}: {} CAM lines, more than the input downstream can hold", cam.len()));
                }
                for (vc, ovc) in o.vcs.iter().enumerate() {
                    if ovc.peak > self.p.out_cap {
                        return Err(format!("switch {s} output {port} VC {vc} held {} bytes, capacity {}", ovc.peak, self.p.out_cap));
                    }
                    let ch = self.topo.switches[s].ports[port].out.idx();
                    for pkt in ovc.fifo.iter(&self.slab) {
                        count(self.slab.get(pkt).kind);
                        if ovc.pooled() {
                            *reserved.entry((ch, vc, ovc.credits.pool(self.slab.get(pkt)) as u32)).or_default() += self.slab.get(pkt).bytes as u64;
                        }
                    }
                    if ovc.queued as u64 != routed[s][port * nv + vc] {
                        return Err(format!(
                            "switch {s} output {port} VC {vc}: queued {} bytes but {} are in input buffers",
                            ovc.queued,
                            routed[s][port * nv + vc]
                        ));
                    }
                }
            }
        }
        for (n, nic) in self.nics.iter().enumerate() {
            if nic.hot.len() > self.p.nic_hot_queues || nic.hot.iter().any(|&(id, _)| !nic.lines.iter().any(|l| l.0 == id)) {
                return Err(format!("NIC {n}: {} hot-packet queues (at most {}), each for a line it holds", nic.hot.len(), self.p.nic_hot_queues));
            }
            let bytes: u32 = nic
                .tx
                .iter()
                .chain(nic.hot.iter().flat_map(|(_, packets)| packets))
                .map(|&pkt| {
                    count(self.slab.get(pkt).kind);
                    self.slab.get(pkt).bytes
                })
                .sum();
            if bytes != nic.tx_bytes || bytes > self.p.tx_fifo {
                return Err(format!(
                    "NIC {n}: its transmit FIFO and hot-packet queues hold {bytes} bytes, counted {}, capacity {}",
                    nic.tx_bytes, self.p.tx_fifo
                ));
            }
            // Oldest first serves the ring in age order, each queue filed under its current age.
            if self.p.nic_by_age {
                if let Some(e) = nic.ring.iter().find(|e| e.age != self.age(e.qp)) {
                    return Err(format!(
                        "NIC {n}: send queue {:?} is filed in its ring at age {} ps, its oldest packet made at {} ps",
                        e.qp,
                        e.age,
                        self.age(e.qp)
                    ));
                }
                if nic.ring.iter().zip(nic.ring.iter().skip(1)).any(|(a, b)| a.age > b.age) {
                    return Err(format!("NIC {n}: its ring of send queues is out of age order"));
                }
            }
        }
        let queued_control = self.control.iter().map(|q| q.len() as u64).sum();
        Ok(Tally { on_link, credits_back, reserved, data_in_network, control_in_network, queued_control })
    }

    /// Conservation against the packet counters `k`, and credits on every channel, whose
    /// sending end `up` and receiving end `down` hold (this simulation, unless split).
    fn check_totals<'a>(
        &'a self,
        t: &Tally,
        k: &crate::stats::RawCounters,
        up: impl Fn(&Channel) -> &'a Sim<M>,
        down: impl Fn(&Channel) -> &'a Sim<M>,
    ) -> Result<(), String> {
        let nv = self.vcs.len();
        let expected = k.injected - k.delivered - k.duplicates - k.dropped;
        if t.data_in_network != expected {
            return Err(format!(
                "conservation: {} data packets in the network but injected {} - delivered {} - duplicates {} - dropped {} = {expected}",
                t.data_in_network, k.injected, k.delivered, k.duplicates, k.dropped
            ));
        }
        if t.control_in_network + t.queued_control + k.control_delivered + k.control_dropped != k.control_sent {
            return Err(format!(
                "conservation of control packets: {} in network + {} queued + {} delivered + {} dropped != {} sent",
                t.control_in_network, t.queued_control, k.control_delivered, k.control_dropped, k.control_sent
            ));
        }
        // Under PFC credits only say whether a sender is paused, and lossy senders keep none:
        // buffers are checked above.
        if !self.p.flow.credits() {
            return Ok(());
        }
        // Bytes in the downstream buffer `pool` of channel `c`'s VC `vc`.
        let buffered = |c: &Channel, vc: usize, pool: u32| -> u64 {
            match c.to {
                Endpoint::Host(_) => 0,
                Endpoint::Switch(s, p) => down(c).switches[s.idx()].input(p.idx(), vc).held(pool) as u64,
            }
        };
        let check = |ch: usize, vc: usize, pool: u32| -> Result<(), String> {
            let c = &self.topo.channels[ch];
            let credits = up(c).sender_credits(c, vc);
            let held = credits.free(pool as usize);
            let key = (ch, vc, pool);
            let [link, back, granted] = [&t.on_link, &t.credits_back, &t.reserved].map(|m| m.get(&key).copied().unwrap_or(0));
            let buffered = buffered(c, vc, pool);
            let total = held as u64 + granted + link + buffered + back;
            if total != credits.capacity as u64 {
                return Err(format!(
                    "credits on channel {} ({}) VC {vc} buffer {pool}: {held} held + {granted} granted + {link} on the link + {buffered} buffered + {back} returning = {total}, capacity {}",
                    ch, self.topo.channel_names[ch], credits.capacity
                ));
            }
            Ok(())
        };
        // A buffer whose sender holds all its credits and which holds nothing is right unless
        // something is in transit for it (the tallies' keys): only the others are looked up, so
        // that buffers per destination (thousands per output VC) cost nothing when idle.
        let mut to_check: FxHashSet<(usize, usize, u32)> = t.on_link.keys().chain(t.credits_back.keys()).chain(t.reserved.keys()).copied().collect();
        for (ch, c) in self.topo.channels.iter().enumerate() {
            for vc in 0..nv {
                let credits = up(c).sender_credits(c, vc);
                let taken = credits.buffers().filter(|&(pool, held)| held != credits.capacity || buffered(c, vc, pool as u32) != 0);
                to_check.extend(taken.map(|(pool, _)| (ch, vc, pool as u32)));
                if let Endpoint::Switch(s, p) = c.to {
                    let holding = down(c).switches[s.idx()].input(p.idx(), vc).pools.away().filter(|&(_, held)| held != 0);
                    to_check.extend(holding.map(|(pool, _)| (ch, vc, pool as u32)));
                }
            }
        }
        let mut keys: Vec<_> = to_check.into_iter().collect();
        keys.sort_unstable();
        keys.into_iter().try_for_each(|(ch, vc, pool)| check(ch, vc, pool))
    }

    /// The downstream buffer a packet on channel `ch` takes (`Credits::pool`).
    fn pool_of(&self, ch: ChannelId, p: &Packet<M::Header>) -> u32 {
        self.sender_credits(&self.topo.channels[ch.idx()], p.vc as usize).pool(p) as u32
    }

    /// The credits channel `c`'s sender (a switch output or a NIC, held here) keeps for VC `vc`.
    fn sender_credits(&self, c: &Channel, vc: usize) -> &crate::switch::credits::Credits {
        match c.from {
            Endpoint::Switch(s, port) => &self.switches[s.idx()].outputs[port.idx()].vcs[vc].credits,
            Endpoint::Host(n) => &self.nics[n.idx()].credits[vc],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::none::NoCc;
    use crate::config::Config;
    use crate::time::PS_PER_NS;

    /// A 16-host tree with a buffer per destination at every input, halfway through a run at
    /// 0.8 load: thousands of buffers, most idle, some with packets and credits in transit.
    fn voqnet_mid_run() -> Sim<NoCc> {
        let text = "[simulation]\nmeasure_ns = 2000\n[switch]\ninput_queues = \"voqnet\"\n[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2\n[[traffic]]\npattern = \"uniform\"\nload = 0.8\n";
        let cfg = Config::from_toml_str(text, &[]).unwrap();
        let mut sim = Sim::new(&cfg, NoCc).unwrap();
        sim.run_until(1000 * PS_PER_NS, &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
        sim.check_invariants().unwrap();
        sim
    }

    /// The sender's counter for the buffer a packet on its way to a switch will take.
    fn first_head_on_a_link(sim: &Sim<NoCc>) -> (ChannelId, usize, usize) {
        sim.pending()
            .find_map(|(ev, p)| match (ev, p) {
                (Event::HeadArrive { ch, .. }, Some(p)) => Some((*ch, p.vc as usize, sim.pool_of(*ch, p) as usize)),
                _ => None,
            })
            .expect("a packet on a link halfway through")
    }

    fn credits_mut(sim: &mut Sim<NoCc>, ch: ChannelId, vc: usize) -> &mut crate::switch::credits::Credits {
        match sim.topo.channels[ch.idx()].from {
            Endpoint::Host(n) => &mut sim.nics[n.idx()].credits[vc],
            Endpoint::Switch(s, p) => &mut sim.switches[s.idx()].outputs[p.idx()].vcs[vc].credits,
        }
    }

    #[test]
    fn a_credit_counter_off_by_a_byte_is_caught() {
        let mut sim = voqnet_mid_run();
        let (ch, vc, pool) = first_head_on_a_link(&sim);
        credits_mut(&mut sim, ch, vc).take(pool, 1);
        let e = sim.check_invariants().unwrap_err();
        assert!(e.starts_with(&format!("credits on channel {}", ch.idx())) && e.contains(&format!("buffer {pool}")), "{e}");
    }

    #[test]
    fn an_idle_buffer_with_a_packet_on_its_way_is_caught() {
        // The sender holds every credit of the buffer the packet on the link will take, and
        // the buffer holds nothing: only the tallies know of the packet.
        let mut sim = voqnet_mid_run();
        let (ch, vc, pool) = first_head_on_a_link(&sim);
        let credits = credits_mut(&mut sim, ch, vc);
        credits.give(pool, credits.capacity - credits.free(pool));
        let Endpoint::Switch(s, p) = sim.topo.channels[ch.idx()].to else { panic!("a head arrives at a switch") };
        let ivc = sim.switches[s.idx()].input_mut(p.idx(), vc);
        let held = ivc.held(pool as u32);
        ivc.pools.sub(pool, held);
        let e = sim.check_invariants().unwrap_err();
        assert!(e.contains(&format!("VC {vc} buffer {pool}")) && e.contains("on the link"), "{e}");
    }
}
