"""lossless: simulate congestion management in lossless interconnection networks.

    >>> import lossless
    >>> r = lossless.run("examples/fattree256_uniform.toml", set=["traffic.0.load=0.6"])
    >>> r.classes[["offered", "accepted", "packet_latency_mean_ns"]]

The same simulation as ``lossless run`` on the command line; see docs/config.md for the keys.
"""

from ._lossless import ConfigError, InternalError, __commit__, __version__
from . import transient
from .parallel import run_many
from .run import DeadlockError, Result, run, validate
from .saturation import Saturation, overload_throughput, saturation
from .report import report
from .sweeps import Dask, Local, SweepResults, load, sweep

__all__ = [
    "ConfigError", "Dask", "DeadlockError", "InternalError", "Local", "Result", "Saturation", "SweepResults",
    "load", "overload_throughput", "report", "run", "run_many", "saturation", "sweep", "transient", "validate", "__commit__", "__version__",
]
