//! One run on several threads, with the results of one thread bit for bit (docs/architecture.md,
//! "Parallel engine").
//!
//! The network is divided into partitions (`sim::partition`), each simulated by a `Sim` of its
//! own on a thread of its own. Synchronization is conservative, in windows (the scheme SST runs
//! across MPI ranks): all partitions agree on the earliest pending event, `start`, and process
//! every event before `start + lookahead`, where the lookahead is the shortest channel between
//! two partitions. Nothing one partition does reaches another sooner than that channel's
//! latency, so no partition can receive an event inside the window it is processing. Between
//! windows the partitions swap what they sent each other (`partition::Msg`).
//!
//! Why the results match one thread's: the event queue orders events by time, kind and entity,
//! and only events one entity created share all three, in the order it created them
//! (`engine`); each entity's state is touched only by its own events, so each sees the same
//! events in the same order whatever the division. Packet identities, random streams and
//! statistics are per NIC, switch or source, and the partitions' statistics are sums.

use super::barrier::Barrier;
use super::partition::{Layout, Msg, Part};
use super::{OnProgress, Progress, Sim};
use crate::cc::registry::Registered;
use crate::cc::Mechanism;
use crate::config::Config;
use crate::error::{ConfigError, RunError};
use crate::stats::Summary;
use crate::time::Time;
use crate::topology::Topology;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What the threads of a run share. Mail and figures are kept twice, by the parity of the
/// window that wrote them: a thread may write the next window's before a slower one has read
/// this window's.
struct Shared<H> {
    parts: usize,
    barrier: Barrier,
    /// `mail[parity][from * parts + to]`: the messages of a window.
    mail: [Vec<Mutex<Vec<Msg<H>>>>; 2],
    /// `figures[parity][partition]`, as each partition ended a window.
    figures: [Vec<Figures>; 2],
    /// Set by the first thread when the progress callback asks to stop.
    stop: [AtomicBool; 2],
}

/// What a partition tells the others after a window.
#[derive(Default)]
struct Figures {
    /// The earliest event it holds or sent.
    next: AtomicU64,
    events: AtomicU64,
    hops: AtomicU64,
    /// Packets in its slab or sent and not yet received.
    packets: AtomicU64,
    /// The time of its last event.
    now: AtomicU64,
}

impl Figures {
    fn total(all: &[Figures], f: impl Fn(&Figures) -> &AtomicU64) -> u64 {
        all.iter().map(|x| f(x).load(Ordering::Acquire)).sum()
    }
}

/// The number of threads `simulation.threads` asks for (0: one per core).
pub fn threads(cfg: &Config) -> usize {
    match cfg.simulation.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n as usize,
    }
}

/// Runs `cfg` on `threads` threads (at least two partitions), `first` being the mechanism of
/// the first; the others build their own.
pub(crate) fn run<M>(cfg: &Config, first: M, threads: usize, progress: &mut OnProgress) -> Result<Summary, RunError>
where
    M: Mechanism + Registered + Send,
    M::Header: Send,
{
    let wall = std::time::Instant::now();
    let layout = Arc::new(layout(cfg, &first, threads)?);
    if layout.parts == 1 {
        return Sim::new(cfg, first)?.run(progress);
    }
    let mut sims = Vec::with_capacity(layout.parts);
    let mut mech = Some(first);
    for me in 0..layout.parts {
        let m = match mech.take() {
            Some(m) => m,
            None => crate::cc::registry::build::<M>(cfg)?,
        };
        sims.push(Sim::build(cfg, m, Some(Part::new(me as u16, layout.clone())))?);
    }
    let n = layout.parts;
    let mailboxes = || (0..n * n).map(|_| Mutex::new(Vec::new())).collect();
    let figures = || (0..n).map(|_| Figures::default()).collect();
    let shared = Shared {
        parts: n,
        barrier: Barrier::new(n),
        mail: [mailboxes(), mailboxes()],
        figures: [figures(), figures()],
        stop: [AtomicBool::new(false), AtomicBool::new(false)],
    };
    let lookahead = layout.lookahead;
    let stuck = std::thread::scope(|scope| {
        let (lead, rest) = sims.split_first_mut().expect("two partitions or more");
        for sim in rest {
            let shared = &shared;
            scope.spawn(move || work(sim, shared, lookahead, None));
        }
        work(lead, &shared, lookahead, Some(progress))
    });
    // Tests run with debug assertions: every split run of theirs checks the invariants across
    // its partitions, as one-thread runs check them in tests/common.
    if cfg!(debug_assertions) && !matches!(stuck, Ending::Interrupted) {
        if let Err(e) = super::invariants::check_split_invariants(&sims, &layout.of_switch, &layout.of_host) {
            panic!("invariant violated in a run on {} threads: {e}", layout.parts);
        }
    }
    let stuck = match stuck {
        Ending::Interrupted => return Err(RunError::Interrupted),
        Ending::End => None,
        Ending::Stuck { last_move, packets } => Some((last_move, packets)),
    };
    Ok(merge(sims, &layout, stuck, wall.elapsed().as_secs_f64()))
}

/// The division of `cfg`'s network (run with `mech`) over `threads` threads, or why the run
/// cannot be divided (naming the setting).
pub(crate) fn layout<M: Mechanism>(cfg: &Config, _mech: &M, threads: usize) -> Result<Layout, ConfigError> {
    let topo = Topology::build(&cfg.topology)?;
    let layout = Layout::new(&topo, threads, cfg.simulation.partition)?;
    if layout.parts == 1 {
        return Ok(layout);
    }
    if !M::PARTITIONED {
        return Err(ConfigError::new(
            "simulation.threads",
            format!(
                "`{}` cannot yet run on several threads (its hooks have not been shown to touch only their own NIC's or switch's state); or set simulation.threads = 1",
                cfg.cc.mechanism
            ),
        ));
    }
    Ok(layout)
}

/// How a thread's loop ended: every thread ends alike.
enum Ending {
    End,
    Interrupted,
    /// The watchdog found packets that have not moved since `last_move`.
    Stuck {
        last_move: Time,
        packets: u64,
    },
}

/// One thread's loop: agree on the window, take the mail, process the window, send mail. Every
/// thread reads the same figures after each barrier, so all decide alike where to stop.
fn work<M: Mechanism>(sim: &mut Sim<M>, sh: &Shared<M::Header>, lookahead: Time, mut lead: Option<&mut OnProgress>) -> Ending {
    let me = sim.part.as_ref().expect("a partition").me as usize;
    let n = sh.parts;
    let mut window = 0;
    publish(sim, &sh.figures[0][me]);
    loop {
        sh.barrier.wait();
        let parity = window % 2;
        let figures = &sh.figures[parity];
        for p in (0..n).filter(|&p| p != me) {
            let msgs = std::mem::take(&mut *sh.mail[parity][p * n + me].lock().expect("no thread panicked"));
            sim.receive(msgs);
        }
        if sh.stop[parity].load(Ordering::Acquire) {
            return Ending::Interrupted;
        }
        let start = figures.iter().map(|f| f.next.load(Ordering::Acquire)).min().unwrap_or(Time::MAX);
        let (hops, packets, events) = (Figures::total(figures, |f| &f.hops), Figures::total(figures, |f| &f.packets), Figures::total(figures, |f| &f.events));
        if start >= sim.end {
            // As one thread ends: a last look, from the last event of any partition.
            sim.now = figures.iter().map(|f| f.now.load(Ordering::Acquire)).max().unwrap_or(0);
            return match sim.watchdog.check(sim.now, hops, packets, start == Time::MAX) {
                Some(last_move) => Ending::Stuck { last_move, packets },
                None => {
                    sim.now = sim.end;
                    Ending::End
                }
            };
        }
        if start >= sim.watchdog.next_check {
            sim.now = start;
            if let Some(last_move) = sim.watchdog.check(start, hops, packets, false) {
                return Ending::Stuck { last_move, packets };
            }
        }
        sim.run_window(start.saturating_add(lookahead).min(sim.end).min(sim.watchdog.next_check));
        sim.send_copy_changes();
        window += 1;
        let parity = window % 2;
        let part = sim.part.as_mut().expect("a partition");
        for (q, out) in part.outbox.iter_mut().enumerate().filter(|&(q, _)| q != me) {
            sh.mail[parity][me * n + q].lock().expect("no thread panicked").append(out);
        }
        publish(sim, &sh.figures[parity][me]);
        if let Some(report) = lead.as_mut() {
            let at = Progress { now: sim.now, end: sim.end, events };
            sim.huge_pages.tick(&at);
            let stop = report(&at).is_break();
            sh.stop[parity].store(stop, Ordering::Release);
        }
    }
}

/// Writes this partition's figures at the end of a window, and starts the next one's count of
/// what it sends.
fn publish<M: Mechanism>(sim: &mut Sim<M>, f: &Figures) {
    let part = sim.part.as_mut().expect("a partition");
    let (sent_first, sent_packets) = (std::mem::replace(&mut part.sent_first, Time::MAX), std::mem::take(&mut part.sent_packets));
    f.next.store(sim.next_time().unwrap_or(Time::MAX).min(sent_first), Ordering::Release);
    f.events.store(sim.processed(), Ordering::Release);
    f.hops.store(sim.stats.counters.hops, Ordering::Release);
    f.packets.store(sim.slab.live() as u64 + sent_packets, Ordering::Release);
    f.now.store(sim.now, Ordering::Release);
}

/// The summary of the whole run from its partitions', with the deadlock the watchdog found
/// (the last move, packets in the network) if it stopped the run.
fn merge<M: Mechanism>(mut sims: Vec<Sim<M>>, layout: &Layout, stuck: Option<(Time, u64)>, wall_s: f64) -> Summary {
    let counters = M::merged_counters(&sims.iter().map(|s| &s.mech).collect::<Vec<_>>());
    let events = sims.iter().map(|s| s.processed()).sum();
    let queued = sims.iter().map(|s| s.queued_packets()).sum();
    let isolation = sims.iter().map(|s| s.isolation_counters()).reduce(|a, b| {
        a.zip(b).map(|(mut a, b)| {
            a.absorb(b);
            a
        })
    });
    let deadlock = stuck.map(|(last_move, packets)| sims[0].stuck_report(|s| &sims[layout.of_switch[s] as usize], last_move, packets));
    let mut rest = sims.split_off(1);
    let whole = &mut sims[0];
    whole.deadlock = deadlock;
    for s in rest.drain(..) {
        whole.stats.absorb(s.stats);
    }
    let host_in = &whole.topo.host_in;
    whole.stats.flows.sort_records(|h| host_in[h.idx()].0 as u64);
    whole.summary_of(wall_s, events, counters, queued, isolation.flatten())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Hooks, VcRole};

    /// A mechanism as a new plug-in starts: it has not declared `PARTITIONED`.
    struct Unproven;

    impl Mechanism for Unproven {
        type Header = ();
        const HOOKS: Hooks = Hooks::NONE;

        fn name(&self) -> &'static str {
            "unproven"
        }

        fn vcs(&self) -> Vec<VcRole> {
            vec![VcRole::DATA]
        }
    }

    #[test]
    fn a_mechanism_not_shown_to_keep_to_its_own_state_is_refused_above_one_thread() {
        let text = "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2\n[[traffic]]\npattern = \"uniform\"\nload = 0.3\n";
        let cfg = Config::from_toml_str(text, &[]).unwrap();
        assert_eq!(layout(&cfg, &Unproven, 1).unwrap().parts, 1);
        let Err(e) = layout(&cfg, &Unproven, 2) else { panic!("split over two threads") };
        assert_eq!(e.key, "simulation.threads");
        assert!(e.message.contains("or set simulation.threads = 1"), "{e}");
    }
}
