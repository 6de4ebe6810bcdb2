"""The experiment commands of ``lossless``: sweep, plot, report (reproduce has its own module,
and shares `guarded`).

Exit status as for the Rust commands: 0 done, 1 some points failed, 2 bad input (the message
names the key or argument), 130 interrupted.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tomllib
from pathlib import Path
from typing import Any, Callable

from ._lossless import ConfigError

EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 1, 2, 130


def parse_set(items: list[str], flag: str = "--set") -> dict[str, Any]:
    """`--set key=value` arguments (or `flag`'s), read as `lossless run` reads them: the value
    as TOML would read it (`0.5`, `true`, `"x"`, `[1, 2]`), else as a bare string (`srp`)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"`{flag} {item}`: give key=value, e.g. {flag} traffic.0.load=0.6")
        try:
            out[key.strip()] = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            out[key.strip()] = value.strip()
    return out


def sweep(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lossless sweep", description="Run the points of a sweep spec (docs/sweeps.md) not already finished in --out.")
    ap.add_argument("spec", type=Path, help="a scenario file with a [sweep] table")
    ap.add_argument("--out", type=Path, required=True, help="the sweep's result directory (re-running resumes it)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=int, help="local worker processes (default: one per core)")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster, e.g. tcp://host:8786")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a key in every point (repeatable)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")
    args = ap.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        ap.error("--jobs: give a positive number of processes")

    from .sweeps import Dask, Local, sweep

    def go() -> int:
        executor = Dask(args.scheduler) if args.scheduler else Local(args.jobs)
        results = sweep(args.spec, args.out, overrides=parse_set(args.set), executor=executor, progress=not args.quiet)
        if not args.quiet:
            done = results.meta.shape[0]
            print(f"{done} points finished, {len(results.failures)} failed; results in {args.out}")
        for f in results.failures.itertuples():
            print(f"point {f.point} failed ({f.kind}): {f.message}", file=sys.stderr)
        if len(results.failures) and len(results.meta) == 0 and (results.failures["kind"] == "config").all():
            return EXIT_BAD_INPUT  # no point's config was valid: the spec or --set is wrong, not a point
        return EXIT_FAILED if len(results.failures) else 0

    return guarded(go, f"finished points are kept in {args.out}; run the same command again to finish the rest", writing=args.out)


def guarded(action: Callable[[], int], on_interrupt: str, writing: Path | None = None) -> int:
    """Runs a command: bad input and interrupts become messages and exit codes, not tracebacks.
    `writing`: where the command writes, named when the file system fails without a file name
    (a full disk fails a write, which has none)."""
    # Schedulers (Slurm, PBS) stop jobs with SIGTERM: treat it as Ctrl-C.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return action()
    except (ConfigError, FileNotFoundError, ValueError) as e:  # ValueError includes OutputError
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as e:  # read-only place, disk full: the file system's words, on one line
        where = e.filename or (writing and f"writing to {writing}") or ""
        print(f"error: {e.strerror or e}: {where}".rstrip(": "), file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"\ninterrupted: {on_interrupt}", file=sys.stderr)
        return EXIT_INTERRUPTED


def plot(argv: list[str]) -> int:
    from . import plot as plots

    ap = argparse.ArgumentParser(prog="lossless plot", description="Draw a figure of a sweep's results, or of one run's directory (PNG or SVG by the --out extension).")
    ap.add_argument("dir", type=Path, help="a sweep's result directory, or a run's (lossless run --out DIR)")
    ap.add_argument("--kind", required=True, choices=plots.KINDS, help="latency or accepted vs offered load; time series; per-sender throughput; busiest channels; two-parameter heat map")
    ap.add_argument("--out", type=Path, required=True, help="figure file, .png or .svg")
    ap.add_argument("--x", help="x axis: a swept key (default for latency/accepted: the swept load)")
    ap.add_argument("--y", help="heatmap: the second swept key")
    ap.add_argument("--by", help="a curve per value of this swept key (default: the series, else the first swept key)")
    ap.add_argument("--value", default="accepted", help="heatmap: the column shown (default: accepted)")
    ap.add_argument("--column", default="accepted", help="timeseries: the column (default: accepted)")
    ap.add_argument("--latency", default="packet_latency_mean_ns", help="latency: the column (default: packet_latency_mean_ns)")
    ap.add_argument("--class", dest="traffic_class", help="traffic class (default: the first)")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE", help="only the points with this value of a swept key (repeatable)")
    args = ap.parse_args(argv)

    def go() -> int:
        from .sweeps import load

        results = load(args.dir).select(parse_set(args.where, "--where"))
        common = {"traffic_class": args.traffic_class}
        if args.kind == "heatmap":
            if not (args.x and args.y):
                raise ValueError("--kind heatmap: give --x and --y, two swept keys")
            fig = plots.heatmap(results, x=args.x, y=args.y, value=args.value, **common)
        elif args.kind == "latency":
            fig = plots.latency_load(results, x=args.x, latency=args.latency, by=args.by, **common)
        elif args.kind == "accepted":
            fig = plots.accepted_load(results, x=args.x, by=args.by, **common)
        elif args.kind == "links":
            fig = plots.links(results)
        elif args.kind == "timeseries":
            fig = plots.timeseries(results, column=args.column, by=args.by, **common)
        else:
            fig = plots.senders(results, by=args.by, **common)
        print(plots.save(fig, args.out))
        return 0

    return guarded(go, "no figure written")


def report(argv: list[str]) -> int:
    from .html_report import report as write_report

    ap = argparse.ArgumentParser(prog="lossless report", description="Write a self-contained HTML report of a sweep.")
    ap.add_argument("dir", type=Path, help="the sweep's result directory")
    ap.add_argument("--out", type=Path, help="HTML file (default: DIR/report.html)")
    args = ap.parse_args(argv)
    return guarded(lambda: print(write_report(args.dir, args.out)) or 0, "no report written")
