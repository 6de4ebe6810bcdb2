//! Asks memory for what the coming events will touch while the current one runs.
//!
//! On large networks the switches' state outgrows the caches, and an event's first loads (its
//! channel, then the switch output or input at its end, then the packet) each wait for memory:
//! on the 4,096-host benchmark those waits were most of the run. Events of the bucket being served are known in order (`Events::
//! peek_current`), so the loads are issued in stages, each reading only what an earlier one
//! asked for: the channel of the fourth event ahead, the switch (its three lines) or packet
//! that the third's channel leads to, and the output or input in the second's switch (every
//! line of it, as of the packets). With fewer stages a stage waited on what the one before had
//! asked for an event earlier: the switch's own line, a quarter of the 65,536-host run, then
//! the channel (2.4% there). A packet's
//! arrival also reads the routing's state at its switch, the output it is routed to and that
//! output's queue at its input, each a wait of its own (perf at 65,536 hosts: `UpDown::route`
//! 5%, the random draw 3%, `Switch::enqueue`'s first touch of the output 7%, `Voq::push`'s
//! of the queue 11.6% of the samples): the switch's stage asks for the routing's state, and
//! the next event's for the output the routing predicts (`Route::predict`, on a copy of the
//! switch's stream: a tree's routing can tell, an adaptive one cannot) and its queue
//! (`Queueing::prefetch`), where the run outgrows the last-level cache too
//! (`Sim::predicting`). Prefetches change no
//! state: results are identical with or without them. A small run, whose state the caches hold,
//! does without: there they cost more than they save (`memory::LARGE_RUN_BYTES`).

use super::Sim;
use crate::cc::Mechanism;
use crate::event::Event;
use crate::hint::{prefetch, prefetch_at, prefetch_lines};
use crate::ids::{Endpoint, SwitchId};
use crate::routing::{Flow, Route};
use crate::switch::queues::Queueing;
use crate::switch::{Output, Switch};

/// Input `i`'s crossbar reads and requested outputs, in arrays of their own: a request, a grant
/// and a crossing's end read them (perf at 65,536 hosts: the crossing's end waited on them for
/// 4% of the samples).
#[inline(always)]
fn prefetch_input_counters(sw: &Switch, i: usize) {
    prefetch(&sw.in_reads[i]);
    prefetch(&sw.in_req[i]);
}

impl<M: Mechanism> Sim<M> {
    /// The three lines of switch `s` that events read (`Switch`'s layout).
    #[inline(always)]
    fn prefetch_switch(&self, s: SwitchId) {
        let sw = &self.switches[s.idx()];
        prefetch(sw);
        prefetch(&sw.in_reads);
        prefetch(&sw.out_busy);
    }

    /// The lines of output `o` that events read: a third line holds a second VC, which a run
    /// with one VC never reads (`Output::read_lines`).
    #[inline(always)]
    fn prefetch_output(&self, o: &Output) {
        let base = o as *const Output as usize;
        let mut lines = self.output_lines;
        while lines != 0 {
            prefetch_at(base + 64 * lines.trailing_zeros() as usize);
            lines &= lines - 1;
        }
    }

    /// Prefetches for the four events that pop after the one about to run, a stage each (the
    /// module's comment).
    #[inline]
    pub(super) fn prefetch_next(&self) {
        if let Some(Event::LinkFree { ch } | Event::Credit { ch, .. } | Event::HeadArrive { ch, .. } | Event::Deliver { ch, .. }) = self.events.peek_current(3)
        {
            prefetch(&self.topo.channels[ch.idx()]);
        }
        match self.events.peek_current(2) {
            Some(Event::LinkFree { ch } | Event::Credit { ch, .. }) => {
                if let Endpoint::Switch(s, _) = self.topo.channels[ch.idx()].from {
                    self.prefetch_switch(s);
                }
            }
            Some(Event::HeadArrive { ch, pkt }) => {
                // A hop reads the packet's first line only (`Packet`'s layout).
                prefetch(self.slab.get(*pkt));
                if let Endpoint::Switch(s, _) = self.topo.channels[ch.idx()].to {
                    self.prefetch_switch(s);
                    if self.predicting {
                        self.routing.prefetch(s, &self.switches[s.idx()].rng);
                    }
                }
            }
            Some(Event::Deliver { pkt, .. }) => prefetch_lines(self.slab.get(*pkt)),
            Some(Event::XbarDone { sw, .. }) => self.prefetch_switch(*sw),
            _ => {}
        }
        match self.events.peek_current(1) {
            Some(Event::LinkFree { ch } | Event::Credit { ch, .. }) => {
                if let Endpoint::Switch(s, p) = self.topo.channels[ch.idx()].from {
                    self.prefetch_output(&self.switches[s.idx()].outputs[p.idx()]);
                }
            }
            Some(Event::HeadArrive { ch, .. }) => {
                if let Endpoint::Switch(s, p) = self.topo.channels[ch.idx()].to {
                    let sw = &self.switches[s.idx()];
                    prefetch_lines(sw.input(p.idx(), 0));
                    prefetch_input_counters(sw, p.idx());
                }
            }
            Some(Event::XbarDone { sw, inp, out, .. }) => {
                let s = &self.switches[sw.idx()];
                self.prefetch_output(&s.outputs[out.idx()]);
                prefetch_lines(s.input(inp.idx(), 0));
            }
            _ => {}
        }
        match self.events.peek_current(0) {
            Some(Event::XbarDone { sw, inp, .. }) => prefetch_input_counters(&self.switches[sw.idx()], inp.idx()),
            // The output the packet will be routed to, as far as the routing can tell, and its
            // queue at the input.
            Some(Event::HeadArrive { ch, pkt }) if self.predicting => {
                if let Endpoint::Switch(s, port) = self.topo.channels[ch.idx()].to {
                    let sw = &self.switches[s.idx()];
                    let p = self.slab.get(*pkt);
                    let flow = Flow { src: p.src, id: p.flow };
                    if let Some(out) = p.ahead.map(|(next, _)| next).or_else(|| self.routing.predict(s, p.dst, flow, &sw.rng)) {
                        self.prefetch_output(&sw.outputs[out.idx()]);
                        sw.input(port.idx(), p.vc as usize).queues.prefetch(out);
                    }
                }
            }
            _ => {}
        }
    }
}
