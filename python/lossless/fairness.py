"""Fairness over time: the thesis' treatment variation (Paper III §VII-B).

Jain's index and the spread of per-sender throughput over a whole window are in every summary
(docs/metrics.md); this module measures how evenly flows are treated *over time*.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pandas as pd


@dataclass(frozen=True)
class TreatmentVariation:
    #: Variance over time bins of delta(t) = max - min throughput of the flows in bin t.
    var: float
    #: Mean of delta(t): a constant unfairness has a low `var` but a high `mean_delta`.
    mean_delta: float
    #: Number of bins.
    bins: int


def treatment_variation(timeseries: pd.DataFrame, classes: Sequence[str], start_ns: float, end_ns: float | None = None, column: str = "accepted") -> TreatmentVariation:
    """Paper III's Var for the traffic classes `classes` (the contributors) over the bins in
    [start_ns, end_ns): "for each point in time where all four contributors are active ... we
    subtract the lowest throughput of any of the four flows from the throughput of the flow with
    the highest throughput ... calculating the variation of this delta array, we get the Var
    value" [Paper III §VII-B]. Throughputs in the units of `column` (a fraction of link rate for
    `accepted`); variance with the population estimator. `timeseries` is a run's or one sweep
    point's time series (`Result.timeseries`)."""
    missing = sorted(set(classes) - set(timeseries["class"]))
    if missing:
        raise KeyError(f"no traffic class {missing[0]} in the time series")
    ts = timeseries[timeseries["class"].isin(classes) & (timeseries["bin_start_ns"] >= start_ns)]
    if end_ns is not None:
        ts = ts[ts["bin_start_ns"] < end_ns]
    wide = ts.pivot(index="bin_start_ns", columns="class", values=column)
    if wide.empty:
        raise ValueError(f"no time bins from {start_ns} ns")
    delta = wide.max(axis=1) - wide.min(axis=1)
    return TreatmentVariation(float(delta.var(ddof=0)), float(delta.mean()), len(delta))
