"""Paper reproductions: ``lossless reproduce <id> [--full]``.

Each target runs the example configs behind one figure family of a paper, prints the paper's
headline numbers beside ours with the tolerance stated in docs/validation.md, and writes the
figure as PNG. The example configs ship inside the package, so this runs anywhere. Short mode
(the default) is for CI and quick looks: seconds to minutes (`--list` gives each target's
measured time). ``--full`` uses the paper's run lengths.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..commands import guarded
from ..outputs import OutputError, claim_dir
from ..parallel import showing_progress
from ..run import threads_per_run
from ..sweeps.store import write_atomically

from ..bundled import EXAMPLES


@dataclass
class Check:
    headline: str
    paper: str
    ours: str
    tolerance: str
    ok: bool


@dataclass
class Reproduction:
    id: str
    title: str
    checks: list[Check] = field(default_factory=list)
    figure: Path | None = None

    def check(self, headline: str, paper: str, ours: str, tolerance: str, ok: bool) -> None:
        self.checks.append(Check(headline, paper, ours, tolerance, bool(ok)))

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def table(self) -> str:
        rows = [("headline", "paper", "ours", "tolerance", "")] + [
            (c.headline, c.paper, c.ours, c.tolerance, "ok" if c.ok else "NOT REPRODUCED") for c in self.checks
        ]
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        return "\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows)


@dataclass
class Target:
    id: str
    title: str
    run: Callable[[Path, bool, int | None], Reproduction]


TARGETS: dict[str, Target] = {}


def target(id: str, title: str):
    """Registers a reproduction function `f(out_dir, full, jobs) -> Reproduction`."""

    def register(f):
        TARGETS[id] = Target(id, title, f)
        return f

    return register


def _times() -> dict[str, dict[str, int]]:
    """Each target's measured wall time (`times.toml`, written by scripts/reproduce_times.py)."""
    import tomllib

    path = Path(__file__).with_name("times.toml")
    return tomllib.loads(path.read_text()) if path.is_file() else {}


def _duration(seconds: int | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds} s"
    return f"{seconds / 60:.0f} min" if seconds < 5940 else f"{seconds / 3600:.1f} h"


def natural(id: str) -> list[int | str]:
    """A target id's sort key in natural order: by paper, then by number (srp-9 before srp-10)."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", id)]


def listed() -> list[Target]:
    """The targets in natural order (`natural`)."""
    return sorted(TARGETS.values(), key=lambda t: natural(t.id))


def example(path: str) -> Path:
    if not (EXAMPLES / path).is_file():
        raise FileNotFoundError(f"example {path} not found in {EXAMPLES}: the package is incomplete, reinstall lossless")
    return EXAMPLES / path


#: Every target's main figure, in its directory; a target with a second one names it
#: `figure-WHAT.png`.
FIGURE = "figure.png"


def save_figure(fig, out: Path) -> Path:
    """Lays out `fig` and writes it as the target's `figure.png` in `out`."""
    from .. import plot

    fig.tight_layout()
    return plot.save(fig, out / FIGURE)


def reproduce(id: str, out: Path, full: bool = False, jobs: int | None = None, threads: int | None = None) -> Reproduction:
    """Runs target `id`, writes its figure and table under `out/id`, returns the result.

    jobs: simulations at once (default: one per core); threads: threads of each simulation
    (default 1; 0: one per core), for targets whose time one long run dominates.
    """
    if id not in TARGETS:
        raise KeyError(f"unknown reproduction `{id}`; known: {', '.join(t.id for t in listed())}")
    with threads_per_run(threads), warnings.catch_warnings():
        # Targets switch a class off by starting it long after the run (`start_ns = 1e12`): the
        # warning that it sends nothing is for a user's shortened run, not for them.
        warnings.filterwarnings("ignore", message=r".* sends nothing$", category=UserWarning)
        d = claim_dir(Path(out) / id, "reproduce")
        r = TARGETS[id].run(d, full, jobs)

    def write_checks(tmp: str) -> None:
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["headline", "paper", "ours", "tolerance", "ok"])
            for c in r.checks:
                w.writerow([c.headline, c.paper, c.ours, c.tolerance, c.ok])

    write_atomically(d / "checks.csv", write_checks)
    return r


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lossless reproduce", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ids", nargs="*", help="targets to run (see --list)")
    ap.add_argument("--list", action="store_true", help="list the targets")
    ap.add_argument("--full", action="store_true", help="the paper's run lengths (minutes to hours)")
    ap.add_argument("--out", type=Path, default=Path("reproductions"), help="output directory (default: ./reproductions)")
    ap.add_argument("--jobs", type=int, default=None, help="simulations at once (default: all cores)")
    ap.add_argument("--threads", type=int, default=None, help="threads of each simulation (default 1; 0: one per core): results are identical, a target one long run dominates finishes sooner")
    args = ap.parse_args(argv)
    if args.list or not args.ids:
        times = _times()
        print(f"{'target':<8} {'short':>6} {'--full':>7}  title (times as measured by scripts/reproduce_times.py; -: not measured)", file=sys.stderr)
        for t in listed():
            short, full = (_duration(times.get(t.id, {}).get(k)) for k in ("short_s", "full_s"))
            print(f"{t.id:<8} {short:>6} {full:>7}  {t.title}")
        return 0 if args.list else 2
    unknown = [i for i in args.ids if i not in TARGETS]
    if unknown:
        print(f"error: unknown reproduction {', '.join(unknown)}; see `lossless reproduce --list`", file=sys.stderr)
        return 2
    if args.jobs is not None and args.jobs < 1:
        ap.error("--jobs: give a positive number of simulations at once")
    # Ctrl-C (or a scheduler's SIGTERM) stops the running target's simulations: it leaves no
    # checks.csv, the file that says a target finished.
    return guarded(lambda: _run_targets(args), "the target running wrote no checks.csv")


def _run_targets(args: argparse.Namespace) -> int:
    all_ok = True
    for i in args.ids:
        # Some targets run for minutes: say what is running, on stderr,
        # and on a terminal how many of its simulations have finished.
        print(f"{i}: running{' --full' if args.full else ''} ...", file=sys.stderr, flush=True)
        start = time.monotonic()
        try:
            with showing_progress(i):
                r = reproduce(i, args.out, args.full, args.jobs, args.threads)
        except (FileNotFoundError, ValueError) as e:  # ValueError includes ConfigError and OutputError
            print(f"error: {i}: {e}", file=sys.stderr)
            return 2
        except OSError as e:
            print(f"error: {i}: writing to {args.out}: {e.strerror or e}", file=sys.stderr)
            return 1
        print(f"{i}: done in {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
        print(f"\n{r.id}: {r.title}\n{r.table()}")
        if r.figure:
            print(f"figure: {r.figure}")
        all_ok &= r.ok
    # Gaps against the paper are results, documented in docs/validation.md: they do not make
    # the command fail. Exit 1 only tells scripts that some headline is not reproduced.
    return 0 if all_ok else 1


from . import accurate, cbcm, ibcc, isolation, santos, srp  # noqa: E402,F401  (register their targets)
