//! A thread serving a large network block by block (docs/architecture.md, "Blocks").
//!
//! On a large network an event's state lies anywhere in a gigabyte, and each first load of it
//! misses the caches and, on these machines (virtual machines whose host maps memory in 4 KiB
//! pages), the TLB: at 65,536 hosts about five page walks and eighteen reads from memory per
//! event. The parallel engine (`sim::parallel`) shows what the
//! model allows: within a window shorter than every channel between two partitions, each
//! partition's events may run without the others'. Here one thread runs a window's events
//! block by block, each block (switches with their hosts, `partition::Layout`) a hundredth of
//! the network, so that its pages and lines serve thousands of events in a row.
//!
//! Why the results are those of the plain loop: as in `sim::parallel`, each entity's state is
//! touched only by its own events, which keep their order, and what one block causes in another
//! happens at least a window later; it waits in that block's inbox until the block is served,
//! and joins its queue then, behind the block's own events in the queue's sequence, which only
//! breaks ties between one entity's own events (`engine`), so the order is unchanged. A packet
//! whose head crosses moves with it into the new block's slots (`Slab`), as between threads,
//! and keeps no reference behind. Blocks share the duplicate table (`nic::Copies`): a change
//! to it made in one block arrives before any copy it counts can, as between threads.
//! Completed-flow records are put back in the plain loop's order (`Flows::sort_records`). On
//! several threads each thread serves its own partition's blocks (blocks of one `linear`
//! division nest in the threads': block `b` of `n` per thread belongs to thread `b / n`).

use super::partition::Layout;
use super::Sim;
use crate::cc::Mechanism;
use crate::config::{Config, Partitioner};
use crate::event::{Event, Events};
use crate::error::{ConfigError, ConfigResult};
use crate::ids::{ChannelId, PacketId};
use crate::packet::Packet;
use crate::time::Time;

/// Runs estimated at this size or more are served in blocks unless `simulation.blocks` says
/// otherwise: the 65,536-host tree (1.2 GiB estimated) ran in 0.83 of the time in blocks, the
/// 4,096-host one (79 MiB) no faster.
const BLOCKED_RUN_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

/// Estimated bytes per block when the count is chosen: 65,536 hosts in 64, 128, 256 and 512
/// blocks ran 0.79-0.89, 0.79-0.81, 0.85 and 0.87 of the unblocked time; 10 MiB gives it 123 on one thread, 60 per thread on two.
const BLOCK_BYTES: f64 = 10.0 * 1024.0 * 1024.0;

pub(crate) struct Blocks<H> {
    layout: Layout,
    /// The event queue of every block but the one being served (`Sim::events` holds that).
    queues: Vec<Events>,
    /// Per block: what other blocks sent it since it was last served.
    inbox: Vec<Inbox<H>>,
    /// The block being served.
    cur: usize,
    /// Blocks per thread: block `b` belongs to partition `b / per_part`.
    per_part: u16,
    /// Per traffic source: its host's block.
    source_block: Vec<u16>,
}

/// The events other blocks caused in a block since it was last served, in the order they were
/// made. They join its queue, and the packets whose heads arrive join its slots (`Slab`'s
/// chunks), when it is served next: so a block's queue and packets are written while its own
/// events run, not while another block's do (each such write was a wait on memory).
struct Inbox<H> {
    events: Vec<(Time, Event)>,
    /// The packets of its head arrivals (`Event::HeadArrive`'s `pkt` is an index here).
    packets: Vec<Packet<H>>,
    /// The earliest event's time (`Time::MAX` when empty).
    first: Time,
}

impl<H> Inbox<H> {
    fn send(&mut self, at: Time, ev: Event) {
        self.events.push((at, ev));
        self.first = self.first.min(at);
    }

    /// `packet`'s head arriving over `ch` at `at`.
    fn send_packet(&mut self, at: Time, ch: ChannelId, packet: Packet<H>) {
        self.packets.push(packet);
        self.send(at, Event::HeadArrive { ch, pkt: PacketId::new(self.packets.len() - 1) });
    }
}

impl<H> Blocks<H> {
    /// The block of the entity `ev` acts on; `None` for a mechanism's timer, which names none.
    fn owner(&self, ev: &Event) -> Option<usize> {
        let l = &self.layout;
        Some(match *ev {
            Event::HeadArrive { ch, .. } | Event::Deliver { ch, .. } | Event::PauseRefresh { ch, .. } => l.down[ch.idx()],
            Event::Credit { ch, .. } | Event::Pause { ch, .. } | Event::PauseEnd { ch, .. } | Event::Isolation { ch, .. } | Event::LinkFree { ch } => {
                l.up[ch.idx()]
            }
            Event::XbarDone { sw, .. } | Event::TailIn { sw, .. } | Event::HeadCheck { sw, .. } => l.of_switch[sw.idx()],
            Event::NicWake { node } => l.of_host[node.idx()],
            Event::Arrival { source } => self.source_block[source as usize],
            Event::Timer { .. } => return None,
        } as usize)
    }
}

/// The division of `cfg`'s network into blocks, if a run estimated at `estimate_bytes` is to be
/// served in blocks, each thread's own (`threads` partitions of the same `linear` division:
/// block `b` belongs to partition `b / (blocks per thread)`).
pub(super) fn layout<M: Mechanism>(cfg: &Config, topo: &crate::topology::Topology, estimate_bytes: f64, threads: usize) -> ConfigResult<Option<Layout>> {
    let chosen = cfg.simulation.blocks == 0;
    let per_thread = estimate_bytes / threads as f64;
    let mut n = match cfg.simulation.blocks {
        0 if per_thread >= BLOCKED_RUN_BYTES => (per_thread / BLOCK_BYTES) as usize,
        0 => 1,
        n => n as usize,
    };
    // No more blocks than a tree level has switches (per thread); and blocks nest in the
    // threads' partitions only when both divide each level alike.
    let smallest_level = (0..).map_while(|l| Some(topo.switches.iter().filter(|s| s.level == l).count()).filter(|&c| c > 0)).min().unwrap_or(0);
    n = n.min(smallest_level / threads);
    if threads > 1 && cfg.simulation.partition != Partitioner::Linear {
        n = 1;
    }
    if n <= 1 {
        return Ok(None);
    }
    if !M::PARTITIONED {
        return if chosen {
            Ok(None)
        } else {
            Err(ConfigError::new(
                "simulation.blocks",
                "this mechanism cannot yet be served in blocks (its hooks have not been shown to touch only their own NIC's or switch's state): set simulation.blocks = 1",
            ))
        };
    }
    match Layout::new(topo, n * threads, Partitioner::Linear) {
        Ok(layout) => Ok(Some(layout)),
        Err(_) if chosen => Ok(None),
        Err(_) => Err(ConfigError::new(
            "simulation.blocks",
            "a channel between two blocks has no latency, so no block could run ahead of another: give links a latency above 0, or set simulation.blocks = 1",
        )),
    }
}

impl<M: Mechanism> Sim<M> {
    /// Serves the run in `layout`'s blocks from now on: each pending event moves to its block's
    /// queue, in the order it would have popped. Nothing changes if an event names no entity (a
    /// mechanism's timer).
    pub(super) fn divide(&mut self, layout: Layout) {
        let source_block = self.traffic.sources.iter().map(|s| layout.of_host[s.node.idx()]).collect();
        let inbox = (0..layout.parts).map(|_| Inbox { events: Vec::new(), packets: Vec::new(), first: Time::MAX }).collect();
        let per_part = (layout.parts / self.part.as_ref().map_or(1, |p| p.layout.parts)) as u16;
        let mut blocks = Blocks { queues: (0..layout.parts).map(|_| Events::for_block()).collect(), inbox, layout, cur: 0, per_part, source_block };
        if self.events.pending().any(|ev| blocks.owner(ev).is_none()) {
            return;
        }
        for sw in self.switches.iter_mut() {
            sw.set_homes(&blocks.layout);
        }
        // The queue built so far leaves with the events it popped to move them; in its place, an
        // empty one stands for the block being served while that block's queue is out.
        let mut built = std::mem::replace(&mut self.events, Events::for_block());
        while let Some((t, ev)) = built.pop_before(Time::MAX) {
            let b = blocks.owner(&ev).expect("every pending event has an owner");
            blocks.queues[b].push(t, ev);
        }
        std::mem::swap(&mut self.events, &mut blocks.queues[0]);
        self.slab.divide(blocks.layout.parts);
        self.blocks = Some(blocks);
    }

    /// Makes block `b`'s queue the one events pop from and are pushed to, with what other
    /// blocks sent it.
    fn serve_block(&mut self, b: usize) {
        let blocks = self.blocks.as_mut().expect("a run in blocks");
        std::mem::swap(&mut self.events, &mut blocks.queues[blocks.cur]);
        std::mem::swap(&mut self.events, &mut blocks.queues[b]);
        blocks.cur = b;
        self.slab.serve(b);
        let inbox = &mut blocks.inbox[b];
        inbox.first = Time::MAX;
        for (at, ev) in inbox.events.drain(..) {
            let ev = match ev {
                Event::HeadArrive { ch, pkt } => Event::HeadArrive { ch, pkt: self.slab.alloc(inbox.packets[pkt.idx()]) },
                ev => ev,
            };
            self.events.push(at, ev);
        }
        inbox.packets.clear();
    }

    /// Runs every event due before `until`, in windows no longer than the shortest channel
    /// between two blocks.
    pub(super) fn run_in_blocks(&mut self, until: Time) {
        while let Some(start) = self.next_time().filter(|&t| t < until) {
            self.run_block_window(start, until);
        }
    }

    /// Runs one window from `start`, the earliest pending event (ending at `until` at the
    /// latest), block by block.
    pub(super) fn run_block_window(&mut self, start: Time, until: Time) {
        let blocks = self.blocks.as_ref().expect("a run in blocks");
        let (end, n) = (start.saturating_add(blocks.layout.lookahead).min(until), blocks.queues.len());
        for b in 0..n {
            self.serve_block(b);
            while let Some((t, ev)) = self.events.pop_before(end) {
                self.step(t, ev);
            }
        }
    }

    /// Schedules `ev` in the block it acts on, found in the layout's tables (an event that
    /// names no entity: in the block being served, where it was made), or, without blocks, in
    /// the one queue.
    #[inline]
    pub(super) fn push_in_block(&mut self, at: Time, ev: Event) {
        match self.blocks.as_ref().and_then(|b| b.owner(&ev)) {
            Some(home) => self.push_away(at, ev, home),
            None => self.events.push(at, ev),
        }
    }

    /// Schedules `ev` in block `home`, or, without blocks, in the one queue.
    #[inline]
    pub(super) fn push_to_block(&mut self, at: Time, ev: Event, home: u16) {
        if self.blocks.is_some() {
            self.push_away(at, ev, home as usize);
        } else {
            self.events.push(at, ev);
        }
    }

    /// `push_to_block` in a run served in blocks: out of line, so that other runs' event
    /// pushes stay as small as they were (`bench/counts.py`). A packet whose head arrives in
    /// another block leaves this block's slots with it.
    #[inline(never)]
    fn push_away(&mut self, at: Time, ev: Event, home: usize) {
        let b = self.blocks.as_mut().expect("a run in blocks");
        if home == b.cur {
            return self.events.push(at, ev);
        }
        match ev {
            Event::HeadArrive { ch, pkt } => {
                b.inbox[home].send_packet(at, ch, *self.slab.get(pkt));
                self.slab.release(pkt);
            }
            ev => b.inbox[home].send(at, ev),
        }
    }

    /// Blocks per thread (1 without blocks): the partition of a block `home` (`Sim::post_to`).
    #[inline]
    pub(super) fn blocks_per_part(&self) -> u16 {
        self.blocks.as_ref().map_or(1, |b| b.per_part)
    }

    /// The time of the earliest pending event, in any block.
    pub(super) fn next_time(&mut self) -> Option<Time> {
        let others = self
            .blocks
            .as_mut()
            .and_then(|b| b.queues.iter_mut().filter_map(Events::next_time).chain(b.inbox.iter().map(|i| i.first)).min())
            .filter(|&t| t < Time::MAX);
        match (self.events.next_time(), others) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Events processed so far, in every block.
    pub(crate) fn processed(&self) -> u64 {
        self.events.processed() + self.blocks.as_ref().map_or(0, |b| b.queues.iter().map(Events::processed).sum::<u64>())
    }

    /// Whether no event is pending in any block.
    pub(super) fn drained(&self) -> bool {
        self.events.is_empty() && self.blocks.as_ref().is_none_or(|b| b.queues.iter().all(Events::is_empty) && b.inbox.iter().all(|i| i.events.is_empty()))
    }

    /// Every pending event, of every block, with the packet it carries (for invariant checks).
    pub(super) fn pending(&self) -> impl Iterator<Item = (&Event, Option<&Packet<M::Header>>)> {
        let slab = &self.slab;
        let queued = self.events.pending().chain(self.blocks.iter().flat_map(|b| b.queues.iter().flat_map(Events::pending)));
        let queued = queued.map(move |ev| match ev {
            Event::HeadArrive { pkt, .. } | Event::Deliver { pkt, .. } => (ev, Some(slab.get(*pkt))),
            _ => (ev, None),
        });
        let sent = self.blocks.iter().flat_map(|b| {
            b.inbox.iter().flat_map(|i| {
                i.events.iter().map(|(_, ev)| match ev {
                    Event::HeadArrive { pkt, .. } => (ev, Some(&i.packets[pkt.idx()])),
                    _ => (ev, None),
                })
            })
        });
        queued.chain(sent)
    }

    /// Puts completed-flow records in the order the plain loop completes them.
    pub(super) fn order_records(&mut self) {
        if self.blocks.is_some() {
            let host_in = &self.topo.host_in;
            self.stats.flows.sort_records(|h| host_in[h.idx()].0 as u64);
        }
    }
}
