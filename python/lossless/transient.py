"""Transient experiments: one step or impulse scenario over many seeds, averaged per time bin.

    >>> runs = lossless.run_many([(cfg, {"simulation.seed": s}) for s in range(100)])
    >>> lossless.transient.average(runs, "background", "accepted")

Each bin's mean comes with a 95% confidence half-width (normal approximation, 1.96 standard
errors over seeds); bins where a seed delivered nothing (latency undefined) average the seeds
that have a value.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from .run import Result

Z95 = 1.96


def series(run: Result, traffic_class: str, column: str) -> pd.Series:
    """One run's time series of `column` for `traffic_class`, indexed by `bin_start_ns`."""
    ts = run.timeseries
    if traffic_class not in set(ts["class"]):
        raise KeyError(f"no traffic class `{traffic_class}` in the results (classes: {sorted(set(ts['class']))})")
    return ts[ts["class"] == traffic_class].set_index("bin_start_ns")[column]


def average(runs: Sequence[Result], traffic_class: str, column: str) -> pd.DataFrame:
    """Per-bin mean of `column` of `traffic_class` over `runs`, with `ci95` and `seeds` counts.

    Indexed by `bin_start_ns`.
    """
    return average_series([series(r, traffic_class, column) for r in runs])


def average_series(per_seed: Sequence[pd.Series]) -> pd.DataFrame:
    """Per-bin mean over seeds of series sharing one bin index, with `ci95` and `seeds`."""
    if not per_seed:
        raise ValueError("no runs to average")
    wide = pd.concat([s.rename(i) for i, s in enumerate(per_seed)], axis=1)
    n = wide.count(axis=1)
    sem = wide.std(axis=1, ddof=1) / n.pow(0.5)
    return pd.DataFrame({"mean": wide.mean(axis=1), "ci95": (Z95 * sem).fillna(0.0), "seeds": n})
