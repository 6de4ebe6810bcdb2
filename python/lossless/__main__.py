"""``python -m lossless`` and the ``lossless`` script.

`reproduce`, `sweep`, `plot` and `report` are the Python experiment layer (executors, pandas,
matplotlib); `run` and `validate` are the Rust command line.
"""

import signal
import sys

from ._lossless import cli


def _python_command(name: str):
    if name == "reproduce":
        from .reproduce import main

        return main
    if name == "examples":
        from .bundled import main

        return main
    from . import commands

    return {"sweep": commands.sweep, "plot": commands.plot, "report": commands.report}.get(name)


def main() -> int:
    # Output piped into `head` ends quietly, as other command-line tools do, not with a traceback.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = sys.argv[1:]
    command = _python_command(args[0]) if args else None
    if command is not None:
        return command(args[1:])
    if args[:1] == ["list"] and len(args) == 1:
        status = cli(["lossless", "list"])
        from .reproduce import listed

        print("reproductions (lossless reproduce ID):")
        for t in listed():
            print(f"  {t.id:<15} {t.title}")
        return status
    # The simulation runs in Rust without returning to Python, so Python's own Ctrl-C handler
    # would never run: let SIGINT end the process as it ends the native binary. Results are
    # written atomically, so nothing half-written is left behind.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if args[:1] in (["run"], ["validate"]):
        from .bundled import resolve_arg

        try:
            args = [args[0], *map(resolve_arg, args[1:])]
        except FileNotFoundError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    return cli(["lossless", *args])


if __name__ == "__main__":
    sys.exit(main())
