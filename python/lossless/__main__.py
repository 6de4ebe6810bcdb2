"""``python -m lossless`` and the ``lossless`` script: the Rust command line."""

import signal
import sys

from ._lossless import cli


def main() -> int:
    # The simulation runs in Rust without returning to Python, so Python's own Ctrl-C handler
    # would never run: let SIGINT end the process as it ends the native binary. Results are
    # written atomically, so nothing half-written is left behind.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return cli(["lossless", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
