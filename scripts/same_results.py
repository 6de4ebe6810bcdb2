#!/usr/bin/env python3
"""Checks that a change leaves results unchanged.

Records, for the commit you trust, then compares after the change:
- the summary.json of every example scenario under each mechanism, over a short window,
  without `wall_s`, `version`, `commit` and `events` (byte for byte);
- with --reproductions, the `checks.csv` of every short reproduction (our measured numbers).

    python scripts/same_results.py record DIR [--reproductions]    # with the commit you trust
    python scripts/same_results.py compare DIR [--reproductions]   # after the change

Uses the installed `lossless` package (reinstall with `pip install .` between the two steps).
A scenario runs each mechanism with only that mechanism's `[cc.NAME]` table, as a config may
carry settings only for the mechanism it selects.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import lossless

ROOT = Path(__file__).resolve().parents[1]
MECHANISMS = ["none", "ecn", "srp", "ibcc", "santos"]
# Short enough for the 648-node example to take seconds, long enough for every class to start
# and for the mechanisms to mark, throttle and drop.
WINDOW = {"simulation.warmup_ns": 5000, "simulation.measure_ns": 20000}


def scenarios() -> list[Path]:
    return sorted(p for p in (ROOT / "examples").rglob("*.toml") if "[sweep]" not in p.read_text())


def with_mechanism(path: Path, mechanism: str) -> dict:
    cfg = tomllib.loads(path.read_text())
    cc = cfg.get("cc", {})
    cfg["cc"] = {k: v for k, v in cc.items() if k in ("mechanism", "vcs") or k == mechanism} | {"mechanism": mechanism}
    return cfg


def summaries() -> dict[str, str]:
    out = {}
    for path in scenarios():
        for m in MECHANISMS:
            name = f"{path.relative_to(ROOT / 'examples').with_suffix('')}-{m}".replace("/", "_")
            try:
                s = dict(lossless.run(with_mechanism(path, m), overrides=WINDOW).summary)
            except lossless.DeadlockError as e:
                s = dict(e.result.summary)
            except ValueError as e:
                out[name] = f"refused: {e}\n"
                continue
            # Provenance, and the engine's own work: a change may schedule fewer events
            # without changing any result.
            for field in ("wall_s", "version", "commit", "events"):
                s.pop(field, None)
            out[name] = json.dumps(s, indent=1, sort_keys=True) + "\n"
    return out


def reproductions() -> dict[str, str]:
    listed = subprocess.run(["lossless", "reproduce", "--list"], check=True, capture_output=True, text=True).stdout
    ids = [line.split()[0] for line in listed.splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["lossless", "reproduce", *ids, "--out", tmp], check=False, capture_output=True)
        return {f"reproduce_{p.parent.name}": p.read_text() for p in sorted(Path(tmp).glob("*/checks.csv"))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["record", "compare"])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--reproductions", action="store_true", help="also every short reproduction's checks.csv (about half an hour)")
    args = ap.parse_args()
    now = summaries() | (reproductions() if args.reproductions else {})
    if args.action == "record":
        args.dir.mkdir(parents=True, exist_ok=True)
        for name, text in now.items():
            (args.dir / f"{name}.txt").write_text(text)
        print(f"{len(now)} results in {args.dir}")
        return 0
    differ = [n for n, text in now.items() if not (args.dir / f"{n}.txt").is_file() or (args.dir / f"{n}.txt").read_text() != text]
    for n in differ:
        print(f"differs: {n}")
    print(f"{len(now) - len(differ)} of {len(now)} results identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
