//! Run-time deadlock detection: a watchdog that stops a run in which packets are in the network
//! but none has crossed a channel for `simulation.watchdog_ns`, and names the channels that wait
//! on each other.
//!
//! Credit-based flow control is lossless, so a cycle of full buffers whose packets each wait for
//! the next buffer never drains (Dally and Seitz's channel dependency cycle). Routes known at
//! build time are checked for such cycles statically (`routing::cycles`); this catches what the
//! static check cannot see or was told to allow (`routing.allow_deadlock`), so that a deadlocked
//! run never ends with exit 0 and plausible-looking throughput.

use super::Sim;
use crate::cc::Mechanism;
use crate::ids::{ChannelId, Endpoint, PortId};
use crate::routing::cycles::first_cycle;
use crate::switch::queues::Queueing;
use crate::stats::Deadlock;
use crate::time::{ns_from_ps, Time};

/// The watchdog's memory between checks. It looks every half timeout of simulated time, so a
/// deadlock is reported between one and one and a half timeouts after the last move.
pub(crate) struct Watchdog {
    /// 0: off.
    timeout: Time,
    pub next_check: Time,
    hops: u64,
    last_move: Time,
}

impl Watchdog {
    pub fn new(timeout: Time) -> Watchdog {
        Watchdog { timeout, next_check: if timeout == 0 { Time::MAX } else { timeout / 2 }, hops: 0, last_move: 0 }
    }

    /// A check at `now`, before any event at `now` runs, given the packet-hops so far and the
    /// packets in the network: the time of the last move if the network is stuck, i.e. packets
    /// are in it and none has moved for the timeout, or none ever can (`drained`: no event is
    /// left to move one).
    pub fn check(&mut self, now: Time, hops: u64, in_flight: u64, drained: bool) -> Option<Time> {
        if self.timeout == 0 {
            return None;
        }
        self.next_check = now.saturating_add(self.timeout / 2);
        if hops != self.hops {
            self.hops = hops;
            self.last_move = now;
            if !drained {
                return None;
            }
        }
        let stuck = drained || now.saturating_sub(self.last_move) >= self.timeout;
        (stuck && in_flight > 0).then_some(self.last_move)
    }
}

impl<M: Mechanism> Sim<M> {
    /// Called every half timeout during the run, and at its end: what the network is stuck on,
    /// if it is (`Watchdog::check`).
    pub(super) fn watch(&mut self, drained: bool) -> Option<Deadlock> {
        let in_flight = self.slab.live() as u64;
        let last_move = self.watchdog.check(self.now, self.stats.counters.hops, in_flight, drained)?;
        Some(self.stuck_report(|_| self, last_move, in_flight))
    }

    /// The report of a deadlock found at `now`: the blocked channels in switch and port order,
    /// and a cycle among them. `holder(s)` is the simulation that holds switch `s` (this one,
    /// unless the run is split over threads).
    pub(super) fn stuck_report<'a>(&'a self, holder: impl Fn(usize) -> &'a Sim<M>, last_move: Time, in_flight: u64) -> Deadlock {
        let blocked: Vec<ChannelId> = (0..self.switches.len()).flat_map(|s| holder(s).blocked_at(s)).collect();
        let waits_for = |c: ChannelId| match self.topo.channels[c.idx()].to {
            Endpoint::Switch(t, _) => holder(t.idx()).waits_for(c, &blocked),
            Endpoint::Host(_) => Vec::new(),
        };
        let cycle = first_cycle(self.topo.channels.len(), blocked.iter().copied(), waits_for);
        Deadlock {
            at_ns: ns_from_ps(self.now),
            last_move_ns: ns_from_ps(last_move),
            in_flight,
            blocked: blocked.iter().map(|&c| self.topo.channel_name(c).to_string()).collect(),
            cycle: cycle.iter().map(|&c| self.topo.channel_name(c).to_string()).collect(),
        }
    }

    /// Switch `s`'s blocked output channels: the head of an output VC's buffer lacks credits,
    /// or, where credits are taken at the crossbar (divided buffers downstream), a packet
    /// requesting the output does.
    fn blocked_at(&self, s: usize) -> Vec<ChannelId> {
        let sw = &self.switches[s];
        let mut out = Vec::new();
        for (p, o) in sw.outputs.iter().enumerate() {
            let lacks = |v: &crate::switch::OutputVc, pkt: crate::ids::PacketId| !v.credits.room(self.slab.get(pkt));
            let at_output = o.vcs.iter().any(|v| !v.pooled() && v.fifo.front().is_some_and(|pkt| lacks(v, pkt)));
            let at_crossbar = || {
                sw.inputs().enumerate().any(|(i, vcs)| {
                    vcs.iter().enumerate().any(|(vc, ivc)| {
                        o.vcs[vc].req >> i & 1 == 1
                            && ivc.queues.head(PortId::new(p)).is_some_and(|pkt| {
                                let v = &o.vcs[self.out_vc(self.slab.get(pkt)) as usize];
                                v.pooled() && lacks(v, pkt)
                            })
                    })
                })
            };
            if at_output || at_crossbar() {
                out.push(self.topo.switches[s].ports[p].out);
            }
        }
        out
    }

    /// What blocked channel `c`, which ends at a switch this simulation holds, waits for
    /// ("channel c waits for channel d": c's downstream input buffer holds a packet routed to
    /// output channel d, and d is blocked too).
    fn waits_for(&self, c: ChannelId, blocked: &[ChannelId]) -> Vec<ChannelId> {
        let Endpoint::Switch(t, port) = self.topo.channels[c.idx()].to else { unreachable!("a blocked channel ends at a switch") };
        let sw = &self.switches[t.idx()];
        let mut next = Vec::new();
        for ivc in sw.input_vcs(port.idx()) {
            ivc.queues.for_each(|pkt| next.push(self.topo.switches[t.idx()].ports[self.slab.get(pkt).out_port.idx()].out));
        }
        next.retain(|d| blocked.contains(d));
        next.sort_unstable();
        next.dedup();
        next
    }
}
