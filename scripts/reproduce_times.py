#!/usr/bin/env python3
"""Measures how long each reproduction takes and writes the figures `lossless reproduce --list`
shows (python/lossless/reproduce/times.toml).

    python scripts/reproduce_times.py                 # every target, short mode
    python scripts/reproduce_times.py srp-5 --full    # some targets, the paper's run lengths

Each target runs alone on every core, as a user first runs it; other entries of the file are
kept. Times differ from machine to machine and day to day (up to 2x): they are a guide to what
to expect, to the nearest second, not a benchmark.
"""

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMES = ROOT / "python" / "lossless" / "reproduce" / "times.toml"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ids", nargs="*", help="targets (default: all)")
    ap.add_argument("--full", action="store_true", help="time the --full runs")
    args = ap.parse_args()
    from lossless.reproduce import listed

    ids = args.ids or [t.id for t in listed()]
    times = tomllib.loads(TIMES.read_text()) if TIMES.is_file() else {}
    mode = "full_s" if args.full else "short_s"
    for i in ids:
        with tempfile.TemporaryDirectory() as out:
            start = time.monotonic()
            p = subprocess.run([sys.executable, "-m", "lossless", "reproduce", i, "--out", out, *(["--full"] if args.full else [])], capture_output=True, text=True)
            took = time.monotonic() - start
        if p.returncode not in (0, 1):  # 1: a headline not reproduced, which is a result
            print(f"{i}: failed ({p.returncode}):\n{p.stderr}", file=sys.stderr)
            return 1
        times.setdefault(i, {})[mode] = round(took)
        print(f"{i}: {took:.0f} s", file=sys.stderr)
        write(times)
    return 0


def write(times: dict) -> None:
    lines = [
        "# Wall time of each reproduction, in seconds, short mode and --full: written by",
        "# scripts/reproduce_times.py, which ran each target alone on every core of a",
        f"# {platform.machine()} machine of {os.cpu_count()} cores. A guide, not a benchmark.",
        "",
    ]
    from lossless.reproduce import natural

    for i in sorted(times, key=natural):
        lines.append(f'["{i}"]')
        lines += [f"{k} = {v}" for k, v in sorted(times[i].items(), key=lambda kv: kv[0] != "short_s")]
        lines.append("")
    TIMES.write_text("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
