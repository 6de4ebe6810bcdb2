//! Asks memory for what the coming events will touch while the current one runs.
//!
//! On large networks the switches' state outgrows the caches, and an event's first loads (its
//! channel, then the switch output or input at its end, then the packet) each wait for memory:
//! on the 4,096-host benchmark those waits were most of the run (docs/performance.md,
//! 2026-11-26). Events of the bucket being served are known in order (`EventQueue::
//! peek_current`), so the loads are issued in three stages, each reading only what an earlier
//! one asked for: the channel of the third event ahead, the switch (its first two lines) that
//! the second's channel leads to, and the output or input in the next one's switch (every line
//! of it, as of the packets). With two
//! stages the second waited on the switch's own line: a quarter of the 65,536-host run was spent
//! there (docs/performance.md, 2026-11-27). Prefetches change no
//! state: results are identical with or without them. A small run, whose state the caches hold,
//! does without: there they cost more than they save (`memory::LARGE_RUN_BYTES`).

use super::Sim;
use crate::cc::Mechanism;
use crate::engine::Event;
use crate::ids::{Endpoint, SwitchId};

/// Requests the cache line holding address `at`; a hint the processor may drop, never a
/// fault, whatever the address.
#[inline(always)]
fn prefetch_at(at: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing into the program and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// Requests the cache line holding the start of `r`.
#[inline(always)]
fn prefetch<T>(r: &T) {
    prefetch_at(r as *const T as usize);
}

/// Requests every cache line `r` spans. An output and an input VC take two, a packet two or
/// three: where only the first was asked for, the event waited on the others (4,096 and
/// 65,536 hosts 1.1-1.2x faster with all of them, docs/performance.md, 2026-11-27).
#[inline(always)]
fn prefetch_lines<T>(r: &T) {
    let start = r as *const T as usize;
    let mut line = start & !63;
    while line < start + std::mem::size_of::<T>() {
        prefetch_at(line);
        line += 64;
    }
}

impl<M: Mechanism> Sim<M> {
    /// The two lines of switch `s` that events read (`Switch`'s layout).
    #[inline(always)]
    fn prefetch_switch(&self, s: SwitchId) {
        let sw = &self.switches[s.idx()];
        prefetch(sw);
        prefetch(&sw.in_reads);
    }

    /// Prefetches for the three events that pop after the one about to run, one stage each,
    /// so that no stage waits on a load another has not already asked for: the channel of the
    /// third, the switch (or packet) the second's channel leads to, and the output or input in
    /// that switch for the next.
    #[inline]
    pub(super) fn prefetch_next(&self) {
        match self.events.peek_current(2) {
            Some(Event::LinkFree { ch } | Event::Credit { ch, .. } | Event::HeadArrive { ch, .. } | Event::Deliver { ch, .. }) => {
                prefetch(&self.topo.channels[ch.idx()]);
            }
            Some(Event::XbarDone { sw, .. }) => self.prefetch_switch(*sw),
            _ => {}
        }
        match self.events.peek_current(1) {
            Some(Event::LinkFree { ch } | Event::Credit { ch, .. }) => {
                if let Endpoint::Switch(s, _) = self.topo.channels[ch.idx()].from {
                    self.prefetch_switch(s);
                }
            }
            Some(Event::HeadArrive { ch, pkt }) => {
                prefetch_lines(self.slab.get(*pkt));
                if let Endpoint::Switch(s, _) = self.topo.channels[ch.idx()].to {
                    self.prefetch_switch(s);
                }
            }
            Some(Event::Deliver { pkt, .. }) => prefetch_lines(self.slab.get(*pkt)),
            Some(Event::XbarDone { sw, inp, out, .. }) => {
                let s = &self.switches[sw.idx()];
                prefetch_lines(&s.outputs[out.idx()]);
                prefetch_lines(s.input(inp.idx(), 0));
            }
            _ => {}
        }
        match self.events.peek_current(0) {
            Some(Event::LinkFree { ch } | Event::Credit { ch, .. }) => {
                if let Endpoint::Switch(s, p) = self.topo.channels[ch.idx()].from {
                    prefetch_lines(&self.switches[s.idx()].outputs[p.idx()]);
                }
            }
            Some(Event::HeadArrive { ch, .. }) => {
                if let Endpoint::Switch(s, p) = self.topo.channels[ch.idx()].to {
                    prefetch_lines(self.switches[s.idx()].input(p.idx(), 0));
                }
            }
            _ => {}
        }
    }
}
