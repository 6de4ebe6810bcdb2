#!/usr/bin/env python3
"""SRP speculation against the SRP authors' BookSim (docs/validation.md, "Speculation against
the authors' BookSim"): speculative share of the data packets sent, dropped share of the
speculative packets, drops per data packet and wasted capacity (dropped bytes times channels
crossed, over all 1,024 channels) at 50/70/80/90% uniform load, beside their code's figures;
then SRP's extra channel utilization over the baseline's (4-packet messages, and 1-packet ones
with n_min = 1) at 50/70/80% load, as SRP-10 measures it (20 us warm-up, 100 us measured).

    python scripts/srp_speculation.py                                  # the defaults
    python scripts/srp_speculation.py switch.router_latency_ns=24 'cc.srp.early_drop="predicted"'

Arguments are `--set` overrides. Scenario: examples/fattree256_uniform.toml with SRP, a TTW of
200 of their cycles (1.28 us), 50 us warm-up and 200 us measured; counters cover the whole run.
Uses the release binary built by `cargo build --release -p lossless-cli`.
"""

import csv
import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BINARY = ROOT / "target" / "release" / "lossless"
SCENARIO = ROOT / "examples" / "fattree256_uniform.toml"
SETTINGS = ['cc.mechanism="srp"', "cc.srp.ttw_ns=1280", "simulation.warmup_ns=50000", "simulation.measure_ns=200000"]
CHANNELS, GBPS = 1024, 10
# Their December 2011 code, one seed (issue 24): share, dropped share, drops per data packet,
# wasted capacity, all in percent.
THEIRS = {0.5: (26.8, 4.6, 1.26, 0.46), 0.7: (16.5, 10.4, 1.71, 0.84), 0.8: (11.8, 12.2, 1.45, 0.78), 0.9: (6.5, 12.8, 0.83, 0.49)}
# Extra channel utilization, SRP minus baseline, percentage points, by message size and load.
THEIRS_EXTRA = {4: {0.5: 1.67, 0.7: 2.44, 0.8: 2.05}, 1: {0.5: 4.4, 0.7: 8.7, 0.8: 10.1}}


def run(sets: list[str]) -> tuple[dict, list[dict]]:
    """Runs the scenario with `sets`: its summary and its links table."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [str(BINARY), "run", str(SCENARIO), "--out", f"{tmp}/out", "-q", *(a for s in sets for a in ("--set", s))]
        subprocess.run(cmd, check=True)
        return json.loads(Path(f"{tmp}/out/summary.json").read_text()), list(csv.DictReader(open(f"{tmp}/out/links.csv")))


def measure(load: float, overrides: list[str]) -> tuple[float, float, float, float]:
    s, _ = run([*SETTINGS, f"traffic.0.load={load}", *overrides])
    cc, sent = s["cc"], s["counters"]["injected"]
    speculative, dropped = cc["speculative_injected"], cc["speculative_dropped"]
    capacity_bytes = CHANNELS * GBPS * s["sim_time_ns"] / 8
    return (100 * speculative / sent, 100 * dropped / max(speculative, 1), 100 * dropped / sent, 100 * cc["speculative_dropped_channel_bytes"] / capacity_bytes)


def utilization(mechanism: str, load: float, packets: int, overrides: list[str]) -> float:
    """Mean channel utilization over all channels, in percent."""
    own = [o for o in overrides if not o.startswith("cc.") or o.startswith(f"cc.{mechanism}.")]
    n_min = ["cc.srp.n_min=1"] if mechanism == "srp" and packets == 1 else []
    sets = [f'cc.mechanism="{mechanism}"', f"traffic.0.load={load}", f'traffic.0.message={{kind="fixed",packets={packets}}}', "simulation.warmup_ns=20000", "simulation.measure_ns=100000", *n_min, *own]
    _, links = run(sets)
    return 100 * sum(float(r["utilization"]) for r in links) / len(links)


def main() -> int:
    overrides = sys.argv[1:]
    with ThreadPoolExecutor(2) as pool:
        rows = list(pool.map(lambda load: (load, measure(load, overrides)), THEIRS))
    print("| load | speculative share of data packets (theirs / ours) | speculative packets dropped | drops per data packet | wasted |")
    print("|---|---|---|---|---|")
    for load, ours in rows:
        cells = " | ".join(f"{t}% / {o:.{2 if i >= 2 else 1}f}%" for i, (t, o) in enumerate(zip(THEIRS[load], ours)))
        print(f"| {load} | {cells} |")
    keys = [(m, load, n) for n in THEIRS_EXTRA for load in THEIRS_EXTRA[n] for m in ("none", "srp")]
    with ThreadPoolExecutor(2) as pool:
        util = dict(zip(keys, pool.map(lambda k: utilization(*k, overrides), keys)))
    print("\n| message | extra channel utilization at " + " / ".join(f"{l:.0%}" for l in THEIRS_EXTRA[4]) + " load, points (theirs) |")
    print("|---|---|")
    for n, theirs in THEIRS_EXTRA.items():
        cells = " / ".join(f"{util[('srp', l, n)] - util[('none', l, n)]:.2f}" for l in theirs)
        print(f"| {n} packet{'s' if n > 1 else ''} | {cells} ({' / '.join(str(t) for t in theirs.values())}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
