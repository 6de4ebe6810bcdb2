"""InfiniBand CC reproductions from the thesis (Gran 2013, Papers I-III): docs/validation.md rows IB-T2
to IB-T10 (IB-T11, round-robin shares without CC, is a Rust test: crates/core/tests/fairness.rs).

The thesis adds one flow per second; we add one every 100 ms (short mode) or every second
(`--full`). Phases are long against the 150 us CCTI_Timer, and throughput is averaged over the
second half of each phase, once CC has settled. Tolerances are stated here and in
docs/validation.md.
"""

from __future__ import annotations

import random
import statistics
import tomllib
from pathlib import Path
from typing import Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .. import plot  # noqa: E402
from ..fairness import treatment_variation  # noqa: E402
from ..parallel import run_many  # noqa: E402
from ..run import Result  # noqa: E402
from ..sweeps import sweep  # noqa: E402
from . import FIGURE, Reproduction, example, target  # noqa: E402

#: Host links of the testbed (PCIe-limited hosts, examples/ibcc/testbed_scenario1.toml).
HOST_GBPS = 13.0
CONTRIBUTORS = ["F2", "F3", "F4", "F5"]
#: Two thresholds, a little more than 3 MTU apart (Paper II §IV-B).
HYSTERESIS_BYTES = 6656


def _phase_ns(full: bool) -> float:
    return 1e9 if full else 1e8


def _running(cfg: Path, mechanism: str) -> dict:
    """Example `cfg` (which selects ibcc) as a config dict running `mechanism`: the file's IB CC
    settings, or none of them for the baseline (a config carries settings only for the
    mechanism it selects)."""
    d = tomllib.loads(cfg.read_text())
    if mechanism != d["cc"]["mechanism"]:
        d["cc"] = {"mechanism": mechanism}
    return d


def _staggered(flows: int, full: bool, first: int = 0) -> dict:
    """Overrides that start traffic class `first + i` after i phases (i < `flows`); the window
    is the last phase."""
    p = _phase_ns(full)
    over = {"simulation.warmup_ns": (flows - 1) * p, "simulation.measure_ns": p, "simulation.bin_ns": p / 20}
    for i in range(1, flows):
        over[f"traffic.{first + i}.start_ns"] = i * p
    return over


def _phase_means(run: Result, flows: int, full: bool) -> pd.DataFrame:
    """Gb/s of each flow over the second half of each phase (rows: phase 1..flows)."""
    p = _phase_ns(full)
    ts = run.timeseries.pivot(index="bin_start_ns", columns="class", values="accepted") * HOST_GBPS
    rows = [ts[(ts.index >= k * p + p / 2) & (ts.index < (k + 1) * p)].mean() for k in range(flows)]
    return pd.DataFrame(rows, index=range(1, flows + 1))


def _gbps(run: Result, name: str) -> float:
    return run.summary["classes"][name]["accepted"] * HOST_GBPS


def _series_figure(runs: dict[str, Result], title: str, path: Path) -> Path:
    fig, axes = plt.subplots(1, len(runs), figsize=(6 * len(runs), 4), sharey=True, squeeze=False)
    for ax, (label, run) in zip(axes[0], runs.items()):
        ts = run.timeseries.pivot(index="bin_start_ns", columns="class", values="accepted") * HOST_GBPS
        for c in ts.columns:
            ax.plot(ts.index / 1e9, ts[c], label=c)
        ax.set(title=label, xlabel="time (s)", ylabel="throughput (Gb/s)", ylim=(0, HOST_GBPS * 1.05))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return plot.save(fig, path)


@target("ib-t2", "IB-T2/T3: testbed scenario 1, HoL blocking and parking lot, CC off and on")
def ib_t2(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example("ibcc/testbed_scenario1.toml")
    over = _staggered(5, full)
    off, on = run_many([(_running(cfg, m), over) for m in ("none", "ibcc")], jobs)
    r = Reproduction("ib-t2", "Thesis Paper III Figs 7-8, Paper II Figs 9 and 11: scenario 1")
    shares = {f: _gbps(off, f) / HOST_GBPS for f in CONTRIBUTORS}
    expected = {"F2": 1 / 6, "F3": 1 / 6, "F4": 1 / 3, "F5": 1 / 3}
    worst = max(abs(shares[f] - expected[f]) for f in CONTRIBUTORS)
    r.check("CC off: contributor shares F2..F5", "1/6, 1/6, 1/3, 1/3", ", ".join(f"{shares[f]:.3f}" for f in CONTRIBUTORS), "±0.01 each", worst <= 0.01)
    r.check("CC off: victim F1", "blocked to F2's rate (~2 Gb/s)", f"{_gbps(off, 'F1'):.2f} Gb/s", "within 10% of F2", abs(_gbps(off, "F1") / _gbps(off, "F2") - 1) <= 0.10)
    phases = _phase_means(off, 5, full)
    table = "13 / 13,13 / 6.5x3 / 3.3x3,6.5 / 2.2x3,4.3x2"
    ours = " / ".join(",".join(f"{v:.1f}" for v in row[row > 0.05]) for _, row in phases.iterrows())
    per_phase = [[13], [13, 13], [6.5] * 3, [3.25] * 3 + [6.5], [13 / 6] * 3 + [13 / 3] * 2]
    ok = all(abs(sorted(row[row > 0.05])[i] - sorted(e)[i]) <= 0.3 for (_, row), e in zip(phases.iterrows(), per_phase) for i in range(len(e)))
    r.check("CC off: per-phase throughput (Gb/s)", table, ours, "±0.3 Gb/s", ok)
    r.check("CC on: victim F1", "≈ 13 Gb/s", f"{_gbps(on, 'F1'):.2f} Gb/s", ">= 12.35 (95%)", _gbps(on, "F1") >= 0.95 * HOST_GBPS)
    contributors = [_gbps(on, f) for f in CONTRIBUTORS]
    spread = max(contributors) / min(contributors)
    r.check("CC on: contributors", "≈ equal, 3.25 Gb/s each", ", ".join(f"{v:.2f}" for v in contributors), "max/min <= 1.25", spread <= 1.25)
    # Jain's index over the four flows (each class has one source: its own index is 1).
    jain = sum(contributors) ** 2 / (len(contributors) * sum(v * v for v in contributors))
    r.check("CC on: Jain's index of the contributors", "≈ 1", f"{jain:.3f}", ">= 0.98", jain >= 0.98)
    r.check("CC on: bottleneck use", "≈ 13 Gb/s (SIM)", f"{sum(contributors):.2f} Gb/s", ">= 11.7 (90%)", sum(contributors) >= 0.9 * HOST_GBPS)
    r.figure = _series_figure({"CC off": off, "CC on": on}, "Scenario 1: flows added one per phase", out / FIGURE)
    return r


#: IB-T8's message sizes in 2048-byte packets (Paper III Fig. 9 plots a range; its values are not in
#: the thesis' text): 2 KB to 128 KB.
T8_PACKETS = [1, 4, 16, 64]


@target("ib-t8", "IB-T8: scenario 1's victim against message size, CC off and on")
def ib_t8(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example("ibcc/testbed_scenario1.toml")
    # Every flow from the start: the last phase of IB-T2/T3, settled, at each size.
    window = {"simulation.warmup_ns": _phase_ns(full) / 2, "simulation.measure_ns": _phase_ns(full) / 2}
    starts = {f"traffic.{i}.start_ns": 0 for i in range(5)}
    keys = [(n, m) for n in T8_PACKETS for m in ("none", "ibcc")]
    sizes = lambda n: {f"traffic.{i}.message": {"kind": "fixed", "packets": n} for i in range(5)}  # noqa: E731
    runs = dict(zip(keys, run_many([(_running(cfg, m), {**window, **starts, **sizes(n)}) for n, m in keys], jobs)))
    victim = {k: _gbps(run, "F1") for k, run in runs.items()}
    r = Reproduction("ib-t8", "Thesis Paper III Fig. 9: the victim against message size")
    on = [victim[(n, "ibcc")] for n in T8_PACKETS]
    r.check("CC on: victim at every size", "≈ its uncongested 13 Gb/s", ", ".join(f"{v:.2f}" for v in on) + " Gb/s", ">= 12.35 (95%) at each", min(on) >= 0.95 * HOST_GBPS)
    off = [victim[(n, "none")] for n in T8_PACKETS]
    r.check("CC off: victim at every size", "blocked (IB-T2: 13/6)", ", ".join(f"{v:.2f}" for v in off) + " Gb/s", "<= 3 at each", max(off) <= 3.0)
    gain = min(a / b for a, b in zip(on, off))
    # The victim off is held to F2's share of the bottleneck, 13/6 Gb/s (IB-T2), so CC can
    # raise it at most 6x: the paper's about 10x does not fit its own IB-T2 rates.
    r.check("CC on against off, at every size", "about 10x", f"x{gain:.1f} at the least", ">= x5", gain >= 5)
    fig, ax = plt.subplots(figsize=(6, 4))
    for m, label in (("none", "CC off"), ("ibcc", "CC on")):
        ax.plot([n * 2 for n in T8_PACKETS], [victim[(n, m)] for n in T8_PACKETS], marker="o", label=label)
    ax.set(xscale="log", xlabel="message size (KB)", ylabel="victim F1 (Gb/s)", ylim=(0, HOST_GBPS * 1.05), title="Scenario 1: the victim against message size")
    ax.legend()
    ax.grid(alpha=0.3)
    r.figure = plot.save(fig, out / FIGURE)
    return r


@target("ib-t4", "IB-T4/T5: one switch, flows added one at a time, single vs two thresholds")
def ib_t4(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example("ibcc/one_switch_type1.toml")
    # Class 0 (H1 -> H4) and class 1 (H2) start at 0; H3, H6, H7 one phase apart.
    over = _staggered(4, full, first=1)
    gaps = [0, 1024, 2048, 4096, HYSTERESIS_BYTES]
    seeds = [1, 2, 3, 4] if not full else [1, 2]
    points = [(cfg, {**over, "simulation.seed": s, "cc.ibcc.hysteresis_bytes": g}) for g in gaps for s in seeds]
    runs = run_many(points, jobs)
    names = ["H2", "H3", "H6", "H7"]
    # Each run's shares with all four flows active, per hysteresis.
    shares = {g: [_phase_means(run, 4, full).iloc[-1][names] for (_, o), run in zip(points, runs) if o["cc.ibcc.hysteresis_bytes"] == g] for g in gaps}
    # Fairness is a property of a run (the thesis shows one): which flow a single threshold
    # favours changes with the seed, so shares averaged over seeds first would look fair.
    spread = {g: statistics.mean(s.max() / s.min() for s in shares[g]) for g in gaps}
    r = Reproduction("ib-t4", "Thesis Paper II Figs 3, 4, 6, 7: Type I fairness")
    r.check("single threshold: shares", "unequal", f"max/min {spread[0]:.2f} (mean of {len(seeds)} runs)", "> 1.25", spread[0] > 1.25)
    largest = [s.idxmax() for s in shares[0]]
    r.check("single threshold: the last-added flow gets the most", "H7 largest", f"largest per run: {', '.join(largest)}", "H7 in every run", set(largest) == {"H7"})
    r.check(f"hysteresis {HYSTERESIS_BYTES} B (3.25 MTU): shares", "equal", f"max/min {spread[HYSTERESIS_BYTES]:.2f}", "<= 1.10", spread[HYSTERESIS_BYTES] <= 1.10)
    r.check("hysteresis of 0.5 MTU (1024 B)", "unfair (needs > 1 MTU)", f"max/min {spread[1024]:.2f}", "> 1.25", spread[1024] > 1.25)
    last = {g: sum(shares[g]) / len(shares[g]) for g in gaps}
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(gaps)
    for i, g in enumerate(gaps):
        ax.bar([x + i * width for x in range(4)], last[g].values, width, label=f"hysteresis {g} B")
    ax.set_xticks([x + 0.4 - width / 2 for x in range(4)], names)
    ax.set(ylabel="throughput, all four active (Gb/s)", title="Type I fairness vs hysteresis (mean over seeds)")
    ax.legend(fontsize=8)
    r.figure = plot.save(fig, out / FIGURE)
    return r


@target("ib-t7", "IB-T7: testbed scenario 2, the cost of CC without a hot spot")
def ib_t7(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example("ibcc/testbed_scenario2.toml")
    over = _staggered(3, full)
    over["simulation.bin_ns"] = 1_000_000  # throughput samples of 1 ms, as a perftest report
    off, on = run_many([(_running(cfg, m), over) for m in ("none", "ibcc")], jobs)
    flows = ["F1", "F2", "F3"]
    start = 2 * _phase_ns(full)

    def sd(run: Result) -> float:
        ts = run.timeseries[run.timeseries.bin_start_ns >= start].pivot(index="bin_start_ns", columns="class", values="accepted") * HOST_GBPS
        return statistics.mean(ts[f].std(ddof=0) for f in flows)

    mean_off = statistics.mean(_gbps(off, f) for f in flows)
    mean_on = statistics.mean(_gbps(on, f) for f in flows)
    cost = mean_on / mean_off - 1
    r = Reproduction("ib-t7", "Thesis Paper III Fig 10 and Table II; Paper I Fig 8: scenario 2")
    r.check("CC off: each flow", "10.43 Gb/s (HW; 11.4 in Paper I)", f"{mean_off:.2f} Gb/s (32/3 = 10.67)", "10.67 ±0.1", abs(mean_off - 32 / 3) <= 0.1)
    # The testbed example's threshold (64 KiB) was chosen on these two rows: they are a
    # calibration, and IB-T2/T3, IB-T9 and IB-T10 the check (docs/validation.md).
    r.check("cost of CC (calibrates the threshold)", "-3.5% (Paper III; Paper I HW about -21%)", f"{cost:+.1%}", "-7% to 0%", -0.07 <= cost <= 0.0)
    r.check("jitter (SD of 1 ms samples)", "42x higher with CC", f"{sd(off) * 1000:.0f} -> {sd(on) * 1000:.0f} Mb/s", "at least 10x", sd(on) >= 10 * max(sd(off), 1e-3))
    values = [_gbps(on, f) for f in flows]
    r.check("CC on: still fair (calibrates it too)", "yes", ", ".join(f"{v:.2f}" for v in values), "max/min <= 1.1", max(values) / min(values) <= 1.1)
    r.figure = _series_figure({"CC off": off, "CC on": on}, "Scenario 2: no hot spot", out / FIGURE)
    return r


@target("ib-t9", "IB-T9/T10: CCTI_Timer x Marking_Rate landscape and treatment variation")
def ib_t9(out: Path, full: bool, jobs) -> Reproduction:
    timers_us = [10, 50, 150, 500, 2000]
    rates = [0, 1, 4, 10]
    results = sweep(
        example("ibcc/testbed_scenario1.toml"), out / "sweep",
        overrides=_staggered(5, full),
        product={"cc.ibcc.ccti_timer_ns": [t * 1000 for t in timers_us], "cc.ibcc.marking_rate": rates},
        jobs=jobs, progress=False,
    )
    pts = results.points.assign(gbps=results.points["accepted"] * HOST_GBPS)
    key_t, key_m = "cc.ibcc.ccti_timer_ns", "cc.ibcc.marking_rate"
    victim = pts[pts["class"] == "F1"].set_index([key_m, key_t])["gbps"]
    aggregate = pts[pts["class"].isin(CONTRIBUTORS)].groupby([key_m, key_t])["gbps"].sum()
    start = 4 * _phase_ns(full)
    var = {}
    for p in results.points["point"].unique():
        row = results.points[results.points["point"] == p].iloc[0]
        tv = treatment_variation(results.timeseries[results.timeseries["point"] == p], CONTRIBUTORS, start)
        var[(row[key_m], row[key_t])] = tv.var * HOST_GBPS**2
    var = pd.Series(var)
    r = Reproduction("ib-t9", "Thesis Paper III Figs 11-14: parameter landscape")
    low = min(victim[(m, 10_000)] for m in rates if m >= 1)
    r.check("victim at CCTI_Timer 10 us (MR >= 1)", "low", f"min {low:.2f} Gb/s", "< 6.5 (half)", low < 0.5 * HOST_GBPS)
    r.check("victim at the Table I point (150 us, MR 1)", "≈ 13 (PCIe cap)", f"{victim[(1, 150_000)]:.2f} Gb/s", ">= 12.35", victim[(1, 150_000)] >= 0.95 * HOST_GBPS)
    r.check("low Marking_Rate better at low timers", "yes", f"MR 0: {victim[(0, 50_000)]:.1f}, MR 10: {victim[(10, 50_000)]:.1f} Gb/s at 50 us", "MR 0 > MR 10", victim[(0, 50_000)] > victim[(10, 50_000)])
    flat = aggregate.min() / HOST_GBPS
    r.check("contributors' aggregate", "nearly flat, full use even at 2000 us", f"{aggregate.min():.2f} to {aggregate.max():.2f} Gb/s", "min >= 90% of 13", flat >= 0.9)
    r.check("treatment variation at (150 us, MR 1) vs (2000 us, MR 1)", "lower at the low timer", f"{var[(1, 150_000)]:.3f} vs {var[(1, 2_000_000)]:.3f} Gb/s²", "lower", var[(1, 150_000)] < var[(1, 2_000_000)])
    landscapes = [
        plot.grid(pts[pts["class"] == "F1"], x=key_t, y=key_m, value="gbps", title="victim F1 (Gb/s)"),
        plot.grid(var.rename_axis([key_m, key_t]).rename("var").reset_index(), x=key_t, y=key_m, value="var", title="treatment variation Var (Gb/s²)"),
    ]
    plot.save(landscapes[1], out / "figure-variation.png")
    r.figure = plot.save(landscapes[0], out / FIGURE)
    return r


def _receive_gbps(run: Result, rate_gbps: float) -> pd.Series:
    """Each host's receive rate (Gb/s) from its ejection channel's utilization (data and the few
    control bytes), indexed by host id."""
    links = run.links
    eject = links[links["to"].str.fullmatch(r"h\d+")]
    return pd.Series((eject["utilization"] * rate_gbps).to_numpy(), index=eject["to"].str[1:].astype(int).to_numpy()).sort_index()


@target("ib-t41", "IB-T4.1: 648-node fat tree, silent forest of 8 hot spots")
def ib_t41(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example("ibcc/fattree648_silent_forest.toml")
    window = {"simulation.warmup_ns": 150e6 if full else 30e6, "simulation.measure_ns": 50e6 if full else 10e6, "simulation.bin_ns": 5e6}
    silent = {f"traffic.{i}.start_ns": 1e12 for i in range(8)}  # no hot spots: only the V nodes send
    points = [(_running(cfg, m), {**window, **extra}) for extra in ({}, silent) for m in ("none", "ibcc")]
    off, on, quiet_off, quiet_on = run_many(points, jobs)
    host_gbps = 13.5
    hot = sorted(_dest(cfg, name) for name in off.summary["classes"] if name.startswith("C"))
    rx = {k: _receive_gbps(run, host_gbps) for k, run in (("off", off), ("on", on), ("quiet off", quiet_off), ("quiet on", quiet_on))}
    hot_rate = {k: v[hot].mean() for k, v in rx.items()}
    non = {k: v.drop(hot).mean() for k, v in rx.items()}
    total = {k: v.sum() for k, v in rx.items()}
    r = Reproduction("ib-t41", "Thesis Paper IV Table II: silent forest")
    quiet = rx["quiet on"].mean()
    r.check("no hot spots: average receive (CC off / on)", "2.699 / 2.701 Gb/s", f"{rx['quiet off'].mean():.3f} / {quiet:.3f}", "±3% of 128 V nodes x 13.5 / 648 = 2.667", abs(quiet / (128 * 13.5 / 648) - 1) <= 0.03)
    r.check("CC off: hot spots / non-hot spots", "13.602 / 0.168 Gb/s", f"{hot_rate['off']:.3f} / {non['off']:.3f}", "hot >= 13; non < 0.1 x no-hot-spot", hot_rate["off"] >= 13 and non["off"] < 0.1 * quiet)
    loss = 1 - hot_rate["on"] / hot_rate["off"]
    r.check("CC on: hot spots lose", "2.4% (13.279)", f"{loss:.1%} ({hot_rate['on']:.3f})", "<= 3%", loss <= 0.03)
    gain = non["on"] / non["off"]
    r.check("CC on: non-hot-spot gain", "x13.4 (0.168 -> 2.246)", f"x{gain:.1f} ({non['off']:.3f} -> {non['on']:.3f})", ">= x10", gain >= 10)
    r.check("CC on: non-hot spots vs no hot spots", "within about 20%", f"{non['on'] / quiet:.0%}", ">= 80%", non["on"] >= 0.8 * quiet)
    r.check("total throughput", "216 -> 1544 Gb/s (x7.14)", f"{total['off']:.0f} -> {total['on']:.0f} Gb/s (x{total['on'] / total['off']:.2f})", "x5 to x9", 5 <= total["on"] / total["off"] <= 9)
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, run in (("CC off", off), ("CC on", on)):
        v = run.timeseries[run.timeseries["class"] == "V"]
        ax.plot(v["bin_start_ns"] / 1e6, v["accepted"] * host_gbps, label=f"V nodes, {label}")
    ax.axhline(quiet_on.summary["classes"]["V"]["accepted"] * host_gbps, color="0.6", linestyle=":", label="V nodes, no hot spots")
    ax.set(xlabel="time (ms)", ylabel="throughput per V node (Gb/s)", title="648 nodes, 8 hot spots")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    r.figure = plot.save(fig, out / FIGURE)
    return r


def _dest(cfg: Path, name: str) -> int:
    """The hot spot of traffic class `name` in the scenario file."""
    return next(int(t["dest"]) for t in tomllib.loads(cfg.read_text())["traffic"] if t["name"] == name)


#: Windy-forest hot-spot fractions p (%) run by ib-t42 (the paper sweeps 0..100).
WINDY_P = [0, 10, 30, 60, 90]


def _windy(p: int, mechanism: str, full: bool, b_share: float = 1.0) -> dict:
    """Paper IV's windy forest (§V-B, Frame I generator [Paper IV §IV]) on the silent forest's
    network and hot spots: `b_share` of the other nodes are B nodes, sending p% of their link's
    time to their hot spot and the rest to uniform destinations, as two independent streams with
    periodic arrivals (at most p% of t x capacity to the hot spot after any t, the link idle when
    the hot-spot stream is throttled and the other has used its share). The rest are 80% C and
    20% V nodes [Paper IV §V-B], drawn at random (seeded) as the silent forest's."""
    cfg = _running(example("ibcc/fattree648_silent_forest.toml"), mechanism)
    hot = [t["dest"] for t in cfg["traffic"] if t["name"].startswith("C")]
    b_nodes = [h for h in range(648) if h not in hot]
    message = {"kind": "fixed", "packets": 2}
    silent = []
    if b_share < 1:
        others = b_nodes
        b_nodes = sorted(random.Random(648).sample(others, round(b_share * len(others))))
        rest = [h for h in others if h not in b_nodes]
        v_nodes = sorted(random.Random(649).sample(rest, round(0.2 * len(rest))))
        c_nodes = [h for h in rest if h not in v_nodes]
        silent = [{"name": f"C{i}", "pattern": "hotspot", "dest": h, "sources": c_nodes[i::8], "greedy": True, "message": message} for i, h in enumerate(hot)]
        silent.append({"name": "V", "pattern": "uniform", "sources": v_nodes, "greedy": True, "message": message})
    classes = []
    for i, h in enumerate(hot):
        c = {"name": f"B{i}", "pattern": "hotspot", "dest": h, "sources": b_nodes[i::8], "arrival": "periodic", "message": message, "load": max(p, 1) / 100}
        if p == 0:
            c["start_ns"] = 1e12  # no hot-spot stream
        classes.append(c)
    uniform = {"name": "U", "pattern": "uniform", "sources": b_nodes, "arrival": "periodic", "message": message, "load": max(100 - p, 1) / 100}
    if p == 100:
        uniform["start_ns"] = 1e12
    cfg["traffic"] = classes + [uniform] + silent
    # Short mode warms up 50 ms: the hot-spot streams, throttled hard at the start, need about
    # that long to recover at p = 90 (docs/validation.md).
    cfg["simulation"].update(warmup_ns=150e6 if full else 50e6, measure_ns=50e6 if full else 10e6)
    return cfg


def _run_windy(keys: list[tuple], config: Callable[..., dict], jobs) -> dict[tuple, Result]:
    """Runs `config(*key)` for each windy-forest key (ending in p and the mechanism), costliest
    first, so that the cores finish together: p = 0 (its uniform stream saturates the network),
    then IB CC (its CNPs) by p, then no CC by p. `ib-t42 --full`'s runs took 453 and 176 s at
    p = 0 (IB CC, none), 112 to 38 s with IB CC and 34 to 9 s without at p = 10 to 90. Taken p by p, the 104 s run at p = 60 with IB CC started as the 453 s one ended and
    one core sat idle for the last 51 s: 557 s for the ten by those times, 534 s this way.
    Measured alternated, 551, 567 and 530 s against 581, 558 and 574 s."""
    order = sorted(keys, key=lambda k: (k[-2] != 0, k[-1] == "none", k[-2]))
    return dict(zip(order, run_many([(config(*k), {}) for k in order], jobs)))


@target("ib-t42", "IB-T4.2: 648-node fat tree, windy forest, p sweep")
def ib_t42(out: Path, full: bool, jobs) -> Reproduction:
    runs = _run_windy([(p, m) for p in WINDY_P for m in ("none", "ibcc")], lambda p, m: _windy(p, m, full), jobs)
    host_gbps = 13.5
    hot = [t["dest"] for t in tomllib.loads(example("ibcc/fattree648_silent_forest.toml").read_text())["traffic"] if t["name"].startswith("C")]
    uniform = {k: run.summary["classes"]["U"]["accepted"] * host_gbps for k, run in runs.items()}
    ratio = {p: uniform[(p, "ibcc")] / uniform[(p, "none")] for p in WINDY_P}
    totals = {k: _receive_gbps(run, host_gbps).sum() for k, run in runs.items()}
    gain = {p: totals[(p, "ibcc")] / totals[(p, "none")] for p in WINDY_P}
    hot_rate = {k: _receive_gbps(run, host_gbps)[hot].mean() for k, run in runs.items()}
    r = Reproduction("ib-t42", "Thesis Paper IV Fig. 8: windy forest, 100% B nodes")
    r.check("non-hot-spot ratio CC / no CC at p = 0", "0.97", f"{ratio[0]:.2f}", "0.9 to 1.03", 0.9 <= ratio[0] <= 1.03)
    r.check("... at p = 10", "x4.1", f"x{ratio[10]:.1f}", "x2 to x8", 2 <= ratio[10] <= 8)
    r.check("... at p = 90", "x64.1", f"x{ratio[90]:.1f}", ">= x20", ratio[90] >= 20)
    near = {p: uniform[(p, "ibcc")] / (host_gbps * (1 - p / 100)) for p in WINDY_P if p > 60}
    r.check("CC close to tmax = 13.5 (1 - p) for p > 60", "close", ", ".join(f"p={p}: {v:.0%}" for p, v in near.items()), ">= 80%", all(v >= 0.8 for v in near.values()))
    worst = max(abs(hot_rate[(p, "ibcc")] / hot_rate[(p, "none")] - 1) for p in WINDY_P if p > 0)
    r.check("hot-spot rate unchanged by CC", "unchanged", f"within {worst:.1%}", "<= 5%", worst <= 0.05)
    peak = max(WINDY_P, key=lambda p: gain[p])
    r.check("total throughput gain: peak", "x17 at p = 60, about 1 at p = 0", ", ".join(f"p={p}: x{g:.1f}" for p, g in gain.items()), "peak at p = 60 and >= x8", peak == 60 and gain[60] >= 8)
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for m, label in (("none", "no CC"), ("ibcc", "IB CC")):
        a.plot(WINDY_P, [uniform[(p, m)] for p in WINDY_P], marker="o", label=label)
    a.plot(WINDY_P, [host_gbps * (1 - p / 100) for p in WINDY_P], ":", color="0.6", label="tmax")
    a.set(xlabel="p (% of each node's link time to its hot spot)", ylabel="non-hot-spot throughput per node (Gb/s)", yscale="log")
    b.plot(WINDY_P, [gain[p] for p in WINDY_P], marker="o")
    b.set(xlabel="p (%)", ylabel="total throughput, CC / no CC")
    for ax in (a, b):
        ax.grid(alpha=0.3)
    a.legend(fontsize=8)
    fig.tight_layout()
    r.figure = plot.save(fig, out / FIGURE)
    return r


#: IB-T4.3's share of B nodes (Paper IV Fig. 5: 25%; the rest 80% C and 20% V).
T43_B_SHARE = 0.25


@target("ib-t43", "IB-T4.3: 648-node fat tree, windy forest with 25% B nodes, p sweep")
def ib_t43(out: Path, full: bool, jobs) -> Reproduction:
    runs = _run_windy([(p, m) for p in WINDY_P for m in ("none", "ibcc")], lambda p, m: _windy(p, m, full, T43_B_SHARE), jobs)
    host_gbps = 13.5
    hot = [t["dest"] for t in tomllib.loads(example("ibcc/fattree648_silent_forest.toml").read_text())["traffic"] if t["name"].startswith("C")]
    rx = {k: _receive_gbps(run, host_gbps) for k, run in runs.items()}
    non = {k: v.drop(hot).mean() for k, v in rx.items()}
    hot_rate = {k: v[hot].mean() for k, v in rx.items()}
    total = {p: rx[(p, "ibcc")].sum() / rx[(p, "none")].sum() for p in WINDY_P}
    gain = {p: non[(p, "ibcc")] / non[(p, "none")] for p in WINDY_P}
    # What the non-hot-spot nodes can receive: the V nodes' and the B nodes' uniform traffic,
    # spread over all 648 nodes (Paper IV's tmax: 5.4 Gb/s at p = 0).
    b = round(T43_B_SHARE * 640)
    v = round(0.2 * (640 - b))
    tmax = {p: (v + b * (1 - p / 100)) * host_gbps / 648 for p in WINDY_P}
    r = Reproduction("ib-t43", "Thesis Paper IV Fig. 5: windy forest, 25% B nodes")
    r.check("p = 0: non-hot spots, CC against no CC", "4.75 vs 0.55 Gb/s (x8.6; tmax 5.4)", f"{non[(0, 'ibcc')]:.2f} vs {non[(0, 'none')]:.2f} (x{gain[0]:.1f}; tmax {tmax[0]:.2f})", "x5 to x13", 5 <= gain[0] <= 13)
    share = {p: non[(p, "ibcc")] / tmax[p] for p in WINDY_P}
    r.check("CC against tmax", "88% at p = 0, 60% at 10, about 80% from 60", ", ".join(f"p={p}: {s:.0%}" for p, s in share.items()), ">= 70% at 0 and from 60", share[0] >= 0.7 and all(share[p] >= 0.7 for p in WINDY_P if p >= 60))
    r.check("non-hot-spot gain for p 30 to 90", "x12.9 to x16.3, peak at 60", ", ".join(f"p={p}: x{gain[p]:.1f}" for p in WINDY_P), "x8 to x25 at 30, 60 and 90", all(8 <= gain[p] <= 25 for p in (30, 60, 90)))
    loss = max(1 - hot_rate[(p, "ibcc")] / hot_rate[(p, "none")] for p in WINDY_P)
    r.check("hot spots lose", "2.2% (13.6 -> 13.3)", f"at most {loss:.1%}", "<= 5%", loss <= 0.05)
    r.check("total throughput gain", "x6.0 (p = 100) to x8.7 (p = 60)", ", ".join(f"p={p}: x{g:.1f}" for p, g in total.items()), "x4 to x12 at 30, 60 and 90", all(4 <= total[p] <= 12 for p in (30, 60, 90)))
    fig, (a, c) = plt.subplots(1, 2, figsize=(11, 4))
    for m, label in (("none", "no CC"), ("ibcc", "IB CC")):
        a.plot(WINDY_P, [non[(p, m)] for p in WINDY_P], marker="o", label=label)
    a.plot(WINDY_P, [tmax[p] for p in WINDY_P], ":", color="0.6", label="tmax")
    a.set(xlabel="p (%)", ylabel="non-hot-spot receive per node (Gb/s)", yscale="log")
    a.legend(fontsize=8)
    c.plot(WINDY_P, [total[p] for p in WINDY_P], marker="o")
    c.set(xlabel="p (%)", ylabel="total throughput, CC / no CC")
    for ax in (a, c):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    r.figure = plot.save(fig, out / FIGURE)
    return r


#: IB-T4.4's shares of B nodes [Paper IV Figs. 6, 7]; IB-T4.3 runs 25%, IB-T4.2 100%.
T44_B_SHARES = [0.25, 0.5, 0.75]


@target("ib-t44", "IB-T4.4: 648-node fat tree, windy forests with 25, 50 and 75% B nodes, p sweep")
def ib_t44(out: Path, full: bool, jobs) -> Reproduction:
    runs = _run_windy([(b, p, m) for b in T44_B_SHARES for p in WINDY_P for m in ("none", "ibcc")], lambda b, p, m: _windy(p, m, full, b), jobs)
    total = {(b, p): _receive_gbps(runs[(b, p, "ibcc")], 13.5).sum() / _receive_gbps(runs[(b, p, "none")], 13.5).sum() for b in T44_B_SHARES for p in WINDY_P}
    r = Reproduction("ib-t44", "Thesis Paper IV Figs. 5-7: windy forests, 25 to 75% B nodes")
    curves = "; ".join(f"{b:.0%} B: " + ", ".join(f"x{total[(b, p)]:.1f}" for p in WINDY_P) for b in T44_B_SHARES)
    peaks = {b: max(WINDY_P, key=lambda p: total[(b, p)]) for b in T44_B_SHARES}
    r.check("total throughput gain against p (0, 10, 30, 60, 90): peak", "at p = 60 for every B share", curves, "peak at 60 for 50% and 75% B", peaks[0.5] == 60 and peaks[0.75] == 60)
    # More ∩-shaped: the peak over the ends (p = 0 and 90) grows with the share of B nodes.
    shape = {b: max(total[(b, p)] for p in WINDY_P) / max(total[(b, 0)], total[(b, 90)]) for b in T44_B_SHARES}
    r.check("the curve grows more ∩-shaped with more B nodes", "yes", ", ".join(f"{b:.0%} B: x{v:.2f}" for b, v in shape.items()), "peak over ends rising with B", all(shape[a] < shape[b] for a, b in zip(T44_B_SHARES, T44_B_SHARES[1:])))
    fig, ax = plt.subplots(figsize=(7, 4))
    for b in T44_B_SHARES:
        ax.plot(WINDY_P, [total[(b, p)] for p in WINDY_P], marker="o", label=f"{b:.0%} B")
    ax.set(xlabel="p (%)", ylabel="total throughput, CC / no CC", title="648 nodes, windy forests")
    ax.legend()
    ax.grid(alpha=0.3)
    r.figure = plot.save(fig, out / FIGURE)
    return r


#: Hot-spot lifetimes (ms) run by ib-t45: 10 to 100 moves in the thesis' 0.1 s [Paper IV §V-C].
LIFETIMES_MS = [10, 5, 2, 1]


def _moving(forest: Callable[[str], dict], full: bool, jobs) -> dict:
    """Average receive rate of all nodes (Mb/s) per (lifetime in ms, mechanism) on `forest`
    (a config per mechanism) with its hot spots moving every lifetime. The thesis runs 0.1 s
    from time 0 and averages over all nodes; short mode runs 30 ms."""
    span = 100e6 if full else 30e6
    moving = lambda ms: {f"traffic.{i}.move_every_ns": ms * 1e6 for i in range(8)}  # noqa: E731
    keys = [(ms, m) for ms in LIFETIMES_MS for m in ("none", "ibcc")]
    points = [(forest(m), {"simulation.warmup_ns": 0, "simulation.measure_ns": span, "simulation.bin_ns": span / 20, **moving(ms)}) for ms, m in keys]
    runs = dict(zip(keys, run_many(points, jobs)))
    return {k: _receive_gbps(run, 13.5).mean() * 1000 for k, run in runs.items()}


def _moving_figure(average: dict, title: str, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(7, 4))
    for m, label in (("none", "no CC"), ("ibcc", "IB CC")):
        ax.plot(LIFETIMES_MS, [average[(ms, m)] for ms in LIFETIMES_MS], marker="o", label=label)
    ax.set(xscale="log", xlabel="hot-spot lifetime (ms)", ylabel="average receive rate per node (Mb/s)", title=title)
    ax.legend()
    ax.grid(alpha=0.3)
    return plot.save(fig, path)


@target("ib-t45", "IB-T4.5: 648-node fat tree, moving silent trees")
def ib_t45(out: Path, full: bool, jobs) -> Reproduction:
    average = _moving(lambda m: _running(example("ibcc/fattree648_silent_forest.toml"), m), full, jobs)
    gain = {ms: average[(ms, "ibcc")] / average[(ms, "none")] - 1 for ms in LIFETIMES_MS}
    r = Reproduction("ib-t45", "Thesis Paper IV Fig. 9a: moving silent trees")
    r.check("10 ms lifetime: CC vs no CC", "723 vs 467 Mb/s (+55%)", f"{average[(10, 'ibcc')]:.0f} vs {average[(10, 'none')]:.0f} Mb/s ({gain[10]:+.0%})", "+25% to +90%", 0.25 <= gain[10] <= 0.90)
    r.check("2 ms lifetime", "+10%", f"{gain[2]:+.0%}", "0% to +30%", 0.0 <= gain[2] <= 0.30)
    r.check("1 ms lifetime", "about 0", f"{gain[1]:+.0%}", "-5% to +10%", -0.05 <= gain[1] <= 0.10)
    rising = [average[(ms, "ibcc")] for ms in LIFETIMES_MS]
    r.check("average receive rises as lifetimes shorten", "yes", " -> ".join(f"{v:.0f}" for v in rising) + " Mb/s", "non-decreasing", all(b >= a * 0.98 for a, b in zip(rising, rising[1:])))
    r.figure = _moving_figure(average, "648 nodes, 8 moving hot spots", out / FIGURE)
    return r


def _silent_forest(mechanism: str, v_share: float) -> dict:
    """The silent forest with `v_share` of its 640 non-hot-spot nodes sending uniformly (V): each
    hot spot keeps the first (1 - v_share) x 80 of its C nodes, and the others join V."""
    cfg = _running(example("ibcc/fattree648_silent_forest.toml"), mechanism)
    keep = round((1 - v_share) * 640 / 8)
    v = next(t for t in cfg["traffic"] if t["name"] == "V")
    for t in cfg["traffic"]:
        if t["name"].startswith("C"):
            v["sources"] += t["sources"][keep:]
            t["sources"] = t["sources"][:keep]
    v["sources"].sort()
    return cfg


@target("ib-t46", "IB-T4.6: 648-node fat tree, moving silent trees, 60% V / 40% C")
def ib_t46(out: Path, full: bool, jobs) -> Reproduction:
    average = _moving(lambda m: _silent_forest(m, 0.6), full, jobs)
    gain = {ms: average[(ms, "ibcc")] / average[(ms, "none")] for ms in LIFETIMES_MS}
    r = Reproduction("ib-t46", "Thesis Paper IV Fig. 9b: moving silent trees, 60% V nodes")
    r.check("10 ms lifetime: CC against no CC", "x2.6", f"x{gain[10]:.2f} ({average[(10, 'ibcc')]:.0f} vs {average[(10, 'none')]:.0f} Mb/s)", "x1.8 to x3.5", 1.8 <= gain[10] <= 3.5)
    r.check("1 ms lifetime", "+10%", f"{gain[1] - 1:+.0%}", "0% to +30%", 1.0 <= gain[1] <= 1.3)
    falling = [gain[ms] for ms in LIFETIMES_MS]
    r.check("the gain falls as lifetimes shorten", "yes", " -> ".join(f"x{g:.2f}" for g in falling), "non-increasing", all(b <= a * 1.02 for a, b in zip(falling, falling[1:])))
    r.figure = _moving_figure(average, "648 nodes, 8 moving hot spots, 60% V nodes", out / FIGURE)
    return r


#: IB-T4.7's hot-spot fractions p (%) [Paper IV Fig. 10].
T47_P = [30, 60, 90]


@target("ib-t47", "IB-T4.7: 648-node fat tree, moving windy trees (100% B), p = 30, 60, 90")
def ib_t47(out: Path, full: bool, jobs) -> Reproduction:
    span = 100e6 if full else 30e6
    moving = lambda ms: {f"traffic.{i}.move_every_ns": ms * 1e6 for i in range(8)}  # noqa: E731
    keys = [(p, ms, m) for p in T47_P for ms in LIFETIMES_MS for m in ("none", "ibcc")]
    timing = {"simulation.warmup_ns": 0, "simulation.measure_ns": span, "simulation.bin_ns": span / 20}
    runs = dict(zip(keys, run_many([(_windy(p, m, full), {**timing, **moving(ms)}) for p, ms, m in keys], jobs)))
    average = {k: _receive_gbps(run, 13.5).mean() * 1000 for k, run in runs.items()}
    gain = {(p, ms): average[(p, ms, "ibcc")] / average[(p, ms, "none")] for p in T47_P for ms in LIFETIMES_MS}
    r = Reproduction("ib-t47", "Thesis Paper IV Fig. 10: moving windy trees, 100% B nodes")
    worst = min(gain.values())
    r.check("CC against no CC, every p and lifetime", "CC better everywhere", f"x{worst:.2f} at the least", ">= x1.0", worst >= 1.0)
    falls = {p: [gain[(p, ms)] for ms in LIFETIMES_MS] for p in T47_P}
    r.check(
        "the gain falls as lifetimes shorten",
        "yes, at each p",
        "; ".join(f"p={p}: " + " -> ".join(f"x{g:.2f}" for g in v) for p, v in falls.items()),
        "10 ms gain above 1 ms gain at each p",
        all(v[0] > v[-1] for v in falls.values()),
    )
    fig, ax = plt.subplots(figsize=(7, 4))
    for p in T47_P:
        ax.plot(LIFETIMES_MS, [gain[(p, ms)] for ms in LIFETIMES_MS], marker="o", label=f"p = {p}%")
    ax.axhline(1, color="0.6", ls=":")
    ax.set(xscale="log", xlabel="hot-spot lifetime (ms)", ylabel="average receive, CC / no CC", title="648 nodes, 8 moving windy hot spots")
    ax.legend()
    ax.grid(alpha=0.3)
    r.figure = plot.save(fig, out / FIGURE)
    return r
