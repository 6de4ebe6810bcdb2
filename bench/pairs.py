#!/usr/bin/env python3
"""Two builds against each other on one scenario, in pairs: one binary per core, both at once,
the cores swapped each round, so that each pair sees the machine in one state. Wall times on
these machines move by 20-30% from run to run and by 2x from day to day:
one pair says little, the median of many says more.

    python bench/pairs.py OLD NEW                       # the 256-host benchmark, 20 pairs
    python bench/pairs.py OLD NEW bench/fattree4096_uniform.toml --pairs 10 --set simulation.measure_ns=30000
    python bench/pairs.py OLD NEW --threads 2           # two threads each: one run at a time

OLD and NEW are `lossless` binaries (to build another commit apart, see bench/counts.py). It
prints each pair's wall times (the engine's own `wall_s`) and new/old, then their median and
quartiles, how many pairs NEW won, and a 95% interval of the median (bootstrap). A run on
several threads needs both cores, so `--threads` above 1 (or `--sequential`) runs one binary at a
time instead, which goes first alternating. The summaries of the two binaries are compared too,
all but `wall_s`, `events`, `version` and `commit` (an engine change may process fewer events
for the same results): a difference is named, since speed only counts with the same results.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import ROOT, command, machine  # noqa: E402

DEFAULT = ROOT / "bench" / "fattree256_uniform_1ms.toml"
# What two builds may report differently for the same results.
PROVENANCE = ("wall_s", "events", "version", "commit")


def start(binary: Path, scenario: Path, out: Path, threads: int, sets: list[str], core: int | None) -> subprocess.Popen:
    # Pinned to a core where the machine lets a process choose (Linux).
    pin = (lambda: os.sched_setaffinity(0, {core})) if core is not None and hasattr(os, "sched_setaffinity") else None
    return subprocess.Popen(command(binary, scenario, out, threads, sets), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=pin)


def finish(child: subprocess.Popen, binary: Path, out: Path) -> dict:
    _, err = child.communicate()
    if child.returncode != 0:
        raise SystemExit(f"{binary} failed (exit {child.returncode}):\n{err[-2000:]}")
    return json.loads((out / "summary.json").read_text())


def pair(old: Path, new: Path, scenario: Path, threads: int, sets: list[str], at_once: bool, swap: bool) -> tuple[dict, dict]:
    """One round: the old and new binary's summaries."""
    with tempfile.TemporaryDirectory() as tmp:
        runs = [(old, Path(tmp) / "old"), (new, Path(tmp) / "new")]
        if at_once:
            cores = (1, 0) if swap else (0, 1)
            children = [start(b, scenario, out, threads, sets, core) for (b, out), core in zip(runs, cores)]
            done = [finish(c, b, out) for c, (b, out) in zip(children, runs)]
        else:
            done = [{}, {}]
            for i in (1, 0) if swap else (0, 1):
                b, out = runs[i]
                done[i] = finish(start(b, scenario, out, threads, sets, None), b, out)
        return done[0], done[1]


def differing(a: dict, b: dict) -> list[str]:
    """The top-level summary fields, provenance aside, in which `a` and `b` differ."""
    keys = (set(a) | set(b)) - set(PROVENANCE)
    return sorted(k for k in keys if a.get(k) != b.get(k))


def median_interval(ratios: list[float], rounds: int = 2000) -> tuple[float, float]:
    """A 95% interval of the median by bootstrap, seeded so that a report reads the same twice."""
    rng = random.Random(1)
    medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(rounds))
    return medians[int(0.025 * rounds)], medians[int(0.975 * rounds) - 1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old", type=Path, help="the base `lossless` binary")
    ap.add_argument("new", type=Path, help="the `lossless` binary measured against it")
    ap.add_argument("scenario", type=Path, nargs="?", default=DEFAULT, help=f"a config (default: {DEFAULT.relative_to(ROOT)})")
    ap.add_argument("--pairs", type=int, default=20, help="rounds (default 20)")
    ap.add_argument("--threads", type=int, default=1, help="threads per run (above 1: one run at a time)")
    ap.add_argument("--sequential", action="store_true", help="one run at a time, the first alternating, even on one thread")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="an override for both runs, as `lossless run --set`")
    args = ap.parse_args()
    for b in (args.old, args.new):
        if not b.is_file():
            raise SystemExit(f"{b}: no such binary; give the paths of two built `lossless` binaries")
    if not args.scenario.is_file():
        raise SystemExit(f"{args.scenario}: no such config file")
    if args.pairs < 2:
        raise SystemExit(f"--pairs {args.pairs}: give at least 2 pairs (20 or more tell a few percent apart)")
    if args.threads < 1:
        raise SystemExit(f"--threads {args.threads}: give 1 or more")
    at_once = args.threads == 1 and not args.sequential and (os.cpu_count() or 1) >= 2
    print(f"machine: {machine()}")
    print(f"{args.scenario.name}: {args.pairs} pairs, {'at once, one core each' if at_once else 'one run at a time'}, {args.threads} thread(s) per run")
    ratios, differ = [], set()
    for k in range(args.pairs):
        old, new = pair(args.old, args.new, args.scenario, args.threads, args.sets, at_once, swap=k % 2 == 1)
        ratios.append(new["wall_s"] / old["wall_s"])
        differ.update(differing(old, new))
        print(f"pair {k + 1:>3}  old {old['wall_s']:8.3f} s  new {new['wall_s']:8.3f} s  new/old {ratios[-1]:.3f}")
    q1, med, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
    low, high = median_interval(ratios)
    won = sum(r < 1 for r in ratios)
    print(f"new/old: median {med:.3f} (95% interval {low:.3f} to {high:.3f}), quartiles {q1:.3f} to {q3:.3f}, range {min(ratios):.3f} to {max(ratios):.3f}; new faster in {won} of {len(ratios)}")
    print(f"summaries: {'identical' if not differ else 'differ in ' + ', '.join(sorted(differ))} (all but {', '.join(PROVENANCE)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
