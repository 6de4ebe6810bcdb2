//! Asks memory for what the coming events will touch while the current one runs.
//!
//! On large networks the switches' state outgrows the caches, and an event's first loads (its
//! channel, then the switch output or input at its end, then the packet) each wait for memory:
//! on the 4,096-host benchmark those waits were most of the run (docs/performance.md,
//! 2026-11-26). Events of the bucket being served are known in order (`EventQueue::
//! peek_current`), so the loads are issued in two stages: the channel of the event after next,
//! and what the next event's channel (fetched one event earlier) leads to. Prefetches change no
//! state: results are identical with or without them. A small run, whose state the caches hold,
//! does without: there they cost more than they save (`memory::LARGE_RUN_BYTES`).

use super::Sim;
use crate::cc::Mechanism;
use crate::engine::Event;
use crate::ids::Endpoint;

/// Requests the cache line holding `r`; a hint the processor may drop, never a fault.
#[inline(always)]
fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing into the program and cannot fault, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(r as *const T as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

impl<M: Mechanism> Sim<M> {
    /// Prefetches for the two events that pop after the one about to run.
    #[inline]
    pub(super) fn prefetch_next(&self) {
        match self.events.peek_current(1) {
            Some(Event::LinkFree { ch } | Event::Credit { ch, .. } | Event::HeadArrive { ch, .. } | Event::Deliver { ch, .. }) => {
                prefetch(&self.topo.channels[ch.idx()]);
            }
            Some(Event::XbarDone { sw, inp, out, .. }) => {
                let s = &self.switches[sw.idx()];
                prefetch(&s.outputs[out.idx()]);
                prefetch(&s.inputs[inp.idx()][0]);
            }
            _ => {}
        }
        match self.events.peek_current(0) {
            Some(Event::LinkFree { ch } | Event::Credit { ch, .. }) => {
                if let Endpoint::Switch(s, p) = self.topo.channels[ch.idx()].from {
                    prefetch(&self.switches[s.idx()].outputs[p.idx()]);
                }
            }
            Some(Event::HeadArrive { ch, pkt }) => {
                prefetch(self.slab.get(*pkt));
                if let Endpoint::Switch(s, p) = self.topo.channels[ch.idx()].to {
                    prefetch(&self.switches[s.idx()].inputs[p.idx()][0]);
                }
            }
            Some(Event::Deliver { pkt, .. }) => prefetch(self.slab.get(*pkt)),
            _ => {}
        }
    }
}
