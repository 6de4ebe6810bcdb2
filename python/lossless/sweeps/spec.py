"""Sweep specifications: which points a sweep runs.

A spec is a scenario plus a ``[sweep]`` table (docs/sweeps.md)::

    [sweep]
    base = "../fattree256_uniform.toml"     # optional: the scenario the points vary
    seeds = [1, 2, 3]                        # a dimension: simulation.seed

    [sweep.product]                          # every combination of these lists
    "traffic.0.load" = [0.2, 0.4, 0.6, 0.8]

    [sweep.zip]                              # lists walked together, crossed with the product
    "traffic.0.message.packets" = [1, 16]
    "simulation.measure_ns" = [100_000, 400_000]

    [sweep.series.srp]                       # named series: overrides applied together
    "cc.mechanism" = "srp"

Points are series x product x zip x seeds, in that order (the last dimension varies fastest),
like nested loops written in the file's order.
"""

from __future__ import annotations

import itertools
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .._lossless import ConfigError
from .. import bundled
from ..run import plain

_SWEEP_KEYS = {"base", "seeds", "product", "zip", "series"}


def _dotted(key: str) -> str:
    """A key as overrides may write it (`traffic[0].load`) in the dotted form (`traffic.0.load`)."""
    return re.sub(r"\[(\d+)\]", r".\1", key)


def _beyond_toml(value: Any) -> int | None:
    """The first integer in `value` (a value, list or table) outside TOML's 64-bit range."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if not -(2**63) <= value < 2**63 else None
    items = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else []
    return next((b for v in items if (b := _beyond_toml(v)) is not None), None)


def _repeat(values: list[Any]) -> int | None:
    """The position of the first value equal to an earlier one (values may be tables or lists,
    which do not hash), if any."""
    return next((i for i, v in enumerate(values) if v in values[:i]), None)


@dataclass(frozen=True)
class Point:
    """One simulation of a sweep: the base scenario with `overrides` applied."""

    index: int
    series: str | None
    params: dict[str, Any]
    seed: int | None

    def overrides(self, fixed: Mapping[str, Any]) -> dict[str, Any]:
        """`fixed` (the spec's `set`), then the point's own values."""
        o = {**fixed, **self.params}
        if self.seed is not None:
            o["simulation.seed"] = self.seed
        return o


@dataclass
class Spec:
    base: dict[str, Any]
    product: dict[str, list[Any]] = field(default_factory=dict)
    zip: dict[str, list[Any]] = field(default_factory=dict)
    series: dict[str, dict[str, Any]] = field(default_factory=dict)
    seeds: list[int] | None = None
    #: Overrides applied to every point (not a dimension), e.g. a shorter window.
    set: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Lists made with numpy (`np.linspace`, `np.arange`) are swept as the lists they hold.
        self.base, self.product, self.zip, self.series, self.set = (plain(self.base), plain(self.product), plain(self.zip), plain(self.series), plain(self.set))
        self.seeds = plain(self.seeds)
        for table in ("product", "zip", "set", *(f"series.{n}" for n, o in self.series.items() if isinstance(o, Mapping))):
            where = self.series[table.split(".", 1)[1]] if table.startswith("series.") else getattr(self, table)
            for key, values in where.items():
                if not isinstance(key, str):
                    raise ConfigError(f"`sweep.{table}`: its keys are dotted config keys as strings, e.g. 'traffic.0.load', not {key!r}")
                if (big := _beyond_toml(values)) is not None:
                    raise ConfigError(f"`sweep.{table}.{key}`: {big} is beyond TOML's 64-bit integers")
        for table in ("product", "zip"):
            for key, values in getattr(self, table).items():
                if not isinstance(values, list) or not values:
                    raise ConfigError(f"`sweep.{table}.{key}`: give a non-empty list of values, got {values!r}")
        # A point given twice would run twice and weigh twice in every mean over the sweep.
        twice = "give each once (a repeated point would count twice in every mean)"
        for key, values in self.product.items():
            if (i := _repeat(values)) is not None:
                raise ConfigError(f"`sweep.product.{key}`: {values[i]!r} appears twice; {twice}")
        lengths = {len(v) for v in self.zip.values()}
        if len(lengths) > 1:
            raise ConfigError(f"`sweep.zip`: the lists must have one length, got {', '.join(f'{k} ({len(v)})' for k, v in self.zip.items())}")
        if (i := _repeat(list(zip(*self.zip.values())))) is not None:
            raise ConfigError(f"`sweep.zip`: its values at position {i} ({', '.join(f'{k} = {v[i]!r}' for k, v in self.zip.items())}) repeat an earlier position's; {twice}")
        for name, overrides in self.series.items():
            if not isinstance(overrides, Mapping) or not overrides:
                raise ConfigError(f"`sweep.series.{name}`: give a table of `key = value` overrides")
        if self.seeds is not None and (
            not isinstance(self.seeds, list) or not self.seeds or any(not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < 2**64 for s in self.seeds)
        ):
            raise ConfigError(f"`sweep.seeds`: give a non-empty list of integers from 0 to 2**64 - 1, got {self.seeds!r}")
        if self.seeds is not None and (i := _repeat(self.seeds)) is not None:
            raise ConfigError(f"`sweep.seeds`: {self.seeds[i]} appears twice; {twice}")
        swept = [*self.product, *self.zip, *(k for o in self.series.values() for k in o)]
        if self.seeds is not None and "simulation.seed" in swept:
            raise ConfigError("`sweep.seeds`: simulation.seed is also swept elsewhere; keep one")
        clash = set(self.product) & set(self.zip)
        if clash:
            raise ConfigError(f"`sweep.zip.{sorted(clash)[0]}`: also in sweep.product; keep one")
        self.refuse_swept_set()

    def refuse_swept_set(self) -> None:
        """Refuses a key set in every point (`set`: the CLI's --set, Python's overrides=) that a
        dimension gives every point: each point's value would win, and the setting be silently
        lost. A key only some series set takes the setting in the others."""
        swept = {**{k: "sweep.product" for k in self.product}, **{k: "sweep.zip" for k in self.zip}}
        if self.series:
            swept.update({k: "every series of sweep.series" for k in set.intersection(*(set(o) for o in self.series.values()))})
        if self.seeds is not None:
            swept["simulation.seed"] = "sweep.seeds"
        swept = {_dotted(k): where for k, where in swept.items()}
        for key in self.set:
            if _dotted(key) in swept:
                raise ConfigError(f"`{key}`: set for every point (--set, overrides=) but also swept by {swept[_dotted(key)]}, whose values would win: remove one")

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> Spec:
        path = bundled.resolve(path) if str(path).startswith(bundled.PREFIX) else Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"sweep spec {path} does not exist")
        try:
            doc = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: not valid TOML: {e}") from None
        return cls.from_dict(doc, relative_to=path.parent)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], relative_to: Path = Path(".")) -> Spec:
        """A scenario dict with a ``sweep`` table, as the TOML file parses."""
        doc = dict(doc)
        table = doc.pop("sweep", None)
        if not isinstance(table, Mapping):
            raise ConfigError("`sweep`: the spec has no [sweep] table; add one with the lists to sweep (docs/sweeps.md)")
        unknown = set(table) - _SWEEP_KEYS
        if unknown:
            raise ConfigError(f"`sweep.{sorted(unknown)[0]}`: unknown key; expected one of {', '.join(sorted(_SWEEP_KEYS))}")
        base = doc
        if "base" in table:
            if not isinstance(table["base"], str):
                raise ConfigError("`sweep.base`: give the path of a scenario file (relative to the spec)")
            base_name = table["base"]
            path = bundled.resolve(base_name) if base_name.startswith(bundled.PREFIX) else relative_to / base_name
            if not path.is_file():
                raise ConfigError(f"`sweep.base`: {path} does not exist")
            base = merge(tomllib.loads(path.read_text()), doc)
        return cls(
            base=base,
            product=dict(table.get("product", {})),
            zip=dict(table.get("zip", {})),
            series={k: dict(v) if isinstance(v, Mapping) else v for k, v in table.get("series", {}).items()},
            seeds=table.get("seeds"),
        )

    @property
    def dimensions(self) -> list[str]:
        """The swept keys, in the order of the points' nesting (`series` and `seed` included)."""
        return [*(["series"] if self.series else []), *self.product, *self.zip, *(["seed"] if self.seeds else [])]

    def points(self) -> list[Point]:
        series: list[tuple[str | None, dict[str, Any]]] = list(self.series.items()) or [(None, {})]
        product = [dict(zip(self.product, combo)) for combo in itertools.product(*self.product.values())]
        zipped = [dict(zip(self.zip, values)) for values in zip(*self.zip.values())] or [{}]
        seeds: list[int | None] = list(self.seeds) if self.seeds else [None]
        out = []
        for (name, fixed), p, z, seed in itertools.product(series, product, zipped, seeds):
            out.append(Point(len(out), name, {**fixed, **p, **z}, seed))
        return out


def merge(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with the tables of `changes` merged in, key by key (arrays are replaced)."""
    out = dict(base)
    for k, v in changes.items():
        out[k] = merge(out[k], v) if isinstance(v, Mapping) and isinstance(out.get(k), Mapping) else v
    return out
