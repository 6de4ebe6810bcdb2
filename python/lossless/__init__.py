"""lossless: simulate congestion management in lossless interconnection networks.

    >>> import lossless
    >>> r = lossless.run("examples/fattree256_uniform.toml", overrides=["traffic.0.load=0.6"])
    >>> r.classes[["offered", "accepted", "packet_latency_mean_ns"]]

The same simulation as ``lossless run`` on the command line; see docs/config.md for the keys.
"""

from importlib import import_module

from ._lossless import ConfigError, InternalError, __commit__, __version__
from .parallel import run_many
from .run import DeadlockError, Result, run, threads_per_run, validate
from .saturation import Saturation, overload_throughput, saturation

# What needs pandas or matplotlib is imported on first use (PEP 562), so that `lossless run`
# and `lossless --version` start in a tenth of a second, not a second. (Names that are also
# submodules, `run` and `saturation`, are imported above: a later import of the submodule would
# otherwise rebind them to it.)
_LAZY = {
    "transient": ".transient",
    "report": ".html_report",
    "Dask": ".sweeps", "Local": ".sweeps", "SweepResults": ".sweeps", "load": ".sweeps", "sweep": ".sweeps",
}

__all__ = [
    "ConfigError", "DeadlockError", "InternalError", "Result", "Saturation", "__commit__", "__version__",
    "overload_throughput", "run", "run_many", "saturation", "threads_per_run", "validate", *_LAZY,
]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'lossless' has no attribute {name!r}")
    module = import_module(_LAZY[name], __name__)
    value = module if name == "transient" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
