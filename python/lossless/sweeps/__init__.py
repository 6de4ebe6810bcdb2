"""Sweeps: many points of one scenario, run in parallel, stored, resumable (docs/sweeps.md).

    >>> lossless.sweep("examples/fattree256_uniform.toml", "runs/loads",
    ...                product={"traffic.0.load": [0.2, 0.4, 0.6, 0.8]},
    ...                series={"none": {"cc.mechanism": "none"}, "srp": {"cc.mechanism": "srp"}},
    ...                seeds=[1, 2, 3])
    >>> results = lossless.load("runs/loads")
    >>> results.points.groupby(["series", "traffic.0.load"]).accepted.mean()
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from .. import _lossless
from ..deprecation import renamed_kwargs
from ..run import ConfigLike, _config_args, _overrides, plain
from .executors import Dask, Executor, Local
from .results import SweepResults, load
from .spec import Point, Spec
from .store import Store, key_of, write_atomically
from .worker import run_point

__all__ = ["Dask", "Local", "Spec", "SweepResults", "load", "sweep"]

#: The consolidated tables written at the end of a sweep (`SweepResults` attribute -> file).
TABLES = {
    "points": "points.parquet",
    "timeseries": "timeseries.parquet",
    "senders": "senders.parquet",
    "links": "links.parquet",
    "meta": "meta.parquet",
    "failures": "failures.parquet",
    "flows": "flows.parquet",
}


@renamed_kwargs(zip="zipped", set="overrides")
def sweep(
    spec: ConfigLike | Spec,
    out: str | os.PathLike,
    *,
    product: Mapping[str, list] | None = None,
    zipped: Mapping[str, list] | None = None,
    series: Mapping[str, Mapping[str, Any]] | None = None,
    seeds: list[int] | None = None,
    overrides: Mapping[str, Any] | None = None,
    executor: Executor | None = None,
    jobs: int | None = None,
    client: Any = None,
    progress: bool = True,
) -> SweepResults:
    """Runs every point of a sweep not already finished in `out`; returns all results.

    spec: a sweep spec file (a scenario with a [sweep] table), a `Spec`, or a scenario (path,
        TOML text or dict) swept by the `product`, `zipped`, `series` and `seeds` arguments
        (`overrides` sets keys in every point; `zip=` and `set=` before 0.2).
    executor: where points run: `Local(jobs)` (default: one process per core) or `Dask(client)`;
        `client` (a dask.distributed Client or a scheduler address) is short for `Dask(client)`.
    A point that fails (a bad combination of values, a crash) is recorded in
    `results.failures` and the others go on. Interrupting (Ctrl-C) keeps every finished point;
    calling again with the same arguments finishes the rest.
    """
    spec = _spec(spec, product, zipped, series, seeds, overrides)
    given = [name for name, v in (("executor", executor), ("jobs", jobs), ("client", client)) if v is not None]
    if len(given) > 1:
        raise ValueError(f"give one of executor=, jobs= and client= (they say where points run), not {' and '.join(f'{n}=' for n in given)}")
    if executor is None:
        executor = Dask(client) if client is not None else Local(jobs)
    elif not (hasattr(executor, "name") and callable(getattr(executor, "map_unordered", None))):
        raise TypeError(f"executor: give lossless.sweeps.Local(jobs), Dask(client) or another `Executor` (a `name` and `map_unordered`), not {executor!r}")
    store = Store(out)
    store.create()
    points = spec.points()
    base = _config_args(spec.base)["json_text"]
    entries, todo = [], {}
    for p in points:
        entry = {"index": p.index, "series": p.series, "params": p.params, "seed": p.seed}
        try:
            resolved = _lossless.validate(json_text=base, overrides=_overrides(None, p.overrides(spec.set)))
        except (_lossless.ConfigError, _lossless.InternalError) as e:
            # A point that cannot run is recorded, and the others go on.
            kind = "config" if isinstance(e, _lossless.ConfigError) else "crash"
            entry["key"] = "invalid-" + hashlib.sha256(json.dumps([spec.base, p.overrides(spec.set)], sort_keys=True).encode()).hexdigest()[:24]
            store.write_failure(entry["key"], {"error": str(e), "kind": kind})
        else:
            entry["key"] = key_of(resolved)
            if not store.finished(entry["key"]):
                todo[entry["key"]] = resolved
        entries.append(entry)
    try:
        resolved_base = _lossless.validate(json_text=base, overrides=_overrides(None, spec.set))
    except _lossless.ConfigError as e:  # valid only with the points' values
        resolved_base = f"# not valid alone ({e}); as given:\n{json.dumps(spec.base, indent=1)}"
    store.write_manifest({"version": _lossless.__version__, "dimensions": spec.dimensions, "set": spec.set, "resolved_base": resolved_base, "points": entries})
    finished = sum(store.finished(e["key"]) for e in entries)
    if progress and finished:
        print(f"{finished} of {len(entries)} points already finished in {out}", file=sys.stderr)
    _execute(executor, store, todo, progress)
    results = load(out)
    write_tables(results, Path(out))
    return results


def _spec(spec, product, zipped, series, seeds, fixed) -> Spec:
    # numpy arrays as plain lists before they are tested for emptiness.
    product, zipped, series, seeds, fixed = (plain(x) for x in (product, zipped, series, seeds, fixed))
    for name, value, shape in (
        ("product", product, "a dict {key: [values]}"),
        ("zipped", zipped, "a dict {key: [values]}"),
        ("series", series, "a dict {name: {key: value}}"),
        ("overrides", fixed, "a dict {key: value}"),
    ):
        if value is not None and not isinstance(value, Mapping):
            raise TypeError(f"{name}: give {shape}, not {type(value).__name__} {value!r}")
    for name, o in (series or {}).items():
        if not isinstance(o, Mapping):
            raise TypeError(f"series: {name!r} must map to a dict of overrides {{key: value}}, not {type(o).__name__} {o!r}")
    if seeds is not None and not isinstance(seeds, list):
        raise TypeError(f"seeds: give a list of seeds, not {type(seeds).__name__} {seeds!r}")
    if isinstance(spec, Spec):
        if product or zipped or series or seeds or fixed:
            raise ValueError("give the dimensions and `overrides` in the Spec or as arguments, not both")
        return spec
    if not (product or zipped or series or seeds):
        if isinstance(spec, Mapping):
            s = Spec.from_dict(spec)
        elif isinstance(spec, (str, os.PathLike)) and Path(spec).suffix == ".toml":
            s = Spec.from_file(spec)
        else:
            raise ValueError("nothing to sweep: give a spec file with a [sweep] table, or product/zipped/series/seeds")
        s.set.update(fixed or {})
        s.refuse_swept_set()
        return s
    args = _config_args(spec)
    base = json.loads(args["json_text"]) if "json_text" in args else tomllib.loads(args["toml_text"])
    if "sweep" in base:
        raise ValueError("the scenario has its own [sweep] table: pass it alone, without product/zipped/series/seeds")
    return Spec(base=base, product=dict(product or {}), zip=dict(zipped or {}), series={k: dict(v) for k, v in (series or {}).items()}, seeds=seeds, set=dict(fixed or {}))


def _execute(executor: Executor, store: Store, todo: dict[str, str], progress: bool) -> None:
    from tqdm import tqdm

    # disable=None: no bar when stderr is not a terminal (logs of batch jobs stay readable).
    failed = 0
    with tqdm(total=len(todo), desc=f"sweep ({executor.name})", unit="point", disable=(not progress or not todo) or None, file=sys.stderr) as bar:
        for resolved, outcome in executor.map_unordered(run_point, todo.values()):
            key = key_of(resolved)
            if "error" in outcome:
                failed += 1
                store.write_failure(key, outcome)
                bar.set_postfix(failed=failed)
            else:
                store.write_point(key, {
                    "key": key,
                    "config": resolved,
                    "summary": json.loads(outcome["summary"]),
                    "timeseries": json.loads(outcome["timeseries"]),
                    "links": json.loads(outcome["links"]),
                    "flows": json.loads(outcome["flows"]) if outcome["flows"] else [],
                    "meta": {"version": _lossless.__version__, "commit": _lossless.__commit__, "executor": executor.name, **outcome["meta"]},
                })
            bar.update()


def write_tables(results: SweepResults, out: Path) -> None:
    """The consolidated Parquet tables, each written atomically."""
    for attr, name in TABLES.items():
        frame = _parquet_safe(getattr(results, attr))
        write_atomically(out / name, lambda tmp: frame.to_parquet(tmp, index=False))


def _parquet_safe(df: pd.DataFrame) -> pd.DataFrame:
    """Columns mixing types (a swept key given as 1 in one point and "a" in another) as text."""
    df = df.copy()
    for c in df.columns:
        if df[c].dtype == object and len({type(v) for v in df[c].dropna()}) > 1:
            df[c] = df[c].map(lambda v: None if v is None else str(v))
    return df
