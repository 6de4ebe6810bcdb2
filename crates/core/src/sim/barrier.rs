//! The barrier between the parallel engine's windows (`sim::parallel`).
//!
//! Windows are short (a channel latency of simulated time: tens of microseconds to a few
//! milliseconds of wall time) and a sleeping thread takes tens of microseconds to wake, so a
//! waiting thread first spins. It spins for a bounded time only: when the threads of a run share
//! cores with other work (two runs side by side, a test harness running tests in parallel), the
//! thread it waits for may not be running, and spinning would hold up that thread's core. Past
//! `SPIN` it sleeps until the last thread arrives: a barrier that spun up to 2^16 pauses
//! before yielding made two two-thread runs side by side on two cores 4.7x slower than one
//! after the other.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a thread spins before it sleeps: longer than most waits between the windows of
/// threads that each have a core, shorter than a window.
const SPIN: Duration = Duration::from_micros(50);
/// After `SLEPT` waits in a row that ended in sleep, a thread spins only `SPIN_LEAST`: the
/// threads share their cores with others (a test harness, runs side by side), and the one they
/// wait for is not running. A wait that ends spinning restores `SPIN`. (The `parallel` test
/// file, two tests at once each on two threads, spent 17% of its CPU spinning here.)
const SLEPT: usize = 4;
/// Every `PROBE`-th wait in a row that sleeps spins `SPIN` again, to see whether the thread
/// waited for runs now: a spin of 1 us ends asleep even when it does, so a run whose threads
/// once slept four times in a row (a moment's preemption) slept at nearly every window after.
/// 256 hosts on two threads took 0.57-0.95 s in such runs, with thousands of sleeps, where it
/// took 0.36-0.39 s without.
const PROBE: usize = 256;
const SPIN_LEAST: Duration = Duration::from_micros(1);

pub(crate) struct Barrier {
    parts: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    /// Threads asleep or about to be: the last to arrive wakes them only if there are any.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    woken: Condvar,
    /// Waits in a row that ended in sleep.
    slept: AtomicUsize,
}

impl Barrier {
    pub(crate) fn new(parts: usize) -> Barrier {
        Barrier {
            parts,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            woken: Condvar::new(),
            slept: AtomicUsize::new(0),
        }
    }

    /// Returns when all `parts` threads have called it.
    pub(crate) fn wait(&self) {
        let generation = self.generation.load(Ordering::SeqCst);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.parts {
            self.arrived.store(0, Ordering::Relaxed);
            // SeqCst on both sides (this bump then the `sleepers` load; a sleeper's increment
            // then its `generation` load): a sleeper either is counted here or sees the bump.
            self.generation.fetch_add(1, Ordering::SeqCst);
            if self.sleepers.load(Ordering::SeqCst) > 0 {
                let _held = self.lock.lock().expect("no thread panicked");
                self.woken.notify_all();
            }
            return;
        }
        let start = Instant::now();
        let spin = spin_after(self.slept.load(Ordering::Relaxed));
        while self.generation.load(Ordering::Acquire) == generation {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
            if start.elapsed() > spin {
                self.slept.fetch_add(1, Ordering::Relaxed);
                self.sleep(generation);
                return;
            }
        }
        self.slept.store(0, Ordering::Relaxed);
    }

    fn sleep(&self, generation: usize) {
        let mut held = self.lock.lock().expect("no thread panicked");
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        while self.generation.load(Ordering::SeqCst) == generation {
            held = self.woken.wait(held).expect("no thread panicked");
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How long a wait spins before it sleeps, after `slept` waits in a row that ended in sleep.
fn spin_after(slept: usize) -> Duration {
    if slept >= SLEPT && !slept.is_multiple_of(PROBE) {
        SPIN_LEAST
    } else {
        SPIN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_that_keep_sleeping_spin_least_but_probe_with_a_full_spin() {
        let spins: Vec<Duration> = (0..=2 * PROBE + 1).map(spin_after).collect();
        assert!(spins[..SLEPT].iter().all(|&s| s == SPIN));
        for (slept, &s) in spins.iter().enumerate().skip(SLEPT) {
            assert_eq!(s, if slept.is_multiple_of(PROBE) { SPIN } else { SPIN_LEAST }, "after {slept} sleeps in a row");
        }
    }

    #[test]
    fn no_thread_passes_before_all_arrive_in_any_round() {
        // Threads past the barrier of round r count themselves; none may see a count of round r
        // below `parts` after the next barrier, whether waiters spun or slept (the sleeping
        // thread sleeps past `SPIN` before arriving).
        let parts = 3;
        let barrier = Barrier::new(parts);
        let counts: Vec<AtomicUsize> = (0..40).map(|_| AtomicUsize::new(0)).collect();
        std::thread::scope(|s| {
            for t in 0..parts {
                let (barrier, counts) = (&barrier, &counts);
                s.spawn(move || {
                    for (round, count) in counts.iter().enumerate() {
                        if t == 0 && round % 4 == 0 {
                            std::thread::sleep(SPIN * 4);
                        }
                        count.fetch_add(1, Ordering::SeqCst);
                        barrier.wait();
                        assert_eq!(count.load(Ordering::SeqCst), parts, "round {round}");
                        barrier.wait();
                    }
                });
            }
        });
    }
}
