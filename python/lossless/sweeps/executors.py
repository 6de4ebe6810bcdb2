"""Where a sweep's points run: local processes, or a Dask cluster.

An executor maps a function over items and yields `(item, result)` as each finishes, in any
order; the sweep stores each result as it arrives. Results do not depend on the executor:
each point is a deterministic simulation of its resolved config.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Iterable, Iterator, Protocol


class Executor(Protocol):
    name: str

    def map_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[Any, Any]]: ...


def _init_worker() -> None:
    # Ctrl-C reaches the whole process group; the sweep (the parent) decides what happens and
    # stops the workers itself, so they should not print a traceback of their own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A sweep killed outright (SIGKILL, out of memory) cannot stop its workers: they notice
    # that they were orphaned and end, instead of finishing points nobody will store.
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


class Local:
    """Worker processes on this machine, one simulation per core (`jobs` to choose)."""

    name = "local"

    def __init__(self, jobs: int | None = None):
        if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
            raise ValueError(f"jobs: give a positive number of worker processes, got {jobs!r}")
        self.jobs = jobs or os.cpu_count() or 1

    def map_unordered(self, fn, items):
        """A worker process that dies (abort, signal, out of memory) breaks the whole pool and
        fails every point in it: those run again, and an item that failed so twice runs alone
        in a pool of its own, whose verdict is final. Only the point that kills its worker is
        reported failed."""
        items = list(items)
        pending, strikes = list(range(len(items))), [0] * len(items)
        while pending:
            batches = [([i for i in pending if strikes[i] < 2], self.jobs)] + [([i], 1) for i in pending if strikes[i] >= 2]
            pending = []
            for batch, jobs in batches:
                for i, outcome in _in_pool(fn, items, batch, jobs):
                    if outcome is not None:
                        yield items[i], outcome
                    elif jobs == 1 and len(batch) == 1:
                        yield items[i], {"error": "the worker process died running this point alone (an abort, a signal or out of memory)", "kind": "crash"}
                    else:
                        strikes[i] += 1
                        pending.append(i)


def _in_pool(fn, items: list, batch: list[int], jobs: int):
    """`fn` over `items[i]` for each i of `batch` in a pool of `jobs` worker processes: (i, result),
    or (i, None) where the pool broke under it."""
    from concurrent.futures import as_completed

    from loky import ProcessPoolExecutor
    from loky.process_executor import BrokenProcessPool

    if not batch:
        return
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(batch)), initializer=_init_worker)
    try:
        futures = {pool.submit(fn, items[i]): i for i in batch}
        for f in as_completed(futures):
            try:
                yield futures[f], f.result()
            except BrokenProcessPool:  # a worker process died, and the pool with it
                yield futures[f], None
            except Exception as e:  # `fn` itself raised: this item's own failure
                yield futures[f], {"error": f"{type(e).__name__}: {e}", "kind": "crash"}
    finally:
        # On an interrupt, stop simulations in progress at once: their points are not
        # finished and will run again when the sweep is resumed.
        pool.shutdown(wait=False, kill_workers=True)


#: How long to wait for a Dask scheduler to answer (Dask's own default is 30 s of silence).
CONNECT_TIMEOUT_S = 10


class Dask:
    """A Dask distributed cluster: a `dask.distributed.Client`, or a scheduler address.

    Every worker needs the same lossless installed (``pip install lossless`` there).
    """

    name = "dask"

    def __init__(self, client: Any):
        try:
            from dask.distributed import Client
        except ImportError:
            raise ImportError("the Dask executor needs dask.distributed: pip install 'lossless[dask]'") from None

        if isinstance(client, Client):
            self.client = client
            return
        if not isinstance(client, str) or not client:
            raise ValueError(f"client: give a dask.distributed Client or a scheduler address such as 'tcp://host:8786', not {client!r}")
        print(f"connecting to the Dask scheduler at {client} ...", file=sys.stderr, flush=True)
        try:
            self.client = Client(client, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as e:
            raise ValueError(
                f"no Dask scheduler answered at {client} within {CONNECT_TIMEOUT_S} s ({e}): start one there "
                "(`dask scheduler`, then `dask worker ADDRESS` on each machine) or check the address"
            ) from None

    def map_unordered(self, fn, items):
        from dask.distributed import as_completed

        items = list(items)
        futures = {self.client.submit(fn, item, pure=False): item for item in items}
        try:
            for f in as_completed(list(futures)):
                try:
                    yield futures[f], f.result()
                except Exception as e:  # a worker lost for good (Dask's KilledWorker)
                    yield futures[f], {"error": f"the Dask task failed: {type(e).__name__}: {e}", "kind": "crash"}
        finally:
            self.client.cancel([f for f in futures if not f.done()])
