#!/usr/bin/env python3
"""Scaling: events per second and simulated microseconds per wall second against network size
(256, 4,096 and 65,536 hosts) on 1 and 2 threads, as a table for docs/performance.md and the figure
docs/img/scaling.png.

    python bench/scaling.py              # every size, threads 1 and 2, best of 2
    python bench/scaling.py --threads 1 2 4 --repeat 3

The networks are bench/fattree4096_uniform.toml's (k-ary n-trees with 128 ns channels, uniform
random 0.5, 4-packet messages) at other k and n; each simulates long enough to take seconds.
Runs of one size alternate thread counts, so both see the machine in the same state.
"""

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import BINARY, ROOT, machine, measure  # noqa: E402

SCENARIO = ROOT / "bench" / "fattree4096_uniform.toml"
# (hosts, k, n, simulated us)
SIZES = [(256, 16, 2, 1000), (4096, 16, 3, 30), (65536, 16, 4, 12)]
FIGURE = ROOT / "docs" / "img" / "scaling.png"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=2, help="runs per point; the fastest is kept")
    args = ap.parse_args()
    if not BINARY.exists():
        raise SystemExit(f"{BINARY} is missing: cargo build --release -p lossless-cli")
    rows = []
    taken_on = machine()
    print(f"machine: {taken_on}")
    print("| hosts | threads | simulated us | wall s | M events/s | simulated us per wall s | peak MiB | speed-up |")
    print("|---|---|---|---|---|---|---|---|")
    for hosts, k, n, us in SIZES:
        sets = (f"topology.k={k}", f"topology.n={n}", f"simulation.measure_ns={us * 1000}")
        best: dict[int, dict] = {}
        for _ in range(args.repeat):
            for t in args.threads:
                r = measure(SCENARIO, t, sets)
                if t not in best or r["wall_s"] < best[t]["wall_s"]:
                    best[t] = r
        for t in args.threads:
            r = best[t]
            speedup = best[args.threads[0]]["wall_s"] / r["wall_s"]
            rows.append((hosts, t, r))
            print(f"| {hosts:,} | {t} | {us} | {r['wall_s']:.2f} | {r['events_per_s'] / 1e6:.2f} | {r['sim_ns_per_wall_s'] / 1e3:.1f} | {r['peak_rss_mib']:.0f} | {speedup:.2f}x |")
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for t in args.threads:
        pts = [(h, r) for h, tt, r in rows if tt == t]
        left.plot([h for h, _ in pts], [r["events_per_s"] / 1e6 for _, r in pts], marker="o", label=f"{t} thread{'s' * (t > 1)}")
        right.plot([h for h, _ in pts], [r["sim_ns_per_wall_s"] / 1e3 for _, r in pts], marker="o", label=f"{t} thread{'s' * (t > 1)}")
    for ax, label in ((left, "million events per wall second"), (right, "simulated us per wall second")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("hosts (k-ary n-tree, uniform 0.5)")
        ax.set_ylabel(label)
        ax.legend()
    right.set_yscale("log")
    fig.suptitle(taken_on, fontsize=8)
    fig.tight_layout()
    FIGURE.parent.mkdir(exist_ok=True)
    fig.savefig(FIGURE, dpi=100)
    print(f"figure: {FIGURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
