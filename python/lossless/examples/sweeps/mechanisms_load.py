"""A latency-load comparison of two mechanisms, start to finish, from Python.

    python examples/sweeps/mechanisms_load.py [OUT_DIR]

Run it from the root of a checkout. Each step is what you would type in a notebook cell; the
tutorial (docs/tutorial.md) walks through the same steps.
"""

import sys
from pathlib import Path

import lossless
import lossless.plot

out = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/tutorial")

# 1. The sweep: the default example at five loads, without congestion control and with SRP,
#    three seeds each. Points already finished in `out` are not run again.
results = lossless.sweep(
    "examples/fattree256_uniform.toml",
    out,
    series={"baseline": {"cc.mechanism": "none"}, "srp": {"cc.mechanism": "srp"}},
    product={"traffic.0.load": [0.2, 0.4, 0.6, 0.7, 0.8]},
    seeds=[1, 2, 3],
    overrides={"simulation.warmup_ns": 10_000, "simulation.measure_ns": 50_000},
)

# 2. The table: one row per point (and traffic class), parameters as columns.
table = results.points.groupby(["series", "traffic.0.load"])[["accepted", "packet_latency_mean_ns"]].mean()
print(table.round(3))

# 3. The figures, as PNG and SVG.
lossless.plot.save(lossless.plot.latency_load(results), out / "latency.png")
lossless.plot.save(lossless.plot.accepted_load(results), out / "accepted.svg")

# 4. How far does SRP cost latency at 80% load?
at80 = results.select({"traffic.0.load": 0.8}).points.groupby("series")["packet_latency_mean_ns"].mean()
print(f"SRP latency at 80% load: {at80['srp'] / at80['baseline'] - 1:+.1%} against the baseline")

# 5. A report to share: figures, parameters, every point, run metadata, in one HTML file.
print(lossless.report(out))
