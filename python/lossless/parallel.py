"""Running many simulations at once on this machine.

The simulation core releases the GIL, so threads run simulations in parallel without the cost
of processes; results are identical to sequential runs (each run is deterministic).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

from .run import ConfigLike, Result, run


T = TypeVar("T")
R = TypeVar("R")


def map_parallel(f: Callable[[T], R], items: Iterable[T], jobs: int | None = None) -> list[R]:
    """`f` over `items` on `jobs` threads (default: the number of cores), results in order."""
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        return list(pool.map(f, items))


def run_many(
    points: Iterable[tuple[ConfigLike, Mapping[str, Any] | Sequence[str]]],
    jobs: int | None = None,
) -> list[Result]:
    """Runs each (config, overrides) point; returns results in the same order.

    jobs: simulations at once (default: the number of cores).
    """
    return map_parallel(lambda p: run(p[0], overrides=p[1]), points, jobs)
