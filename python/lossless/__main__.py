"""``python -m lossless`` and the ``lossless`` script.

`reproduce` is the Python experiment layer (it plots with matplotlib); every other command is
the Rust command line.
"""

import signal
import sys

from ._lossless import cli

PYTHON_COMMANDS = {"reproduce"}


def main() -> int:
    args = sys.argv[1:]
    if args and args[0] in PYTHON_COMMANDS:
        from .reproduce import main as reproduce

        return reproduce(args[1:])
    # The simulation runs in Rust without returning to Python, so Python's own Ctrl-C handler
    # would never run: let SIGINT end the process as it ends the native binary. Results are
    # written atomically, so nothing half-written is left behind.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return cli(["lossless", *args])


if __name__ == "__main__":
    sys.exit(main())
