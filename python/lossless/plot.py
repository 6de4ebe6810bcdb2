"""Figures of sweep results (or of one run's directory, as a one-point sweep), with readable
defaults; each function returns a matplotlib Figure.

    >>> r = lossless.load("runs/loads")
    >>> lossless.plot.latency_load(r).savefig("latency.svg")

Points that differ only in their seed are one point of the figure: the mean over seeds, with
a 95% confidence interval (1.96 standard errors) as error bars or bands. `by` draws one curve
per value of a column (default: the series, else the first swept key that is not on the x
axis); `traffic_class` picks the class (default: the first of the scenario).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

import matplotlib

matplotlib.use("Agg")  # files, never windows: plots are made on clusters and in CI

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .outputs import check_file  # noqa: E402
from .saturation import Saturation  # noqa: E402
from .sweeps.results import SweepResults  # noqa: E402
from .sweeps.store import write_atomically  # noqa: E402
from .transient import Z95, average_series  # noqa: E402

KINDS = ("latency", "accepted", "timeseries", "senders", "links", "heatmap")

_LABELS = {
    "offered": "offered load (fraction of link rate)",
    "accepted": "accepted throughput (fraction of link rate)",
    "packet_latency_mean_ns": "mean packet latency (ns)",
    "inflight_latency_mean_ns": "mean in-flight latency (ns)",
    "network_latency_mean_ns": "mean network latency (ns)",
    "packet_latency_p99_ns": "99th percentile packet latency (ns)",
    "fct_mean_ns": "mean flow completion time (ns)",
    "fct_p99_ns": "99th percentile flow completion time (ns)",
    "slowdown_mean": "mean FCT slowdown (over the time alone)",
    "slowdown_p99": "99th percentile FCT slowdown",
    "slowdown_p999": "99.9th percentile FCT slowdown",
    "bin_start_ns": "time (ns)",
    "fairness_jain": "Jain's fairness index",
}


def label(column: str) -> str:
    if column.endswith(".load"):
        return f"offered load of {column.removesuffix('.load')} (fraction of link rate)"
    return _LABELS.get(column, column)


def latency_load(results: SweepResults, *, x: str | None = None, latency: str = "packet_latency_mean_ns", by: str | None = None, traffic_class: str | None = None) -> Figure:
    """Latency against offered load, a curve per mechanism (or `by`)."""
    return curves(results, x=x or _load_key(results), y=latency, by=by, traffic_class=traffic_class)


def accepted_load(results: SweepResults, *, x: str | None = None, by: str | None = None, traffic_class: str | None = None) -> Figure:
    """Accepted throughput against offered load, with the diagonal accepted = offered."""
    fig = curves(results, x=x or _load_key(results), y="accepted", by=by, traffic_class=traffic_class)
    ax = fig.axes[0]
    lo, hi = ax.get_xlim()
    ax.plot([lo, hi], [lo, hi], color="0.7", linestyle=":", linewidth=1, label="_offered", zorder=0)
    return fig


def curves(results: SweepResults, *, x: str, y: str, by: str | None = None, traffic_class: str | None = None) -> Figure:
    """`y` against `x`, mean over seeds with 95% confidence error bars, a curve per `by` value."""
    points, name = _class_rows(results.points, traffic_class)
    by = _by(results, by, exclude={x})
    _require(points, [x, y] + ([by] if by else []))
    _only_seeds_vary(results, points, [x, by])
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    for value, group in _groups(points, by):
        stats = _mean_ci(group, [x], y)
        ax.errorbar(stats[x], stats["mean"], yerr=stats["ci95"], marker="o", markersize=4, capsize=3, label=_legend(by, value))
    ax.set(xlabel=label(x), ylabel=label(y), title=name)
    _finish(ax, by)
    return fig


def links(results: SweepResults, *, top: int = 30) -> Figure:
    """Utilization of the `top` busiest channels (mean over seeds), busiest first."""
    rows = results.links
    if rows.empty:
        raise ValueError("no finished point to plot")
    _only_seeds_vary(results, rows, [])
    stats = _mean_ci(rows, ["name"], "utilization").sort_values("mean", ascending=False).head(top)
    fig, ax = plt.subplots(figsize=(max(6, 0.3 * len(stats)), 4), layout="constrained")
    ax.bar(range(len(stats)), stats["mean"], yerr=stats["ci95"], capsize=2)
    ax.set_xticks(range(len(stats)), list(stats["name"]), rotation=90)
    ax.set(xlabel="channel (as in links.csv)", ylabel="utilization (fraction of its rate)", ylim=(0, 1.05), title=f"the {len(stats)} busiest channels")
    ax.grid(alpha=0.3)
    return fig


def timeseries(results: SweepResults, *, column: str = "accepted", by: str | None = None, traffic_class: str | None = None) -> Figure:
    """A time series per curve, averaged over seeds per bin, with a 95% confidence band."""
    rows, name = _class_rows(results.timeseries, traffic_class)
    by = _by(results, by, exclude=set())
    _require(rows, [column, "bin_start_ns"] + ([by] if by else []))
    _only_seeds_vary(results, rows, [by])
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    for value, group in _groups(rows, by):
        per_seed = [g.set_index("bin_start_ns")[column] for _, g in group.groupby("point", sort=True)]
        avg = average_series(per_seed)
        line, = ax.plot(avg.index, avg["mean"], label=_legend(by, value))
        ax.fill_between(avg.index, avg["mean"] - avg["ci95"], avg["mean"] + avg["ci95"], color=line.get_color(), alpha=0.25, linewidth=0)
    ax.set(xlabel=label("bin_start_ns"), ylabel=label(column), title=name)
    _finish(ax, by)
    return fig


#: The flow-size buckets pFabric and HPCC report FCTs in (bytes): up to 100 KB, to 10 MB, above.
SIZE_EDGES = (100e3, 10e6)


def slowdown_by_size(flows: pd.DataFrame, *, edges: tuple[float, ...] = SIZE_EDGES, quantiles: tuple[float, ...] = (0.5, 0.99, 0.999)) -> Figure:
    """FCT slowdown per flow-size bucket (`bytes` cut at `edges`), a bar per quantile, from a
    run's `Result.flows` (``simulation.record_flows = true``). Empty buckets are left out."""
    _require(flows, ["bytes", "slowdown"])
    if flows.empty:
        raise ValueError("no completed flow to plot: run longer, or check `unfinished_messages`")
    bounds = [0.0, *edges, float("inf")]
    names = [_size_range(lo, hi) for lo, hi in zip(bounds, bounds[1:])]
    buckets = pd.cut(flows["bytes"], bounds, labels=names)
    table = flows.groupby(buckets, observed=True)["slowdown"].quantile(list(quantiles)).unstack()
    counts = flows.groupby(buckets, observed=True).size()
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    width = 0.8 / len(quantiles)
    for i, q in enumerate(quantiles):
        ax.bar([k + i * width for k in range(len(table))], table[q], width, label=f"p{q * 100:g}")
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(table))], [f"{n}\n({counts[n]} flows)" for n in table.index])
    ax.set(ylabel="FCT slowdown (over the time alone)", yscale="log", title="slowdown by flow size")
    ax.legend()
    ax.grid(alpha=0.3, axis="y")
    return fig


def _size_range(lo: float, hi: float) -> str:
    def size(b: float) -> str:
        return f"{b / 1e6:g} MB" if b >= 1e6 else f"{b / 1e3:g} KB"

    return f"> {size(lo)}" if hi == float("inf") else f"<= {size(hi)}" if lo == 0 else f"{size(lo)} - {size(hi)}"


#: Beyond this many senders, bars are unreadable: `senders` draws the distribution instead.
MAX_SENDER_BARS = 32


def senders(results: SweepResults, *, by: str | None = None, traffic_class: str | None = None) -> Figure:
    """Accepted throughput of each sender, mean over seeds with 95% confidence error bars; with
    more than `MAX_SENDER_BARS` senders, their distribution: senders ranked by throughput."""
    rows, name = _class_rows(results.senders, traffic_class)
    by = _by(results, by, exclude=set())
    _only_seeds_vary(results, rows, [by])
    groups = list(_groups(rows, by))
    nodes = sorted(rows["node"].unique())
    if len(nodes) > MAX_SENDER_BARS:
        return _sender_distribution(groups, by, name)
    fig, ax = plt.subplots(figsize=(min(10, max(6, 0.25 * len(nodes) * len(groups))), 4), layout="constrained")
    width = 0.8 / len(groups)
    for i, (value, group) in enumerate(groups):
        stats = _mean_ci(group, ["node"], "accepted").set_index("node").reindex(nodes)
        positions = [n + (i - (len(groups) - 1) / 2) * width for n in range(len(nodes))]
        ax.bar(positions, stats["mean"], width, yerr=stats["ci95"], capsize=2, label=_legend(by, value))
    ax.set_xticks(range(len(nodes)), [str(n) for n in nodes], rotation=90 if len(nodes) > 16 else 0)
    ax.set(xlabel="sender (host id)", ylabel=label("accepted"), title=name)
    _finish(ax, by)
    return fig


def _sender_distribution(groups, by: str | None, name: str) -> Figure:
    """Senders ranked from the least to the most served (mean over seeds), a curve per group:
    its spread is the unfairness, its level the throughput, whatever the number of senders."""
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    for value, group in groups:
        ranked = _mean_ci(group, ["node"], "accepted")["mean"].sort_values().to_numpy()
        ax.plot(100 * (pd.RangeIndex(len(ranked)) + 0.5) / len(ranked), ranked, label=_legend(by, value))
    ax.set(xlabel="senders, ranked by accepted throughput (percentile)", ylabel=label("accepted"), title=f"{name}: {len(groups[0][1]['node'].unique())} senders")
    _finish(ax, by)
    return fig


def heatmap(results: SweepResults, *, x: str, y: str, value: str = "accepted", traffic_class: str | None = None) -> Figure:
    """A two-parameter landscape (as the thesis' CCTI_Timer x Marking_Rate surface): the mean
    of `value` over seeds for each (x, y), annotated."""
    if x == y:
        raise ValueError(f"heatmap: x and y are both `{x}`: give two different swept keys")
    points, name = _class_rows(results.points, traffic_class)
    _require(points, [x, y, value])
    _only_seeds_vary(results, points, [x, y])
    return grid(points, x=x, y=y, value=value, title=name)


def grid(rows: pd.DataFrame, *, x: str, y: str, value: str, title: str = "") -> Figure:
    """The heat map of any table: the mean of `value` for each (x, y), annotated."""
    table = rows.groupby([y, x], sort=True)[value].mean().unstack(x)
    values = table.to_numpy(dtype=float)
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * table.shape[1], 1.2 + 0.6 * table.shape[0]), layout="constrained")
    image = ax.imshow(values, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(table.shape[1]), [str(v) for v in table.columns])
    ax.set_yticks(range(table.shape[0]), [str(v) for v in table.index])
    for (r, c), v in pd.DataFrame(values).stack().items():
        ax.text(c, r, f"{v:.3g}", ha="center", va="center", fontsize=8, color="white" if v < values.mean() else "black")
    fig.colorbar(image, ax=ax, label=value)
    ax.set(xlabel=x, ylabel=y, title=title)
    return fig


def saturation(searches: Mapping[Any, Saturation], *, xlabel: str) -> Figure:
    """Saturation throughput against a parameter: `searches` maps each parameter value to its
    `lossless.saturation` result; error bars span the final bracket of offered loads."""
    xs = list(searches)
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    ys = [searches[v].throughput for v in xs]
    low = [max(0.0, s.throughput - s.below.load) for s in searches.values()]
    high = [(s.above.load if s.above else s.below.load) - s.throughput for s in searches.values()]
    ax.errorbar(range(len(xs)) if any(isinstance(v, str) for v in xs) else xs, ys, yerr=[low, high], marker="o", capsize=3)
    if any(isinstance(v, str) for v in xs):
        ax.set_xticks(range(len(xs)), xs)
    ax.set(xlabel=xlabel, ylabel="saturation throughput (fraction of link rate)", ylim=(0, 1.05))
    ax.grid(alpha=0.3)
    return fig


def save(fig: Figure, path: str | os.PathLike) -> Path:
    """Writes `fig` atomically as PNG or SVG (by the file's extension)."""
    path = check_file(path, "--out", (".png", ".svg"))
    fmt = path.suffix.lstrip(".").lower()
    write_atomically(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=150))
    plt.close(fig)
    return path


def _load_key(results: SweepResults) -> str:
    loads = [d for d in results.dimensions if d.endswith(".load")]
    if not loads:
        raise ValueError(f"no swept load (a `traffic.N.load` key) among {results.dimensions}: give x= (--x on the command line)")
    return loads[0]


def _by(results: SweepResults, by: str | None, exclude: set[str]) -> str | None:
    if by is not None:
        return by
    candidates = [d for d in results.dimensions if d not in exclude and d != "seed"]
    return candidates[0] if candidates else None


def _class_rows(rows: pd.DataFrame, traffic_class: str | None) -> tuple[pd.DataFrame, str]:
    if rows.empty:
        raise ValueError("no finished point to plot")
    classes = list(dict.fromkeys(rows["class"]))
    name = traffic_class or classes[0]
    if name not in classes:
        raise ValueError(f"no traffic class `{name}` (classes: {', '.join(classes)})")
    return rows[rows["class"] == name], name


def _require(rows: pd.DataFrame, columns: list[str]) -> None:
    missing = [c for c in columns if c not in rows.columns]
    if missing:
        raise ValueError(f"no column `{missing[0]}` in the results; columns: {', '.join(map(str, rows.columns))}")


def _only_seeds_vary(results: SweepResults, rows: pd.DataFrame, shown: list[str | None]) -> None:
    """Averages are over seeds only: any other swept key that varies must be on the figure."""
    for d in results.dimensions:
        if d not in shown and d != "seed" and rows[d].nunique(dropna=False) > 1:
            raise ValueError(
                f"`{d}` varies too ({rows[d].nunique()} values) but is not on the figure: "
                f"pick one value with results.select({{{d!r}: ...}}) (--where {d}=... on the command line) or show it with by={d!r} (--by {d})"
            )


def _groups(rows: pd.DataFrame, by: str | None):
    if by is None:
        return [(None, rows)]
    # The order in which values first appear: the spec's order, not alphabetical.
    return [(v, rows[rows[by] == v]) for v in dict.fromkeys(rows[by])]


def _mean_ci(rows: pd.DataFrame, keys: list[str], column: str) -> pd.DataFrame:
    g = rows.groupby(keys, sort=True)[column]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["ci95"] = (Z95 * out["std"] / out["count"].pow(0.5)).fillna(0.0)
    return out


def _legend(by: str | None, value: Any) -> str | None:
    return None if by is None else (str(value) if by == "series" else f"{by} = {value}")


def _finish(ax, by: str | None) -> None:
    ax.grid(alpha=0.3)
    if by is not None:
        ax.legend(frameon=False)
