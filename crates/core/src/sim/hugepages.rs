//! Transparent huge pages for a large network's state (Linux).
//!
//! On large networks an event's loads miss the caches, and with 4 KiB pages each miss also walks
//! the page tables: with huge pages a 20-us run of 65,536 hosts (1.2 GiB) is 1.2x faster and
//! the 4,096-host benchmark 1.15x. Most kernels give them
//! only to memory that asks for them (`madvise` mode), and glibc's heap asks only when a tunable
//! is set before the process starts; so a large run's memory asks, and is collapsed into huge
//! pages, early in the run and again after twice as many events each time, as packets, events
//! and send queues take more of it, until the run's last quarter. A run that becomes large as
//! it goes, its sources' backlogs growing, asks from then on. Where pages come from changes no
//! result.

use super::memory::LARGE_RUN_BYTES;
use super::Progress;

/// Mappings smaller than one huge page (2 MiB) cannot hold one.
const MIN_MAPPING_BYTES: usize = 2 << 20;

/// When a run asks for huge pages: at doubling event counts, once it is large.
pub(crate) struct Advisor {
    /// Events processed at which to look next.
    next: u64,
    /// How a run estimated below `memory::LARGE_RUN_BYTES` may grow into one; `None` for a large
    /// run, and for a smaller one once it has.
    short_of: Option<Growth>,
}

/// How far a run estimated below `memory::LARGE_RUN_BYTES` is from it: its estimate, and the
/// process's resident memory when it was built.
#[derive(Clone, Copy)]
struct Growth {
    estimate: f64,
    resident_at_build: f64,
}

/// The first look, once the build is done and the first events have run.
const FIRST_AT_EVENTS: u64 = 1 << 16;

impl Advisor {
    /// The advisor of a run estimated at `estimate` bytes. A large one (`memory::
    /// LARGE_RUN_BYTES`) asks from the first look. A smaller one keeps its pages, its state
    /// within the reach of the processor's cache of 4 KiB page translations (a few thousand
    /// entries, 6 to 12 MiB) or close to it, and collapsing costs time, until the resident
    /// memory it has taken since its build brings it there: sources whose backlogs grow do
    /// (`ib-t42`'s p = 0 IB CC run, estimated at 25 MiB, holds hundreds of MiB of queued
    /// messages by its end, and runs 4-9% faster with huge pages over 33 ms). Runs sharing the process share its pages, so the
    /// memory any of them takes counts.
    pub(crate) fn new(estimate: f64) -> Advisor {
        // Memory that cannot be read at the build never counts as grown.
        let short_of = (estimate < LARGE_RUN_BYTES).then(|| Growth { estimate, resident_at_build: resident_bytes().unwrap_or(f64::INFINITY) });
        Advisor { next: FIRST_AT_EVENTS, short_of }
    }

    /// At the run's progress `at` (its events so far over the whole run, its time and end),
    /// asks for huge pages if it is time. Best effort: a kernel without transparent huge pages
    /// or `MADV_COLLAPSE` (Linux 6.1) refuses, and nothing else changes.
    pub(crate) fn tick(&mut self, at: &Progress) {
        if self.due(at, resident_bytes) {
            advise_mappings();
        }
    }

    /// Whether to ask `at` this progress, the process's `resident` memory read only at a look.
    /// Not in the last quarter of the run's time: a collapse copies every page it gathers (a
    /// growing run's last, 287 MB, took 0.85 s with 1.1 s left), and what huge pages save, 4-9%
    /// of the time that remains, falls short of that late. `ib-t42`'s p = 30 run without CC is
    /// 1.13x faster for it, and a run stopping at half its time gained less than one stopping at
    /// three quarters on the p = 0 IB CC run.
    fn due(&mut self, at: &Progress, resident: impl FnOnce() -> Option<f64>) -> bool {
        if at.events < self.next {
            return false;
        }
        self.next = at.events.saturating_mul(2);
        if at.now > at.end - at.end / 4 {
            return false;
        }
        if let Some(g) = self.short_of {
            let grown = resident().map_or(0.0, |r| r - g.resident_at_build);
            if g.estimate + grown < LARGE_RUN_BYTES {
                return false;
            }
            self.short_of = None;
        }
        true
    }
}

/// The process's resident memory, from `/proc/self/statm` (in pages).
#[cfg(target_os = "linux")]
fn resident_bytes() -> Option<f64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: f64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf reads a constant of the system.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    (page > 0).then_some(pages * page as f64)
}

#[cfg(not(target_os = "linux"))]
fn resident_bytes() -> Option<f64> {
    None
}

#[cfg(target_os = "linux")]
fn advise_mappings() {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else { return };
    for (start, end) in maps.lines().filter_map(anonymous_writable) {
        let (at, len) = (start as *mut libc::c_void, end - start);
        // SAFETY: advice on whole mappings of this process, read from its own map: neither call
        // moves, frees or changes the contents of memory.
        unsafe {
            libc::madvise(at, len, libc::MADV_HUGEPAGE);
            libc::madvise(at, len, libc::MADV_COLLAPSE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_mappings() {}

/// The address range of a `/proc/self/maps` line if it is anonymous (or the heap), writable and
/// can hold a huge page.
fn anonymous_writable(line: &str) -> Option<(usize, usize)> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let anonymous = match fields.len() {
        5 => true,
        6 => fields[5] == "[heap]",
        _ => false,
    };
    if !anonymous || !fields[1].starts_with("rw") {
        return None;
    }
    let (start, end) = fields[0].split_once('-')?;
    let (start, end) = (usize::from_str_radix(start, 16).ok()?, usize::from_str_radix(end, 16).ok()?);
    (end - start >= MIN_MAPPING_BYTES).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::{anonymous_writable, Advisor, Growth, Progress, FIRST_AT_EVENTS, LARGE_RUN_BYTES};
    use crate::time::Time;

    /// A run's end, far from the early looks' times.
    const END: Time = 1_000;

    /// The progress of a run ending at `END` with `events` processed at `now`.
    fn at(events: u64, now: Time) -> Progress {
        Progress { now, end: END, events }
    }

    #[test]
    fn a_large_run_asks_early_then_at_doubling_event_counts() {
        let mut a = Advisor::new(LARGE_RUN_BYTES);
        let unread = || -> Option<f64> { panic!("a large run does not read its memory") };
        assert!(!a.due(&at(FIRST_AT_EVENTS - 1, 0), unread), "not yet");
        assert!(a.due(&at(FIRST_AT_EVENTS + 5, 1), unread));
        assert!(!a.due(&at(2 * (FIRST_AT_EVENTS + 5) - 1, 2), unread));
        assert!(a.due(&at(2 * (FIRST_AT_EVENTS + 5), 3), unread));
    }

    #[test]
    fn no_run_asks_in_the_last_quarter_of_its_time() {
        let mut a = Advisor::new(LARGE_RUN_BYTES);
        assert!(a.due(&at(FIRST_AT_EVENTS, END * 3 / 4), || None), "a quarter of the run left");
        assert!(!a.due(&at(2 * FIRST_AT_EVENTS, END * 3 / 4 + 1), || None));
        assert!(!a.due(&at(4 * FIRST_AT_EVENTS, END), || None));
    }

    #[test]
    fn a_smaller_run_asks_once_its_growth_makes_it_large_and_from_then_on() {
        let mib = 1024.0 * 1024.0;
        let mut a = Advisor { next: FIRST_AT_EVENTS, short_of: Some(Growth { estimate: 25.0 * mib, resident_at_build: 100.0 * mib }) };
        assert!(!a.due(&at(FIRST_AT_EVENTS, 1), || Some(106.0 * mib)), "31 MiB");
        assert!(!a.due(&at(4 * FIRST_AT_EVENTS, 2), || None), "nothing known: no growth");
        assert!(a.due(&at(8 * FIRST_AT_EVENTS, 3), || Some(107.0 * mib)), "32 MiB");
        assert!(a.due(&at(16 * FIRST_AT_EVENTS, 4), || panic!("not read again")));
    }

    #[test]
    fn only_large_anonymous_writable_mappings_are_advised() {
        let heap = "55d1c0a00000-55d1d0a00000 rw-p 00000000 00:00 0                          [heap]";
        let anon = "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 ";
        assert_eq!(anonymous_writable(heap), Some((0x55d1c0a00000, 0x55d1d0a00000)));
        assert_eq!(anonymous_writable(anon), Some((0x7f0000000000, 0x7f0000400000)));
        let small = "7f0000000000-7f0000100000 rw-p 00000000 00:00 0";
        let file = "7f0000000000-7f0000400000 rw-p 00000000 08:01 1234                       /usr/lib/libc.so.6";
        let stack = "7ffd00000000-7ffd00400000 rw-p 00000000 00:00 0                          [stack]";
        let code = "7f0000000000-7f0000400000 r-xp 00000000 00:00 0";
        for line in [small, file, stack, code] {
            assert_eq!(anonymous_writable(line), None, "{line}");
        }
    }
}
