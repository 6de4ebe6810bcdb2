#!/usr/bin/env python3
"""Instructions and simulated cache misses of short fixed runs, under cachegrind: the same
figures for the same binary every time, whatever else the machine does. Wall times on these
machines move by 20-30% from run to run, so a change of a few percent
shows here long before it shows in bench/run.py.

    python bench/counts.py                          # builds and measures target/release/lossless
    python bench/counts.py /tmp/old /tmp/new        # compares binaries, the first as the base

To measure another commit, build it apart, e.g.
`git worktree add /tmp/old <commit> && cargo build --release -p lossless-cli --manifest-path
/tmp/old/Cargo.toml --target-dir /tmp/old/target`, then pass `/tmp/old/target/release/lossless`.

The simulated last-level cache is 2 MiB (16 ways, 64-byte lines): about what a core of these
machines has to itself; their shared last level is shared with other machines too. Cachegrind
does not model prefetches, so a change that only prefetches cannot show here: measure those with
bench/run.py, interleaved. Nor do instructions weigh mispredicted branches: a change that trades
instructions for fewer of them shows here as a loss.
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BINARY = ROOT / "target" / "release" / "lossless"
# (name, scenario, overrides): runs of about a minute each. Two run.py scenarios cut short, and
# the 648-node silent forest with IB CC from its start: a saturated network whose mechanism
# marks most packets, as the thesis' 648-node reproductions (`ib-t41` to `ib-t46`) run.
RUNS = [
    ("256 hosts, 100 us", ROOT / "bench" / "fattree256_uniform_1ms.toml", ["simulation.measure_ns=100000"]),
    ("4,096 hosts, 10 us", ROOT / "bench" / "fattree4096_uniform.toml", ["simulation.measure_ns=10000"]),
    ("648 IB CC, 300 us", ROOT / "examples" / "ibcc" / "fattree648_silent_forest.toml", ["simulation.warmup_ns=0", "simulation.measure_ns=300000"]),
]
LAST_LEVEL = "--LL=2097152,16,64"
# Cachegrind's event names, and what the table calls them.
SHOWN = [("Ir", "M instructions"), ("D1mr", "M D1 read misses"), ("DLmr", "M LL read misses"), ("DLmw", "M LL write misses")]


def count(binary: Path, scenario: Path, overrides: list[str]) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cachegrind.out"
        sets = [a for o in overrides for a in ("--set", o)]
        args = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", LAST_LEVEL, f"--cachegrind-out-file={out}", str(binary), "run", str(scenario), *sets, "--out", f"{tmp}/run", "-q"]
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{binary} on {scenario.name} failed:\n{done.stderr[-2000:]}")
        lines = out.read_text().splitlines()
    events = next(line.split()[1:] for line in lines if line.startswith("events:"))
    totals = next(line.split()[1:] for line in lines if line.startswith("summary:"))
    return dict(zip(events, map(int, totals)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binaries", nargs="*", type=Path, help="lossless binaries to compare, the first as the base (default: build target/release/lossless)")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: install Debian's `valgrind` package (apt-get install valgrind)")
    binaries = args.binaries
    if not binaries:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "lossless-cli"], check=True, cwd=ROOT)
        binaries = [BINARY]
    for b in binaries:
        if not b.is_file():
            raise SystemExit(f"{b}: no such binary; give paths to built `lossless` binaries")
    jobs = [(name, b, sc, ov) for name, sc, ov in RUNS for b in binaries]
    # Counts do not depend on what runs beside them: use every core.
    with ThreadPoolExecutor() as pool:
        results = list(pool.map(lambda j: count(j[1], j[2], j[3]), jobs))
    print(f"{'run':<20} {'binary':<32}" + "".join(f" {label:>18}" for _, label in SHOWN))
    for k, (name, b, _, _) in enumerate(jobs):
        base = results[k - k % len(binaries)]
        cells = []
        for event, _ in SHOWN:
            v = results[k][event]
            change = f" ({(v / base[event] - 1) * 100:+.1f}%)" if b != binaries[0] and base[event] else ""
            cells.append(f"{v / 1e6:.2f}{change}")
        print(f"{name:<20} {str(b)[-32:]:<32}" + "".join(f" {c:>18}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
