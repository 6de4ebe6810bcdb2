"""A sweep's results as pandas DataFrames, assembled from its store.

Every table starts with the point's identity: `point` (its index in the spec), `key` (the
store key), `series` when the spec names series, one column per swept key (dotted, e.g.
`traffic.0.load`; tables and arrays as TOML text) and `seed`. Run metadata (wall time, host)
is kept apart in `meta`, so that the result tables of identical sweeps are identical whatever
executor ran them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Mapping

import pandas as pd

from ..run import _toml_value, class_rows
from .store import MANIFEST, Store

_SCALARS = (bool, int, float, str, type(None))


@dataclass
class SweepResults:
    """What `lossless.load(DIR)` returns (definitions of the numbers: docs/metrics.md)."""

    #: One row per finished point and traffic class: offered, accepted, latency, fairness,
    #: counters (`counters.*`) and the mechanism's counters (`cc.*`).
    points: pd.DataFrame
    #: Time series in long form: one row per finished point, class and bin.
    timeseries: pd.DataFrame
    #: Accepted throughput of each source of each class, per finished point.
    senders: pd.DataFrame
    #: Utilization of each channel, per finished point (`name` as in links.csv).
    links: pd.DataFrame
    #: Per finished point: simulator version and commit, wall time, host, finish time.
    meta: pd.DataFrame
    #: Per failed point: its message.
    failures: pd.DataFrame
    #: One row per completed message of the points run with `simulation.record_flows`
    #: (columns as `Result.flows`: FCT, zero-load time, slowdown).
    flows: pd.DataFrame
    #: The swept dimensions, outermost first (`series` and `seed` included when swept).
    dimensions: list[str] = field(default_factory=list)
    #: Points of the spec with neither a result nor a failure (an interrupted sweep).
    missing: list[int] = field(default_factory=list)

    def select(self, where: Mapping[str, Any]) -> SweepResults:
        """The points whose identity columns have the given values, e.g.
        ``results.select({"series": "srp", "traffic.0.load": 0.8})``."""
        for column, value in where.items():
            if column not in self.dimensions:
                raise ValueError(f"`{column}` is not swept; swept: {', '.join(self.dimensions)}")
            if not self.points.empty and not (self.points[column] == value).any():
                values = ", ".join(map(repr, sorted(self.points[column].unique().tolist(), key=str)))
                raise ValueError(f"no finished point has {column} = {value!r}; their values: {values}")
        tables = {}
        for name in ("points", "timeseries", "senders", "links", "meta", "failures", "flows"):
            df = getattr(self, name)
            for column, value in where.items():
                if not df.empty:
                    df = df[df[column] == value]
            tables[name] = df
        if not self.points.empty and tables["points"].empty:
            raise ValueError(f"no finished point has {', '.join(f'{c} = {v!r}' for c, v in where.items())} together")
        return SweepResults(**tables, dimensions=self.dimensions, missing=self.missing)


def identity(entry: dict[str, Any], keys: list[str], has_series: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"point": entry["index"], "key": entry["key"]}
    if has_series:
        row["series"] = entry["series"]
    for k in keys:
        v = entry["params"].get(k)
        row[k] = v if isinstance(v, _SCALARS) else _toml_value(v)
    row["seed"] = entry["seed"]
    return row


def load(directory: str | os.PathLike) -> SweepResults:
    """The results of the sweep in `directory` (finished points; failures; what is missing), or
    of the single run `lossless run --out DIR` wrote there (one point, nothing swept)."""
    store = Store(directory)
    if not (store.root / MANIFEST).is_file():
        if (store.root / "summary.json").is_file():
            return _load_run(store.root)
        what = store.absent() or f"holds neither a sweep's results ({MANIFEST}) nor a run's (summary.json)"
        raise FileNotFoundError(f"{store.root} {what}: give the --out directory of `lossless sweep` or `lossless run`")
    manifest = store.read_manifest()
    entries = manifest["points"]
    keys = list(dict.fromkeys(k for e in entries for k in e["params"]))
    has_series = "series" in manifest["dimensions"]
    points, series, senders, links, flows, meta, failures, missing = [], [], [], [], [], [], [], []
    for e in entries:
        ident = identity(e, keys, has_series)
        if store.finished(e["key"]):
            rec = store.read_point(e["key"])
            ident["seed"] = rec["summary"]["seed"]
            _add_point(ident, rec["summary"], rec["timeseries"], rec["links"], points, series, senders, links)
            # Points stored before flows were kept have none.
            flows.extend({**ident, **row} for row in rec.get("flows", []))
            meta.append({**ident, **rec["meta"]})
            continue
        failure = store.read_failure(e["key"])
        if failure is not None:
            failures.append({**ident, "kind": failure["kind"], "message": failure["error"]})
        else:
            missing.append(e["index"])
    return _results(points, series, senders, links, flows, meta, failures, list(manifest["dimensions"]), missing)


def _results(points, series, senders, links, flows, meta, failures, dimensions, missing) -> SweepResults:
    tables = dict(points=points, timeseries=series, senders=senders, links=links, flows=flows, meta=meta, failures=failures)
    return SweepResults(**{k: pd.DataFrame(v) for k, v in tables.items()}, dimensions=dimensions, missing=missing)


def _add_point(ident: dict, s: dict, timeseries: list[dict], link_rows: list[dict], points: list, series: list, senders: list, links: list) -> None:
    """Appends one finished point's rows (identity first) to the tables."""
    run_wide = {"mechanism": s["mechanism"], "events": s["events"], "sim_time_ns": s["sim_time_ns"], "max_link_utilization": s["max_link_utilization"]}
    run_wide.update({f"counters.{k}": v for k, v in s["counters"].items()})
    run_wide.update({f"cc.{k}": v for k, v in s["cc"].items()})
    for row in class_rows(s):
        points.append({**ident, **row, **run_wide})
    series.extend({**ident, **_renamed(row)} for row in timeseries)
    links.extend({**ident, **row} for row in link_rows)
    for name, c in s["classes"].items():
        for h in c["source_ids"]:
            senders.append({**ident, "class": name, "node": h, "accepted": s["sources"][str(h)]})


def _load_run(directory) -> SweepResults:
    """A run directory as the results of a one-point sweep."""
    s = json.loads((directory / "summary.json").read_text())
    ident = {"point": 0, "key": "run", "seed": s["seed"]}
    timeseries = pd.read_csv(directory / "timeseries.csv").to_dict("records")
    link_rows = pd.read_csv(directory / "links.csv", keep_default_na=False).to_dict("records")
    points, series, senders, links = [], [], [], []
    _add_point(ident, s, timeseries, link_rows, points, series, senders, links)
    flows_csv = directory / "flows.csv"
    flows = [{**ident, **row} for row in pd.read_csv(flows_csv, keep_default_na=False).to_dict("records")] if flows_csv.is_file() else []
    meta = [{**ident, "version": s.get("version"), "commit": s.get("commit"), "wall_s": s["wall_s"]}]
    return _results(points, series, senders, links, flows, meta, [], [], [])


#: Time-series columns as points stored before 2026-11-24 named them (one name per metric now).
_OLD_NAMES = {"mean_packet_latency_ns": "packet_latency_mean_ns", "mean_inflight_latency_ns": "inflight_latency_mean_ns"}


def _renamed(row: dict) -> dict:
    return {_OLD_NAMES.get(k, k): v for k, v in row.items()}
