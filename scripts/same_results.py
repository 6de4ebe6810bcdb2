#!/usr/bin/env python3
"""Checks that a change leaves results unchanged: runs every example scenario under each
mechanism for a short window and stores its summary.json without `wall_s`, `version` and
`commit`, so that two commits'
outputs can be compared byte for byte.

    python scripts/same_results.py record DIR     # with the commit you trust
    python scripts/same_results.py compare DIR    # after the change: lists every difference

Uses the `lossless` command on PATH (reinstall with `pip install .` between the two steps).
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MECHANISMS = ["none", "ecn", "srp", "ibcc", "santos"]
# Short enough for the 648-node example to take seconds, long enough for every class to start
# and for the mechanisms to mark, throttle and drop.
WINDOW = ["--set", "simulation.warmup_ns=5000", "--set", "simulation.measure_ns=20000"]


def scenarios() -> list[Path]:
    return sorted(p for p in (ROOT / "examples").rglob("*.toml") if "[sweep]" not in p.read_text())


def summaries() -> dict[str, str]:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in scenarios():
            for m in MECHANISMS:
                name = f"{path.relative_to(ROOT / 'examples').with_suffix('')}-{m}".replace("/", "_")
                run = subprocess.run(["lossless", "run", str(path), "--out", f"{tmp}/{name}", "-q", "--set", f"cc.mechanism='{m}'", *WINDOW], capture_output=True, text=True)
                if run.returncode != 0:
                    out[name] = f"exit {run.returncode}: {run.stderr.strip()}\n"
                    continue
                s = json.loads(Path(f"{tmp}/{name}/summary.json").read_text())
                for provenance in ("wall_s", "version", "commit"):
                    s.pop(provenance, None)
                out[name] = json.dumps(s, indent=1, sort_keys=True) + "\n"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["record", "compare"])
    ap.add_argument("dir", type=Path)
    args = ap.parse_args()
    now = summaries()
    if args.action == "record":
        args.dir.mkdir(parents=True, exist_ok=True)
        for name, text in now.items():
            (args.dir / f"{name}.json").write_text(text)
        print(f"{len(now)} summaries in {args.dir}")
        return 0
    differ = [n for n, text in now.items() if not (args.dir / f"{n}.json").is_file() or (args.dir / f"{n}.json").read_text() != text]
    for n in differ:
        print(f"differs: {n}")
    print(f"{len(now) - len(differ)} of {len(now)} summaries identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
