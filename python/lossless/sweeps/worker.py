"""What an executor runs for one point, in a worker process or on a Dask worker.

It takes the point's resolved config (TOML text) rather than base + overrides, so the result
is exactly the one its store key names. It returns plain JSON text and never raises for a
failing point: the failure travels back as data and is recorded, and the sweep goes on.
"""

from __future__ import annotations

import datetime
import json
import socket
import time
import traceback
from typing import Any

from .. import _lossless
from ..run import deadlock_message


def run_point(resolved_toml: str) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        summary, series, links, flows = _lossless.run(toml_text=resolved_toml)
    except _lossless.ConfigError as e:
        return {"error": str(e), "kind": "config"}
    except KeyboardInterrupt:
        raise
    except Exception as e:  # lossless.InternalError (a bug), MemoryError, ...
        return {"error": f"{type(e).__name__}: {e}", "kind": "crash", "traceback": traceback.format_exc()}
    deadlock = json.loads(summary).get("deadlock")
    if deadlock:
        return {"error": deadlock_message(deadlock), "kind": "deadlock"}
    return {
        "summary": summary,
        "timeseries": series,
        "links": links,
        # One row per completed message, with `simulation.record_flows` (None without).
        "flows": flows,
        "meta": {
            "wall_s": time.perf_counter() - started,
            "host": socket.gethostname(),
            "finished_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        },
    }
