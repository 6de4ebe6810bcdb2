//! Congested-flow isolation between neighbours (`input_queues = "fbicm"`, thesis Paper V
//! §IV-A; `"hfdi"`, Paper VI §III): what an input's lines tell the sender upstream, and what
//! that sender does with it. A switch output keeps the lines of the input downstream in its CAM,
//! holds their packets while a line is stopped, and has its own inputs follow the line; a NIC,
//! whose send queues are per destination already, only stops and goes.

use super::Sim;
use crate::cc::Mechanism;
use crate::event::Event;
use crate::ids::{ChannelId, Endpoint, NodeId, PortId, SwitchId, Vc};
use crate::switch::queues::isolation::{Effect, HotQueues, Signal};
use crate::switch::CamLine;

/// Hot-queue counters over all isolating inputs (summary.json's `isolation`).
#[derive(Clone, Copy, Default)]
pub(crate) struct IsolationCounters {
    allocated: u64,
    refused: u64,
    inputs_run_out: u64,
    none_free_ps: u64,
    /// NICs' hot-packet queues taken, where NICs have them (`nic.hot_queues`).
    nic_allocated: Option<u64>,
}

impl IsolationCounters {
    /// Adds another partition's (`sim::parallel`).
    pub fn absorb(&mut self, o: IsolationCounters) {
        self.allocated += o.allocated;
        self.refused += o.refused;
        self.inputs_run_out += o.inputs_run_out;
        self.none_free_ps += o.none_free_ps;
        self.nic_allocated = self.nic_allocated.map(|a| a + o.nic_allocated.unwrap_or(0));
    }

    pub fn table(self) -> std::collections::BTreeMap<String, u64> {
        let counters = [
            ("hot_queues_allocated", self.allocated),
            ("hot_queue_refusals", self.refused),
            ("inputs_run_out", self.inputs_run_out),
            ("input_ns_without_free_hot_queue", self.none_free_ps / 1_000),
        ];
        let nic = self.nic_allocated.map(|a| ("nic_hot_queues_allocated", a));
        counters.into_iter().chain(nic).map(|(k, v)| (k.to_string(), v)).collect()
    }
}

impl<M: Mechanism> Sim<M> {
    /// Carries out what the last change to input (`port`, `vc`) of switch `s` asks, if it
    /// isolates congested flows: its newly offered packets request their outputs, and its
    /// signals leave for the sender upstream, arriving one link latency later (the local input
    /// has no upstream).
    // Called after every change to any input: runs without isolation leave here, inlined
    // (the call alone was 1% of the 256-host benchmark's instructions).
    #[inline]
    pub(super) fn isolation_effects(&mut self, s: SwitchId, port: PortId, vc: Vc) {
        if self.p.isolates {
            self.isolate(s, port, vc);
        }
    }

    #[cold]
    fn isolate(&mut self, s: SwitchId, port: PortId, vc: Vc) {
        let now = self.now;
        let Some(q) = self.switches[s.idx()].input_mut(port.idx(), vc as usize).queues.isolating() else { return };
        q.hot_mut().clock(now);
        let mut effects = std::mem::take(&mut self.effects);
        q.take_effects(&mut effects);
        for e in effects.drain(..) {
            match e {
                Effect::Offer(pkt) => self.request(s, port, pkt),
                Effect::Signal { line, signal, dests } => {
                    let Some(p) = self.topo.switches[s.idx()].ports.get(port.idx()) else { continue };
                    let ch = p.inp;
                    let dests = match signal {
                        Signal::Allocate => self.store_dests(dests),
                        _ => u32::MAX,
                    };
                    self.post(self.now + self.topo.channels[ch.idx()].latency, Event::Isolation { ch, vc, line, signal, dests });
                }
            }
        }
        self.effects = effects;
    }

    pub(super) fn store_dests(&mut self, dests: Vec<NodeId>) -> u32 {
        match self.free_line_dests.pop() {
            Some(i) => {
                self.line_dests[i as usize] = dests;
                i
            }
            None => {
                self.line_dests.push(dests);
                (self.line_dests.len() - 1) as u32
            }
        }
    }

    /// The destinations `store_dests` kept at `i`, whose slot is free again.
    pub(super) fn take_dests(&mut self, i: u32) -> Vec<NodeId> {
        self.free_line_dests.push(i);
        std::mem::take(&mut self.line_dests[i as usize])
    }

    /// `signal` about line `line` of the input at the far end of channel `ch` reaches its
    /// sender; `dests` holds an allocation's destinations.
    pub(super) fn isolation_signal(&mut self, ch: ChannelId, vc: Vc, line: u32, signal: Signal, dests: u32) {
        let dests = match signal {
            Signal::Allocate => self.take_dests(dests),
            _ => Vec::new(),
        };
        match self.topo.channels[ch.idx()].from {
            Endpoint::Host(n) => {
                let (slab, nic) = (&self.slab, &mut self.nics[n.idx()]);
                let at = nic.lines.iter().position(|l| l.0 == line);
                match (signal, at) {
                    (Signal::Allocate, None) => {
                        if nic.hot.len() < self.p.nic_hot_queues {
                            // The FIFO's packets for the line's destinations move into a free
                            // hot-packet queue, in order (Paper VI §3.2's HCA).
                            let (hot, cold) = nic.tx.drain(..).partition(|&p| dests.contains(&slab.get(p).dst));
                            nic.tx = cold;
                            nic.hot.push((line, hot));
                            nic.hot_allocated += 1;
                        }
                        nic.lines.push((line, dests, false));
                    }
                    (Signal::Stop, Some(l)) => nic.lines[l].2 = true,
                    (Signal::Go, Some(l)) => nic.lines[l].2 = false,
                    (Signal::Deallocate, Some(l)) => {
                        nic.lines.swap_remove(l);
                        if let Some(h) = nic.hot.iter().position(|&(id, _)| id == line) {
                            // What it still holds goes where its destinations' packets go now,
                            // behind nothing of theirs: only this queue took them.
                            let (_, packets) = nic.hot.remove(h);
                            for p in packets {
                                nic.queue_for_link(p, slab.get(p).dst);
                            }
                        }
                    }
                    _ => unreachable!("{signal:?} for line {line} at NIC {n} with line {at:?}"),
                }
                if matches!(signal, Signal::Go | Signal::Deallocate) {
                    self.try_inject(n);
                }
            }
            Endpoint::Switch(s, out) => {
                let cam = &mut self.switches[s.idx()].extras[out.idx()].cam;
                let at = cam.iter().position(|l| l.vc == vc && l.id == line);
                let (dests, stopped) = match (signal, at) {
                    (Signal::Allocate, None) => {
                        cam.push(CamLine { vc, id: line, dests: dests.clone(), stopped: false });
                        (dests, false)
                    }
                    (Signal::Stop | Signal::Go, Some(l)) => {
                        cam[l].stopped = signal == Signal::Stop;
                        (cam[l].dests.clone(), cam[l].stopped)
                    }
                    (Signal::Deallocate, Some(l)) => (cam.swap_remove(l).dests, false),
                    // A line is allocated before it is stopped and freed last, over one link.
                    _ => unreachable!("{signal:?} for line {line} at switch {s} output {out} with line {at:?}"),
                };
                let exists = signal != Signal::Deallocate;
                for port in 0..self.switches[s.idx()].input_count() {
                    let port = PortId::new(port);
                    let Some(q) = self.switches[s.idx()].input_mut(port.idx(), vc as usize).queues.isolating() else { continue };
                    q.follow(out, line, &dests, exists);
                    q.hold(out, line, stopped);
                    self.isolation_effects(s, port, vc);
                }
                if signal != Signal::Stop {
                    self.try_allocate(s, out);
                }
            }
        }
    }

    /// The isolation counters over the run (`Summary::isolation`, docs/metrics.md), if
    /// the data VCs isolate congested flows.
    pub(super) fn isolation_counters(&self) -> Option<IsolationCounters> {
        let hot: Vec<&HotQueues> = self.switches.iter().flat_map(|s| s.inputs().flatten()).filter_map(|i| i.queues.isolation()).map(|q| q.hot()).collect();
        if hot.is_empty() {
            return None;
        }
        let now = self.now;
        let sum = |f: &dyn Fn(&HotQueues) -> u64| hot.iter().map(|h| f(h)).sum::<u64>();
        Some(IsolationCounters {
            allocated: sum(&|h| h.allocated),
            refused: sum(&|h| h.exhausted),
            inputs_run_out: sum(&|h| (h.exhausted > 0) as u64),
            none_free_ps: sum(&|h| h.none_free_until(now)),
            nic_allocated: (self.p.nic_hot_queues > 0).then(|| self.nics.iter().map(|n| n.hot_allocated).sum()),
        })
    }

    /// Congested-flow isolation state still held anywhere: hot queues and root lines at
    /// inputs, CAM lines at outputs and lines at NICs. Zero once every congestion tree has gone
    /// and its packets have drained.
    pub fn isolation_in_use(&self) -> usize {
        let inputs: usize = self.switches.iter().flat_map(|s| s.inputs().flatten()).filter_map(|i| i.queues.isolation()).map(|q| q.lines_in_use()).sum();
        let cam: usize = self.switches.iter().flat_map(|s| &s.extras).map(|o| o.cam.len()).sum();
        inputs + cam + self.nics.iter().map(|n| n.lines.len()).sum::<usize>()
    }
}
