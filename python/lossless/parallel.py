"""Running many simulations at once on this machine.

The simulation core releases the GIL, so threads run simulations in parallel without the cost
of processes; results are identical to sequential runs (each run is deterministic).
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed, wait
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar

from . import _lossless
from .run import ConfigLike, Result, run


T = TypeVar("T")
R = TypeVar("R")

#: The name of the bar `map_parallel` shows (`showing_progress`); None: no bar.
_progress: str | None = None


@contextmanager
def showing_progress(label: str) -> Iterator[None]:
    """Within it, `map_parallel` (and so `run_many`) shows on stderr, if it is a terminal, a bar
    of the items it has finished, named `label`: for commands whose simulations take minutes
    (`lossless reproduce --full`), as `lossless sweep` shows its points."""
    global _progress
    before, _progress = _progress, label
    try:
        yield
    finally:
        _progress = before


def map_parallel(f: Callable[[T], R], items: Iterable[T], jobs: int | None = None) -> list[R]:
    """`f` over `items` on `jobs` threads (default: the number of cores), results in order."""
    from tqdm import tqdm

    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise ValueError(f"jobs: give a positive number of simulations at once, got {jobs!r}")

    items = list(items)
    # disable=None: no bar when stderr is not a terminal (logs stay readable), as for sweeps.
    bar = tqdm(total=len(items), desc=_progress, unit="run", disable=None if _progress else True, file=sys.stderr, leave=False)
    with bar, ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        futures = [pool.submit(f, x) for x in items]
        try:
            for _ in as_completed(futures):
                bar.update()
        except KeyboardInterrupt:
            # Ctrl-C reaches this thread only: the queued items are dropped and the runs on the
            # other threads stopped, else leaving would wait for them all to finish.
            for fut in futures:
                fut.cancel()
            _lossless.stop_runs(True)
            try:
                wait(futures)
            finally:
                _lossless.stop_runs(False)
            raise
        return [done.result() for done in futures]


def run_many(
    points: Iterable[tuple[ConfigLike, Mapping[str, Any] | Sequence[str]]],
    jobs: int | None = None,
) -> list[Result]:
    """Runs each (config, overrides) point; returns results in the same order.

    jobs: simulations at once (default: the number of cores).
    """
    if isinstance(points, (str, bytes, Mapping)) or not isinstance(points, Iterable):
        raise TypeError(f"points: give a list of pairs (config, overrides), not {type(points).__name__} {points!r}")
    points = list(points)
    for i, p in enumerate(points):
        if not (isinstance(p, (tuple, list)) and len(p) == 2):
            raise TypeError(f"points[{i}]: give a pair (config, overrides), e.g. (\"cfg.toml\", {{\"traffic.0.load\": 0.5}}), not {p!r}")
    return map_parallel(lambda p: run(p[0], overrides=p[1]), points, jobs)
