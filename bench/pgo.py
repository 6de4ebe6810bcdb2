#!/usr/bin/env python3
"""A profile-guided build of the lossless package, for long runs (docs/performance.md,
"Profile-guided build"):

    python bench/pgo.py                                       # writes target/pgo/lossless-*.whl
    pip install --force-reinstall --no-deps target/pgo/lossless-*.whl
    python bench/run.py --binary lossless                     # measures the installed package

Three steps: a wheel that records where the engine branches and what it calls
(`-Cprofile-generate`), short runs of every benchmark scenario and of an example per mechanism
with it (`TRAINING`, through `python -m lossless run` on a private copy of that wheel), and a
wheel that lays out and inlines the code by that profile (`-Cprofile-use`). Results are the
standard build's, bit for bit: the profile changes which code is fast, never what it computes.

A profile applies only to the build it was recorded from: one recorded with the command-line
binary of `cargo build` leaves the Python extension as it was, so the training runs the package
itself. The profile is merged by `llvm-profdata` of rustc's own LLVM, from rustup's
`llvm-tools` component, which this script adds when it is missing.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
EXAMPLES = ROOT / "python" / "lossless" / "examples"

# (scenario, overrides): a few seconds each, so that every mechanism's and every input
# organisation's hot code is measured, and the two-thread engine's.
TRAINING = [
    (BENCH / "fattree256_uniform_1ms.toml", ["simulation.measure_ns=500000"]),
    (BENCH / "fattree4096_uniform.toml", ["simulation.measure_ns=20000"]),
    (BENCH / "fattree4096_uniform.toml", ["simulation.measure_ns=10000", "simulation.threads=2"]),
    (BENCH / "fb512_uniform.toml", ["simulation.measure_ns=100000"]),
    (BENCH / "fattree1024_websearch.toml", ["simulation.measure_ns=1000000"]),
    (BENCH / "fattree1024_ecocc.toml", ["simulation.measure_ns=1100000"]),
    (EXAMPLES / "srp" / "fig1_baseline.toml", ["cc.mechanism=\"srp\""]),
    (EXAMPLES / "srp" / "fig1_baseline.toml", ["cc.mechanism=\"ecn\""]),
    (EXAMPLES / "ibcc" / "fattree648_silent_forest.toml", ["simulation.warmup_ns=0", "simulation.measure_ns=2000000"]),
    (EXAMPLES / "santos" / "two_switch.toml", ["simulation.warmup_ns=0", "simulation.measure_ns=20000000"]),
    (EXAMPLES / "cbcm" / "fb256_hotspot.toml", []),
    (EXAMPLES / "accurate" / "multinode.toml", ["simulation.warmup_ns=0", "simulation.measure_ns=5000000"]),
    (EXAMPLES / "isolation" / "fattree64_ecocc.toml", ["simulation.measure_ns=1500000"]),
    (EXAMPLES / "flows" / "fattree256_websearch.toml", ["simulation.measure_ns=2000000"]),
    (EXAMPLES / "dragonfly" / "df1056_ugal.toml", []),
]


def profdata_tool() -> Path:
    """rustc's `llvm-profdata`, added through rustup if it is missing."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], check=True, capture_output=True, text=True).stdout.strip()
    host = next(line.split()[1] for line in subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout.splitlines() if line.startswith("host:"))
    tool = Path(sysroot) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if not tool.exists():
        if shutil.which("rustup") is None:
            raise SystemExit(f"bench/pgo.py: {tool} is missing and rustup is not installed: put an llvm-profdata of rustc's LLVM version there")
        subprocess.run(["rustup", "component", "add", "llvm-tools"], check=True)
    return tool


def wheel(out: Path, rustflags: str) -> Path:
    """The package's wheel, its Rust built with `rustflags` added, written into `out`. Built in a
    target directory of its own, which leaves the standard build's artifacts as they were."""
    env = {**os.environ, "CARGO_TARGET_DIR": str(ROOT / "target" / "pgo-build"), "RUSTFLAGS": f"{os.environ.get('RUSTFLAGS', '')} {rustflags}".strip()}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)], check=True, env=env)
    return next(out.glob("lossless-*.whl"))


def train_and_build(out: Path) -> Path:
    """The three steps; the optimized wheel's path."""
    tool = profdata_tool()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        raw = tmp / "raw"
        print("bench/pgo.py: instrumented build", flush=True)
        instrumented = wheel(tmp / "generate", f"-Cprofile-generate={raw}")
        site = tmp / "site"
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(instrumented)], check=True)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
        for scenario, overrides in TRAINING:
            print(f"bench/pgo.py: training on {scenario.relative_to(ROOT)} {' '.join(overrides)}", flush=True)
            sets = [a for o in overrides for a in ("--set", o)]
            subprocess.run([sys.executable, "-m", "lossless", "run", str(scenario), *sets, "--out", str(tmp / "run"), "-q"], check=True, env=env)
        profile = tmp / "merged.profdata"
        subprocess.run([str(tool), "merge", "-o", str(profile), str(raw)], check=True)
        print("bench/pgo.py: optimized build", flush=True)
        for old in out.glob("lossless-*.whl"):
            old.unlink()
        return wheel(out, f"-Cprofile-use={profile}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "pgo", help="directory for the optimized wheel (default: target/pgo)")
    args = ap.parse_args()
    try:
        print(train_and_build(args.out))
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"bench/pgo.py: `{' '.join(map(str, e.cmd))}` failed (exit status {e.returncode})") from None
    return 0


if __name__ == "__main__":
    sys.exit(main())
