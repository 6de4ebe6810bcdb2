"""Saturation throughput: by bisection on offered load, or as the accepted rate under overload.

A load is *saturated* when the class accepts less than it is offered by more than `gap`
(fraction of link rate), or when its mean packet latency exceeds `latency_factor` times the
latency at the lowest load probed (an unstable queue grows without bound; a stable one stays
within a small multiple of zero-load latency). The search keeps the highest unsaturated load
`below` and the lowest saturated load `above`, and halves the bracket until it is narrower than
`resolution`. The saturation throughput is the accepted throughput at `below`.

Windows matter: messages generated near the end of the window are not delivered in it, so
accepted trails offered by about load x latency / window even below saturation. Use windows
long against the latency near saturation (e.g. 200 us for microsecond latencies), or the search
is conservative.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .deprecation import renamed_kwargs
from .run import ConfigLike, Result, _overrides, run


@dataclass(frozen=True)
class Point:
    load: float
    accepted: float
    latency_ns: float
    saturated: bool


@dataclass
class Saturation:
    throughput: float
    below: Point
    above: Point | None
    points: list[Point] = field(default_factory=list)


@renamed_kwargs(set="overrides")
def saturation(
    config: ConfigLike,
    *,
    overrides: Sequence[str] | Mapping[str, Any] | None = None,
    traffic: int = 0,
    gap: float = 0.02,
    latency_factor: float = 10.0,
    low: float = 0.05,
    high: float = 1.0,
    resolution: float = 0.01,
) -> Saturation:
    """Finds the saturation throughput of traffic class number `traffic` of `config`.

    Its `load` is varied; `overrides` sets anything else. Raises ValueError if even `low` is
    saturated.
    """
    if not (0 < low < high <= 1) or resolution <= 0 or gap <= 0 or latency_factor <= 1:
        raise ValueError("need 0 < low < high <= 1, resolution > 0, gap > 0 and latency_factor > 1")
    base = _overrides(None, overrides)
    points: list[Point] = []
    reference: list[float] = []

    def probe(load: float) -> Point:
        c = _class_at_load(config, base, traffic, load)
        latency = c["packet_latency_ns"]["mean"]
        if not reference:
            reference.append(latency)
        saturated = c["accepted"] < c["offered"] - gap or not latency <= latency_factor * reference[0]
        p = Point(load, c["accepted"], latency, saturated)
        points.append(p)
        return p

    below = probe(low)
    if below.saturated:
        raise ValueError(f"already saturated at the lowest load {low}")
    above = probe(high)
    if not above.saturated:
        return Saturation(above.accepted, above, None, points)
    while above.load - below.load > resolution:
        mid = round((below.load + above.load) / 2, 6)
        p = probe(mid)
        if p.saturated:
            above = p
        else:
            below = p
    return Saturation(below.accepted, below, above, points)


@renamed_kwargs(set="overrides")
def overload_throughput(config: ConfigLike, *, overrides: Sequence[str] | Mapping[str, Any] | None = None, traffic: int = 0) -> float:
    """The accepted throughput of traffic class number `traffic` with its load at 1.0: every
    source offers its full link rate and the network carries what it can, the saturation
    throughput BookSim reports under overload. Unlike `saturation` it has no latency criterion,
    so a mechanism that holds packets at their sources (SRP's wait for its reservation) is not
    counted as saturated for that. The warm-up (`overrides`) must outlast the climb to steady state.
    """
    return _class_at_load(config, _overrides(None, overrides), traffic, 1.0)["accepted"]


def _class_at_load(config: ConfigLike, overrides: list[str], traffic: int, load: float) -> dict[str, Any]:
    """The summary of traffic class number `traffic` from a run with its load set to `load`."""
    r: Result = run(config, overrides=[*overrides, f"traffic.{traffic}.load={load}"])
    return next(c for c in r.summary["classes"].values() if c["index"] == traffic)
