"""Running one simulation from Python and getting its results as DataFrames."""

from __future__ import annotations

import json
import math
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence, Union

from . import _lossless, bundled
from .deprecation import renamed_kwargs

if TYPE_CHECKING:
    import pandas as pd
# pandas is imported where a DataFrame is made, not here: `lossless run` and `--version` then
# start without it (a third of a second).

ConfigLike = Union[str, os.PathLike, Mapping[str, Any]]

_LATENCIES = ("packet_latency_ns", "inflight_latency_ns", "network_latency_ns", "fct_ns")
#: The columns of `Result.flows` and `flows.csv` (an empty table keeps them).
FLOW_COLUMNS = ["class", "src", "dst", "packets", "bytes", "start_ns", "fct_ns", "ideal_ns", "slowdown"]


def plain(value: Any) -> Any:
    """`value` with numpy's (and pandas') scalars and arrays as the Python numbers and lists they
    hold, and tuples as lists, inside mappings and lists too: a config, override or swept list
    built with numpy (`np.linspace(0.1, 0.9, 9)`, `np.int64(3)`) reads as one written by hand."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if not isinstance(value, str) and callable(getattr(value, "tolist", None)):
        # An array's `tolist` gives nested lists, a numpy scalar's its Python number.
        return plain(value.tolist())
    return value


def _first(value: Any, bad: Callable[[Any], bool], here: str = "") -> tuple[str, Any] | None:
    """The first value in a plain config that is `bad`, with its key as error messages write
    keys (`traffic[0].load`)."""
    items = value.items() if isinstance(value, Mapping) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        key = f"{here}[{k}]" if isinstance(k, int) else f"{here}.{k}" if here else k
        if bad(v):
            return key, v
        if (inner := _first(v, bad, key)) is not None:
            return inner
    return None


def _refuse_none(config: Mapping[str, Any], here: str = "") -> None:
    if (found := _first(config, lambda v: v is None, here)) is not None:
        raise _lossless.ConfigError(f"`{found[0]}`: None has no TOML form; leave the key out to take its default")


def _config_args(config: ConfigLike) -> dict[str, str]:
    """A path to a TOML file, TOML text, or a dict shaped like the TOML file."""
    if isinstance(config, Mapping):
        config = plain(config)
        _refuse_none(config)
        # The dict crosses to the engine as JSON, which has no NaN or infinity.
        if (found := _first(config, lambda v: isinstance(v, float) and not math.isfinite(v))) is not None:
            raise _lossless.ConfigError(f"`{found[0]}`: must be a finite number, got {found[1]}")
        return {"json_text": json.dumps(config)}
    if isinstance(config, str) and config.startswith(bundled.PREFIX):
        config = bundled.resolve(config)
    if isinstance(config, os.PathLike) or (isinstance(config, str) and "\n" not in config and config.endswith(".toml")):
        path = Path(config)
        if not path.is_file():
            raise FileNotFoundError(f"config file {path} does not exist")
        return {"toml_text": path.read_text()}
    if isinstance(config, str):
        return {"toml_text": config}
    raise TypeError(f"config must be a path, TOML text or a dict, not {type(config).__name__}")


#: Threads of each run that does not name its own (`threads_per_run`); None: the config's.
_threads_per_run: int | None = None


@contextmanager
def threads_per_run(threads: int | None) -> Iterator[None]:
    """Within it, every `run` that is not given `threads=` uses `threads` threads: for code that
    runs simulations several calls deep (`lossless reproduce --threads`). Results are identical
    for every count."""
    global _threads_per_run
    if threads is not None:
        _check_threads(threads)  # before anything runs
    before, _threads_per_run = _threads_per_run, threads
    try:
        yield
    finally:
        _threads_per_run = before


def _overrides(seed: int | None, overrides: Sequence[str] | Mapping[str, Any] | None, threads: int | None = None) -> list[str]:
    out: list[str] = []
    if isinstance(overrides, Mapping):
        for k, v in overrides.items():
            if not isinstance(k, str):
                raise TypeError(f"overrides: keys are dotted config keys as strings, e.g. 'traffic.0.load', not {k!r}")
            if v is None:
                out.append(f"~{k}")  # removes the key (`--unset`)
                continue
            v = plain(v)
            if isinstance(v, Mapping):
                _refuse_none(v, k)
            out.append(f"{k}={_toml_value(v)}")
    elif overrides is not None:
        if isinstance(overrides, (str, bytes)) or not isinstance(overrides, Iterable):
            raise TypeError(f"overrides must be a list of 'key=value' strings or a dict {{key: value}}, not {type(overrides).__name__}")
        for o in overrides:
            if not isinstance(o, str):
                raise TypeError(f"overrides: each element is a 'key=value' string (or '~key' to remove one), not {o!r}")
            out.append(o)
    if seed is not None:
        seed = plain(seed)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise _lossless.ConfigError(f"`seed`: must be a non-negative integer, got {seed!r}")
        out.append(f"simulation.seed={seed}")
    if threads is not None:
        out.append(f"simulation.threads={_check_threads(threads)}")
    return out


def _check_threads(threads: Any) -> int:
    threads = plain(threads)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise _lossless.ConfigError(f"`threads`: must be a non-negative integer (0: one per core), got {threads!r}")
    return threads


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return repr(v)


def class_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The per-class numbers of a summary as flat rows (columns as in `Result.classes`)."""
    rows = []
    for name, c in summary["classes"].items():
        # Summaries stored by sweeps before `marked` existed (2026-11-23) read as not measured.
        marked = c.get("marked", math.nan)
        row = {"class": name, "index": c["index"], "pattern": c["pattern"], "sources": c["sources"], "offered": c["offered"], "accepted": c["accepted"], "marked": marked}
        # Summaries stored before FCTs existed (2026-11-25) have no fct_ns, slowdown or
        # unfinished_messages: their columns are missing (NaN beside newer points).
        for lat in _LATENCIES:
            prefix = lat.removesuffix("_ns")
            for stat, v in c.get(lat, {}).items():
                row[f"{prefix}_{stat}" + ("" if stat == "count" else "_ns")] = v
        row.update({f"slowdown_{stat}": v for stat, v in c.get("slowdown", {}).items() if stat != "count"})
        if "unfinished_messages" in c:
            row["unfinished_messages"] = c["unfinished_messages"]
        row.update({f"fairness_{stat}": v for stat, v in c["fairness"].items()})
        rows.append(row)
    return rows


class DeadlockError(RuntimeError):
    """The run's watchdog stopped a deadlocked network (docs/metrics.md, `deadlock`).

    `result` holds the results up to the moment it stopped; its `summary["deadlock"]` names the
    channels that wait on each other."""

    def __init__(self, result: "Result"):
        super().__init__(deadlock_message(result.summary["deadlock"]))
        self.result = result


def deadlock_message(d: Mapping[str, Any]) -> str:
    where = f"cycle {' => '.join(d['cycle'])}" if d["cycle"] else f"blocked channels {', '.join(d['blocked'])} (no cycle among them)"
    return f"deadlock: {d['in_flight']} packets in the network, none moved since {d['last_move_ns']:.0f} ns (stopped at {d['at_ns']:.0f} ns); {where}"


@dataclass
class Result:
    """The results of one run (definitions in docs/metrics.md).

    ``summary`` is exactly ``summary.json``; the DataFrames are views of it and of the
    time series and link files the CLI writes.
    """

    summary: dict[str, Any]
    timeseries: pd.DataFrame = field(repr=False)
    links: pd.DataFrame = field(repr=False)
    #: One row per completed message, or None unless the run set ``simulation.record_flows``.
    recorded_flows: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def flows(self) -> pd.DataFrame:
        """One row per message created in the window and completed: class, src, dst, packets,
        bytes, start_ns, fct_ns, ideal_ns (alone in the empty network) and slowdown (as
        ``flows.csv``). Needs ``simulation.record_flows = true``."""
        if self.recorded_flows is None:
            raise ValueError("this run kept no per-message rows: run it with `simulation.record_flows = true`")
        return self.recorded_flows

    @property
    def classes(self) -> pd.DataFrame:
        """One row per traffic class: offered, accepted, marked, latency (ns) and fairness statistics."""
        import pandas as pd

        return pd.DataFrame(class_rows(self.summary)).set_index("class")

    @property
    def sources(self) -> pd.DataFrame:
        """Accepted throughput per source host (fraction of its injection link)."""
        import pandas as pd

        s = self.summary["sources"]
        return pd.DataFrame({"node": [int(k) for k in s], "accepted": list(s.values())}).set_index("node")

    def class_sources(self, name: str) -> pd.Series:
        """Accepted throughput of each source of class `name`, indexed by host id."""
        import pandas as pd

        classes = self.summary["classes"]
        if name not in classes:
            raise KeyError(f"no traffic class `{name}` (classes: {', '.join(classes)})")
        ids = classes[name]["source_ids"]
        return pd.Series({h: self.summary["sources"][str(h)] for h in ids}, name="accepted")

    @property
    def counters(self) -> dict[str, int]:
        return dict(self.summary["counters"])

    @property
    def cc(self) -> dict[str, int]:
        """The mechanism's own counters (marks, notifications, reservations, drops, ...)."""
        return dict(self.summary["cc"])


@renamed_kwargs(set="overrides")
def run(config: ConfigLike, *, seed: int | None = None, overrides: Sequence[str] | Mapping[str, Any] | None = None, threads: int | None = None) -> Result:
    """Runs one simulation.

    config: path to a TOML scenario, TOML text, or a dict of the same shape.
    seed: overrides ``simulation.seed``.
    threads: overrides ``simulation.threads``, the threads this run uses (0: one per core;
    default: the config's, or ``threads_per_run``'s); results are identical for every count.
    overrides: as ``["traffic.0.load=0.5"]`` or ``{"traffic.0.load": 0.5}`` (``set=`` before 0.2);
    ``"~key"`` in the list, or ``{"key": None}``, removes a key (``--unset``).
    Raises ``lossless.ConfigError`` (a ``ValueError``) naming the key on bad input,
    ``lossless.DeadlockError`` if the network deadlocks (its ``result`` has the results up to
    then), and ``KeyboardInterrupt`` on Ctrl-C, within about a tenth of a second. Warns
    (``UserWarning``) where the command line warns: a class that starts after the run's end,
    more threads than cores.
    """
    import pandas as pd

    threads = _threads_per_run if threads is None else threads
    summary, series, links, flows = _lossless.run(**_config_args(config), overrides=_overrides(seed, overrides, threads))
    result = Result(
        summary=json.loads(summary),
        timeseries=pd.DataFrame(json.loads(series)),
        links=pd.DataFrame(json.loads(links)),
        recorded_flows=None if flows is None else pd.DataFrame(json.loads(flows), columns=FLOW_COLUMNS),
    )
    if "deadlock" in result.summary:
        raise DeadlockError(result)
    return result


@renamed_kwargs(set="overrides")
def validate(config: ConfigLike, *, seed: int | None = None, overrides: Sequence[str] | Mapping[str, Any] | None = None) -> str:
    """Checks a scenario without running it; returns the resolved config as TOML text."""
    return _lossless.validate(**_config_args(config), overrides=_overrides(seed, overrides))
