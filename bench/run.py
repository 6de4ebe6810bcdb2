#!/usr/bin/env python3
"""Benchmark runner: events/s, packet-hops/s, delivered packets/s, simulated ns per wall
second and peak memory for the fixed scenarios in bench/, after a line naming the machine
(`machine`). Figures go to docs/performance.md, with their machine.

    python bench/run.py            # every scenario, best of 3
    python bench/run.py --repeat 5 bench/fattree256_uniform_1ms.toml
    python bench/run.py --threads 2 bench/fattree4096_uniform.toml
    python bench/run.py --binary lossless   # the installed package's command (bench/pgo.py)
    python bench/run.py --doc               # and rewrite docs/performance.md's current figures

`--threads` runs each scenario on that many threads (`simulation.threads`; results are
identical). bench/scaling.py measures against network size and threads.

Uses the release binary built by `cargo build --release -p lossless-cli` (it builds it first),
or the command given by `--binary` (a path, or a name on PATH: `lossless` runs the installed
Python package, whose peak memory then includes the interpreter's).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BINARY = ROOT / "target" / "release" / "lossless"
SCENARIOS = [ROOT / "bench" / name for name in ("fattree256_uniform_1ms.toml", "fattree4096_uniform.toml", "fb512_uniform.toml", "fattree1024_websearch.toml", "fattree1024_ecocc.toml")]


def machine() -> str:
    """The processor the figures were taken on: its name, family and model, cores, and the
    data caches of its first core (sysfs), e.g. "AMD EPYC (family 25, model 1), 2 cores, L2
    512K per core, L3 32768K shared". These sessions' machines change model from day to day, and
    the figures with them: a figure is quoted with its machine."""
    cpuinfo = Path("/proc/cpuinfo")
    first_cpu = cpuinfo.read_text().split("\n\n")[0] if cpuinfo.exists() else ""
    info = {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in first_cpu.splitlines() if ":" in line)}
    name = info.get("model name", "unknown processor")
    if "cpu family" in info:
        name += f" (family {info['cpu family']}, model {info.get('model', '?')})"
    caches = []
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        level, kind = (index / "level").read_text().strip(), (index / "type").read_text().strip()
        if level != "1" and kind != "Instruction":
            shared = "," in (cpus := (index / "shared_cpu_list").read_text().strip()) or "-" in cpus
            caches.append(f"L{level} {(index / 'size').read_text().strip()} {'shared' if shared else 'per core'}")
    return ", ".join([name, f"{os.cpu_count()} cores", *caches])


def command(binary: Path, scenario: Path, out: Path, threads: int, sets: tuple[str, ...] | list[str]) -> list[str]:
    """The `lossless run` of `scenario` into `out` on `threads` threads with overrides `sets`."""
    return [str(binary), "run", str(scenario), "--out", str(out), "-q", "--threads", str(threads), *(a for s in sets for a in ("--set", s))]


def measure(scenario: Path, threads: int = 1, sets: tuple[str, ...] = (), binary: Path = BINARY) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        child = subprocess.Popen(command(binary, scenario, Path(tmp) / "out", threads, sets))
        # wait4 gives this run's own peak resident memory (KiB on Linux).
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{scenario} failed")
        s = json.loads(Path(f"{tmp}/out/summary.json").read_text())
    wall = s["wall_s"]
    return {
        "wall_s": wall,
        "events_per_s": s["events"] / wall,
        "hops_per_s": s["counters"]["hops"] / wall,
        "delivered_per_s": s["counters"]["delivered"] / wall,
        "sim_ns_per_wall_s": s["sim_time_ns"] / wall,
        "peak_rss_mib": usage.ru_maxrss / 1024,
        "events": s["events"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="*", type=Path, default=SCENARIOS)
    ap.add_argument("--repeat", type=int, default=3, help="runs per scenario; the fastest is reported")
    ap.add_argument("--threads", type=int, default=1, help="threads per run (0: one per core)")
    ap.add_argument("--doc", action="store_true", help="write the figures into docs/performance.md's table of current figures")
    ap.add_argument("--binary", help="the lossless command to measure: a path or a name on PATH (default: the release build, built first)")
    args = ap.parse_args()
    if args.binary is None:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "lossless-cli"], check=True, cwd=ROOT)
        binary = BINARY
    elif (found := shutil.which(args.binary)) is None:
        raise SystemExit(f"--binary {args.binary}: no such command or executable file")
    else:
        binary = Path(found)
    where = machine()
    print(f"machine: {where}")
    print(f"{'scenario':<28} {'wall s':>7} {'Mevents/s':>10} {'Mhops/s':>8} {'kpkt/s':>8} {'us sim/s':>9} {'peak MiB':>9}")
    rows = []
    for sc in args.scenarios:
        best = min((measure(sc, args.threads, binary=binary) for _ in range(args.repeat)), key=lambda r: r["wall_s"])
        print(
            f"{sc.stem:<28} {best['wall_s']:>7.2f} {best['events_per_s'] / 1e6:>10.2f} {best['hops_per_s'] / 1e6:>8.2f} "
            f"{best['delivered_per_s'] / 1e3:>8.0f} "
            f"{best['sim_ns_per_wall_s'] / 1e3:>9.1f} {best['peak_rss_mib']:>9.0f}"
        )
        rows.append(
            f"| `{sc.stem}` | {best['wall_s']:.2f} | {best['events_per_s'] / 1e6:.2f} | {best['hops_per_s'] / 1e6:.2f} | "
            f"{best['delivered_per_s'] / 1e3:.0f} | {best['sim_ns_per_wall_s'] / 1e3:,.1f} | {best['peak_rss_mib']:.0f} |"
        )
    if args.doc:
        write_doc(rows, f"`python bench/run.py --doc{' --repeat ' + str(args.repeat) if args.repeat != 3 else ''}{' --threads ' + str(args.threads) if args.threads != 1 else ''}` "
                  f"at `{commit()}`, best of {args.repeat}, {args.threads} thread{'s' if args.threads != 1 else ''} a run, on \"{where}\".")
    return 0


DOC = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- bench/run.py: begin -->", "<!-- bench/run.py: end -->"


def write_doc(rows: list[str], how: str) -> None:
    """Replaces the table between the markers in docs/performance.md."""
    text = DOC.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    table = "\n".join([how, "", "| scenario | wall s | M events/s | M hops/s | k delivered pkt/s | us simulated / s | peak MiB |", "|---|---|---|---|---|---|---|", *rows])
    DOC.write_text(f"{head}{BEGIN}\n{table}\n{END}{tail}")


def commit() -> str:
    p = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    return p.stdout.strip() or "unknown"


if __name__ == "__main__":
    sys.exit(main())
