//! Congested-flow isolation between neighbours (`input_queues = "fbicm"`, thesis Paper V
//! §IV-A): what an input's CFQs tell the sender upstream, and what that sender does with it.
//! A switch output keeps a CAM line per destination the input downstream isolates, holds that
//! destination's packets while the line is stopped, and has its own inputs isolate them too; a
//! NIC, whose send queues are per destination already, only stops and goes.

use super::Sim;
use crate::cc::Mechanism;
use crate::engine::Event;
use crate::ids::{ChannelId, Endpoint, NodeId, PortId, SwitchId, Vc};
use crate::switch::queues::fbicm::{Effect, Signal};
use crate::switch::queues::Queues;
use crate::switch::CamLine;

impl<M: Mechanism> Sim<M> {
    /// Carries out what the last change to input (`port`, `vc`) of switch `s` asks, if it
    /// isolates congested flows: its newly offered packets request their outputs, and its
    /// signals leave for the sender upstream, arriving one link latency later (the local input
    /// has no upstream).
    pub(super) fn isolation_effects(&mut self, s: SwitchId, port: PortId, vc: Vc) {
        let Queues::Fbicm(f) = &mut self.switches[s.idx()].inputs[port.idx()][vc as usize].queues else { return };
        let mut effects = std::mem::take(&mut self.effects);
        f.take_effects(&mut effects);
        for e in effects.drain(..) {
            match e {
                Effect::Offer(pkt) => self.request(s, port, pkt),
                Effect::Signal(dst, signal) => {
                    if let Some(p) = self.topo.switches[s.idx()].ports.get(port.idx()) {
                        let ch = p.inp;
                        self.events.push(self.now + self.topo.channels[ch.idx()].latency, Event::Isolation { ch, vc, dst, signal });
                    }
                }
            }
        }
        self.effects = effects;
    }

    /// `signal` about `dst`'s packets on `vc` reaches the sender of channel `ch`.
    pub(super) fn isolation_signal(&mut self, ch: ChannelId, vc: Vc, dst: NodeId, signal: Signal) {
        match self.topo.channels[ch.idx()].from {
            Endpoint::Host(n) => match signal {
                Signal::Stop => self.nics[n.idx()].stopped.push(dst),
                Signal::Go | Signal::Deallocate => {
                    self.nics[n.idx()].stopped.retain(|&d| d != dst);
                    self.try_inject(n);
                }
                Signal::Allocate => {}
            },
            Endpoint::Switch(s, out) => {
                let cam = &mut self.switches[s.idx()].outputs[out.idx()].cam;
                let line = cam.iter().position(|l| l.vc == vc && l.dst == dst);
                match (signal, line) {
                    (Signal::Allocate, None) => cam.push(CamLine { vc, dst, stopped: false }),
                    (Signal::Stop | Signal::Go, Some(l)) => cam[l].stopped = signal == Signal::Stop,
                    (Signal::Deallocate, Some(l)) => {
                        cam.swap_remove(l);
                    }
                    // A line is allocated before it is stopped and freed last, over one link.
                    _ => unreachable!("{signal:?} for destination {dst} at switch {s} output {out} with line {line:?}"),
                }
                let isolated = signal != Signal::Deallocate || self.switches[s.idx()].outputs.iter().any(|o| o.cam.iter().any(|l| l.vc == vc && l.dst == dst));
                let held = self.switches[s.idx()].outputs.iter().any(|o| o.stopped(vc, dst));
                for port in 0..self.switches[s.idx()].inputs.len() {
                    let port = PortId::new(port);
                    if let Queues::Fbicm(f) = &mut self.switches[s.idx()].inputs[port.idx()][vc as usize].queues {
                        f.mark(dst, isolated);
                        f.hold(dst, held);
                        self.isolation_effects(s, port, vc);
                    }
                }
                if signal != Signal::Stop {
                    self.try_allocate(s, out);
                }
            }
        }
    }
}

impl<M: Mechanism> Sim<M> {
    /// Congested-flow isolation state still held anywhere: CFQs allocated, CAM lines at
    /// outputs and destinations NICs are stopped from sending. Zero once every congestion tree
    /// has gone and its packets have drained.
    pub fn isolation_in_use(&self) -> usize {
        let cfqs: usize =
            self.switches.iter().flat_map(|s| s.inputs.iter().flatten()).map(|i| if let Queues::Fbicm(f) = &i.queues { f.allocated() } else { 0 }).sum();
        let lines: usize = self.switches.iter().flat_map(|s| &s.outputs).map(|o| o.cam.len()).sum();
        cfqs + lines + self.nics.iter().map(|n| n.stopped.len()).sum::<usize>()
    }
}
