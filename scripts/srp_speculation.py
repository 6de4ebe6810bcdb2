#!/usr/bin/env python3
"""SRP speculation against the SRP authors' BookSim (docs/validation.md, "Speculation against
the authors' BookSim"): speculative share of the data packets sent, dropped share of the
speculative packets, drops per data packet and wasted capacity (dropped bytes times channels
crossed, over all 1,024 channels) at 50/70/80/90% uniform load, beside their code's figures.

    python scripts/srp_speculation.py                                  # the defaults
    python scripts/srp_speculation.py switch.router_latency_ns=24 'cc.srp.early_drop="predicted"'

Arguments are `--set` overrides. Scenario: examples/fattree256_uniform.toml with SRP, a TTW of
200 of their cycles (1.28 us), 50 us warm-up and 200 us measured; counters cover the whole run.
Uses the release binary built by `cargo build --release -p lossless-cli`.
"""

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


def measure(load: float, overrides: list[str]) -> tuple[float, float, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        sets = [*SETTINGS, f"traffic.0.load={load}", *overrides]
        cmd = [str(BINARY), "run", str(SCENARIO), "--out", f"{tmp}/out", "-q", *(a for s in sets for a in ("--set", s))]
        subprocess.run(cmd, check=True)
        s = json.loads(Path(f"{tmp}/out/summary.json").read_text())
    cc, sent = s["cc"], s["counters"]["injected"]
    speculative, dropped = cc["speculative_injected"], cc["speculative_dropped"]
    capacity_bytes = CHANNELS * GBPS * s["sim_time_ns"] / 8
    return (100 * speculative / sent, 100 * dropped / max(speculative, 1), 100 * dropped / sent, 100 * cc["speculative_dropped_channel_bytes"] / capacity_bytes)


def main() -> int:
    overrides = sys.argv[1:]
    with ThreadPoolExecutor(2) as pool:
        rows = list(pool.map(lambda load: (load, measure(load, overrides)), THEIRS))
    print("| load | speculative share of data packets (theirs / ours) | speculative packets dropped | drops per data packet | wasted |")
    print("|---|---|---|---|---|")
    for load, ours in rows:
        cells = " | ".join(f"{t}% / {o:.{2 if i >= 2 else 1}f}%" for i, (t, o) in enumerate(zip(THEIRS[load], ours)))
        print(f"| {load} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
