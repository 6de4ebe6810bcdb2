"""lossless: simulate congestion management in lossless interconnection networks.

    >>> import lossless
    >>> r = lossless.run("examples/fattree256_uniform.toml", set=["traffic.0.load=0.6"])
    >>> r.classes[["offered", "accepted", "packet_latency_mean_ns"]]

The same simulation as ``lossless run`` on the command line; see docs/config.md for the keys.
"""

from ._lossless import ConfigError, __version__
from .run import Result, run, validate

__all__ = ["ConfigError", "Result", "run", "validate", "__version__"]
