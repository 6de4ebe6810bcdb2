//! Transparent huge pages for a large network's state (Linux).
//!
//! On large networks an event's loads miss the caches, and with 4 KiB pages each miss also walks
//! the page tables: with huge pages a 20-us run of 65,536 hosts (1.2 GiB) is 1.2x faster and
//! the 4,096-host benchmark 1.15x (docs/performance.md, 2026-11-26). Most kernels give them
//! only to memory that asks for them (`madvise` mode), and glibc's heap asks only when a tunable
//! is set before the process starts; so a large run's memory asks, and is collapsed into huge
//! pages, early in the run and again after twice as many events each time, as packets, events
//! and send queues take more of it. Where pages come from changes no result.

/// Mappings smaller than one huge page (2 MiB) cannot hold one.
const MIN_MAPPING_BYTES: usize = 2 << 20;

/// When a run asks for huge pages: never if it is small, else at doubling event counts.
pub(crate) struct Advisor {
    /// Events processed at which to ask next; `u64::MAX` for a small run.
    next: u64,
}

/// The first request, once the build is done and the first events have run.
const FIRST_AT_EVENTS: u64 = 1 << 16;

impl Advisor {
    /// The advisor of a run that is `large` (`memory::LARGE_RUN_BYTES`): a smaller one keeps
    /// its pages, its state within the reach of the processor's cache of 4 KiB page
    /// translations (a few thousand entries, 6 to 12 MiB) or close to it, and collapsing costs
    /// time.
    pub(crate) fn new(large: bool) -> Advisor {
        Advisor { next: if large { FIRST_AT_EVENTS } else { u64::MAX } }
    }

    /// With `events` processed so far (over the whole run), asks for huge pages if it is time.
    /// Best effort: a kernel without transparent huge pages or `MADV_COLLAPSE` (Linux 6.1)
    /// refuses, and nothing else changes.
    pub(crate) fn tick(&mut self, events: u64) {
        if events >= self.next {
            advise_mappings();
            self.next = events.saturating_mul(2);
        }
    }
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
    use super::{anonymous_writable, Advisor, FIRST_AT_EVENTS};

    #[test]
    fn a_large_run_asks_early_then_at_doubling_event_counts() {
        let mut a = Advisor { next: FIRST_AT_EVENTS };
        a.tick(FIRST_AT_EVENTS - 1);
        assert_eq!(a.next, FIRST_AT_EVENTS, "not yet");
        a.tick(FIRST_AT_EVENTS + 5);
        assert_eq!(a.next, 2 * (FIRST_AT_EVENTS + 5));
        let mut small = Advisor { next: u64::MAX };
        small.tick(u64::MAX - 1);
        assert_eq!(small.next, u64::MAX, "a small run never asks");
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
