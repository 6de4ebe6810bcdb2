"""SRP paper reproductions (Jiang et al., HPCA 2012): docs/validation.md rows SRP-1 to SRP-8.

Tolerances are stated here and in docs/validation.md before looking at our numbers; they test
the shape of each result (who wins, by roughly how much, where curves cross).
"""

from __future__ import annotations

import statistics
from functools import lru_cache
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..parallel import map_parallel, run_many  # noqa: E402
from ..saturation import overload_throughput  # noqa: E402
from ..transient import average_series, series  # noqa: E402
from . import Reproduction, example, save_figure, target  # noqa: E402

MECHANISMS = ["none", "ecn", "srp"]
LABEL = {"none": "baseline", "ecn": "ECN", "srp": "SRP"}
# SRP paper §4: zero-load in-flight latency between leaves, 4 links + 3 routers + 204.8 ns.
ZERO_LOAD_NS = 410.8
# SRP paper §4: a 2048-bit packet on a 10 Gb/s channel (every channel); 256 hosts.
PACKET_NS = 204.8
LINK_GBPS = 10
HOSTS = 256


def _pct(x: float) -> str:
    return f"{x:+.0%}"


def _fig1(full: bool, jobs):
    window = {"simulation.warmup_ns": 50_000, "simulation.measure_ns": 5_000_000 if full else 500_000}
    cfg = example("srp/fig1_baseline.toml")
    return dict(zip(["none", "srp"], run_many([(cfg, {**window, "cc.mechanism": m}) for m in ["none", "srp"]], jobs)))


def _fig1_plot(runs, out: Path, title: str) -> Path:
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    names = ["S0", "S1", "S2", "S3", "S4", "S5"]
    width = 0.8 / len(runs)
    for i, (m, r) in enumerate(runs.items()):
        a.bar([x + i * width for x in range(6)], [r.sources["accepted"][h] for h in range(6)], width, label=LABEL[m])
        util = r.links.set_index("name")["utilization"]
        b.bar([x + i * width for x in range(3)], [util[f"L{j}>"] for j in range(3)], width, label=LABEL[m])
    a.set_xticks([x + 0.4 - width / 2 for x in range(6)], names)
    a.set_ylabel("throughput (fraction of link rate)")
    b.set_xticks([x + 0.4 - width / 2 for x in range(3)], ["L0", "L1", "L2"])
    b.set_ylabel("channel utilization")
    for ax in (a, b):
        ax.set_ylim(0, 1.05)
        ax.legend()
    fig.suptitle(title)
    return save_figure(fig, out)


@target("srp-1", "Fig. 1: tree saturation on the simple network, baseline")
def srp1(out: Path, full: bool, jobs) -> Reproduction:
    runs = _fig1(full, jobs)
    r = Reproduction("srp-1", "SRP paper Fig. 1 (reconstructed network, docs/validation.md)")
    base = runs["none"]
    s = base.sources["accepted"]
    util = base.links.set_index("name")["utilization"]
    r.check("L2 utilization", "100%", f"{util['L2>']:.1%}", "±0.5 pt", abs(util["L2>"] - 1) <= 0.005)
    ratio = statistics.mean([s[1], s[2]]) / statistics.mean([s[3], s[4], s[5]])
    r.check("S1, S2 vs S3..S5", "half", f"{ratio:.2f}", "0.5 ±0.03", abs(ratio - 0.5) <= 0.03)
    r.check("S0 throughput", "far below link rate", f"{s[0]:.3f}", "< 0.5", s[0] < 0.5)
    r.check("L0, L1 spare capacity", "yes", f"L0 {util['L0>']:.2f}, L1 {util['L1>']:.2f}", "both < 0.9", util["L0>"] < 0.9 and util["L1>"] < 0.9)
    r.figure = _fig1_plot({"none": base}, out, "SRP Fig. 1: baseline")
    return r


@target("srp-4", "Fig. 4: the simple network with SRP")
def srp4(out: Path, full: bool, jobs) -> Reproduction:
    runs = _fig1(full, jobs)
    r = Reproduction("srp-4", "SRP paper Fig. 4 vs Fig. 1 (reconstructed network, docs/validation.md)")
    b, s = runs["none"].sources["accepted"], runs["srp"].sources["accepted"]
    # §5.1's "a 47% increase in the throughput of S0" has two readings (docs/validation.md,
    # SRP-4): 47 points of link rate, which the paper's own equal shares and epsilon cost allow
    # (S0 can take the 0.62 of L0 that S1 and S2 leave), or 47% of S0's baseline, which would
    # leave L0 44% idle under a greedy S0. Both are checked with the tolerance fixed before.
    points = s[0] - b[0]
    r.check("S0 gain, points of link rate", "+47 pts", f"{points * 100:+.0f} pts ({b[0]:.3f} -> {s[0]:.3f})", "+30 to +65 pts", 0.30 <= points <= 0.65)
    gain = s[0] / b[0] - 1
    r.check("S0 gain, relative to its baseline", "+47%", _pct(gain), "+30% to +65%", 0.30 <= gain <= 0.65)
    l2 = lambda run: run.links.set_index("name")["utilization"]["L2>"]  # noqa: E731
    loss = l2(runs["srp"]) / l2(runs["none"]) - 1
    r.check("L2 data throughput", "-5% (epsilon)", _pct(loss), "-8% to -2%", -0.08 <= loss <= -0.02)
    hot = [s[h] for h in range(1, 6)]
    spread = max(hot) / min(hot)
    r.check("five hot-spot senders", "equal shares", f"max/min {spread:.2f}", "max/min <= 1.10", spread <= 1.10)
    r.figure = _fig1_plot(runs, out, "SRP Fig. 4 vs Fig. 1")
    return r


def _hotspot_points(full: bool, mechanisms, background_load: float | None, hot_spot: bool = True):
    window = {"simulation.warmup_ns": 1_000_000 if full else 100_000, "simulation.measure_ns": 50_000_000 if full else 1_000_000}
    points = []
    for m in mechanisms:
        over = {**window, "cc.mechanism": m, "traffic.1.message": {"kind": "fixed", "packets": 8}}
        if background_load is not None:
            over["traffic.1.load"] = background_load
        if not hot_spot:
            over["traffic.0.start_ns"] = 1e12  # the hot spot never starts (after the run ends)
        points.append((example("srp/hotspot40_background.toml"), over))
    return points


@target("srp-5", "Fig. 5: 40:1 hot spot, per-sender throughput and in-flight latency")
def srp5(out: Path, full: bool, jobs) -> Reproduction:
    # §5.2: 40 senders of 8-packet messages to one host for 50 ms; the background (same
    # example) is kept at a light 0.1 so that it does not mask the hot spot.
    runs = dict(zip(MECHANISMS, run_many(_hotspot_points(full, MECHANISMS, 0.1), jobs)))
    r = Reproduction("srp-5", "SRP paper Fig. 5: 40:1 hot spot")
    stats = {}
    for m, run in runs.items():
        sh = run.class_sources("hotspot")
        stats[m] = (sh.mean(), sh.std(ddof=0), run.summary["classes"]["hotspot"]["inflight_latency_ns"]["mean"])
    cv = {m: sd / mean for m, (mean, sd, _) in stats.items()}
    r.check("baseline sender spread", "large", f"std/mean {cv['none']:.2f}", "> 0.3", cv["none"] > 0.3)
    r.check("SRP sender spread", "near zero", f"std/mean {cv['srp']:.3f}", "< 0.05", cv["srp"] < 0.05)
    r.check("ECN sender spread", "between the two", f"std/mean {cv['ecn']:.2f}", "SRP < ECN < baseline", cv["srp"] < cv["ecn"] < cv["none"])
    drop = stats["srp"][0] / stats["none"][0] - 1
    r.check("SRP mean sender throughput", "-5% (epsilon)", _pct(drop), "-8% to -2%", -0.08 <= drop <= -0.02)
    lat = {m: v[2] / ZERO_LOAD_NS for m, v in stats.items()}
    r.check("baseline in-flight latency", "thousands x zero-load", f"{lat['none']:.0f}x", "> 1000x", lat["none"] > 1000)
    r.check("SRP in-flight latency", "close to zero-load", f"{lat['srp']:.1f}x", "< 2x", lat["srp"] < 2)
    r.check("ECN in-flight latency", "far above SRP", f"{lat['ecn']:.0f}x", "> 3x SRP", lat["ecn"] > 3 * lat["srp"])

    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 4))
    ms = list(stats)
    a.bar([LABEL[m] for m in ms], [stats[m][0] for m in ms], yerr=[stats[m][1] for m in ms], capsize=6)
    a.set_ylabel("throughput per sender (fraction of link)")
    b.bar([LABEL[m] for m in ms], [stats[m][2] for m in ms])
    b.set_yscale("log")
    b.axhline(ZERO_LOAD_NS, ls="--", c="gray", label="zero load")
    b.set_ylabel("mean in-flight latency (ns)")
    b.legend()
    fig.suptitle("SRP Fig. 5: 40:1 hot spot (error bars: std dev over senders)")
    r.figure = save_figure(fig, out)
    return r


@target("srp-6", "Fig. 6: background throughput with and without the hot spot")
def srp6(out: Path, full: bool, jobs) -> Reproduction:
    loads = [0.1 * i for i in range(1, 10)] if full else [0.1, 0.3, 0.5, 0.7]
    # ECN needs about 1 ms to throttle the hot-spot senders (§5.3), so even the short mode
    # measures after 1.5 ms.
    short = {"simulation.warmup_ns": 5_000_000 if full else 1_500_000, "simulation.measure_ns": 5_000_000 if full else 200_000}
    points, keys = [], []
    for m in MECHANISMS:
        for hs in (True, False):
            for load in loads:
                for cfg, over in _hotspot_points(full, [m], load, hot_spot=hs):
                    over.update(short)
                    points.append((cfg, over))
                    keys.append((m, hs, load))
    acc = {k: run.summary["classes"]["background"]["accepted"] for k, run in zip(keys, run_many(points, jobs))}
    r = Reproduction("srp-6", "SRP paper Fig. 6: background offered vs accepted")
    base_max = max(acc[("none", True, l)] for l in loads)
    r.check("baseline background with hot spot", "saturates below 10%", f"max accepted {base_max:.3f}", "< 0.10", base_max < 0.10)
    for m in ("srp", "ecn"):
        gap = max(abs(acc[(m, True, l)] - acc[(m, False, l)]) for l in loads)
        r.check(f"{LABEL[m]} background, hot spot vs none", "nearly identical", f"max gap {gap:.3f}", "<= 0.03", gap <= 0.03)

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for m in MECHANISMS:
        for hs, style in ((False, "--"), (True, "-")):
            ax.plot(loads, [acc[(m, hs, l)] for l in loads], style, marker="o", label=f"{LABEL[m]}{' + hot spot' if hs else ''}")
    ax.plot([0, 1], [0, 1], ":", c="gray")
    _finish(ax, "background offered load", "background accepted throughput", "SRP Fig. 6")
    r.figure = save_figure(fig, out)
    return r


def _loads(full: bool) -> list[float]:
    return [round(0.05 * i, 2) for i in range(2, 20)] if full else [0.2, 0.5, 0.7, 0.8, 0.85, 0.9]


@lru_cache(maxsize=None)
def _uniform_sweep(full: bool, jobs, mechanisms: tuple[str, ...] = tuple(MECHANISMS), extra: tuple[str, ...] = ()):
    """Uniform random traffic (4-packet messages unless `extra` overrides say otherwise) at each
    load for each mechanism: shared by SRP-8, -10 and -11 within one process. A mechanism's
    settings among `extra` (`cc.srp.n_min=1`) go to its own runs only."""
    window = [f"simulation.warmup_ns={50_000 if full else 20_000}", f"simulation.measure_ns={1_000_000 if full else 100_000}"]
    keys = [(m, l) for m in mechanisms for l in _loads(full)]
    own = lambda m: [e for e in extra if not e.startswith("cc.") or e.startswith(f"cc.{m}.")]  # noqa: E731
    points = [(example("fattree256_uniform.toml"), [*window, *own(m), f'cc.mechanism="{m}"', f"traffic.0.load={l}"]) for m, l in keys]
    return dict(zip(keys, run_many(points, jobs)))


def _finish(ax, xlabel: str, ylabel: str, title: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    ax.set_title(title)


@target("srp-8", "Fig. 8: latency vs load, uniform random, 4-packet messages")
def srp8(out: Path, full: bool, jobs) -> Reproduction:
    loads = _loads(full)
    runs = _uniform_sweep(full, jobs)
    lat = {k: run.summary["classes"]["uniform"]["packet_latency_ns"]["mean"] for k, run in runs.items()}
    over = {l: lat[("srp", l)] / lat[("none", l)] - 1 for l in loads}
    r = Reproduction("srp-8", "SRP paper Fig. 8: uniform random, 4-packet messages")
    low = min(loads)
    r.check(f"SRP overhead at {low:.0%} load", "negligible", _pct(over[low]), "< +5%", over[low] < 0.05)
    peak = max(loads, key=lambda l: over[l])
    r.check("SRP overhead peak load", "about 85%", f"{peak:.0%}", "70% to 90%", 0.7 <= peak <= 0.9)
    r.check("SRP overhead at its peak", "+25%", _pct(over[peak]), "+10% to +40%", 0.10 <= over[peak] <= 0.40)
    ecn = max(abs(lat[("ecn", l)] / lat[("none", l)] - 1) for l in loads if l <= 0.8)
    r.check("ECN vs baseline up to 80% load", "nearly identical", f"max {ecn:.1%}", "<= 5%", ecn <= 0.05)

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for m in MECHANISMS:
        ax.plot(loads, [lat[(m, l)] for l in loads], marker="o", label=LABEL[m])
    ax.set_yscale("log")
    _finish(ax, "offered load", "mean packet latency (ns)", "SRP Fig. 8")
    r.figure = save_figure(fig, out)
    return r


def _mean_utilization(run) -> float:
    return float(run.links["utilization"].mean())


@target("srp-10", "Fig. 10: channel utilization overhead of SRP, uniform random")
def srp10(out: Path, full: bool, jobs) -> Reproduction:
    loads = _loads(full)
    runs = _uniform_sweep(full, jobs)
    extra = {l: _mean_utilization(runs[("srp", l)]) - _mean_utilization(runs[("none", l)]) for l in loads}
    # SRP forced on 1-packet messages (n_min = 1): "the maximum bandwidth overhead would
    # increase to 20%" (§6.1).
    ones = _uniform_sweep(full, jobs, ("none", "srp"), ('traffic.0.message={kind="fixed",packets=1}', "cc.srp.n_min=1"))
    extra1 = {l: _mean_utilization(ones[("srp", l)]) - _mean_utilization(ones[("none", l)]) for l in loads}
    r = Reproduction("srp-10", "SRP paper Fig. 10: channel utilization, SRP vs baseline")
    peak = max(loads, key=lambda l: extra[l])
    r.check("extra utilization, 4-packet messages", "< 2.5%", f"max {extra[peak]:.1%} at {peak:.0%}", "< 2.5 pt", extra[peak] < 0.025)
    r.check("load of peak overhead", "after 70%", f"{peak:.0%}", ">= 70%", peak >= 0.7)
    m1 = max(extra1.values())
    r.check("extra utilization, 1-packet messages, n_min = 1", "about 20%", f"max {m1:.1%}", "10% to 30%", 0.10 <= m1 <= 0.30)

    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot(loads, [_mean_utilization(runs[("none", l)]) for l in loads], marker="o", label="baseline")
    ax.plot(loads, [_mean_utilization(runs[("srp", l)]) for l in loads], marker="o", label="SRP")
    ax.plot(loads, [_mean_utilization(ones[("srp", l)]) for l in loads], marker="s", ls="--", label="SRP, 1-packet messages, n_min=1")
    _finish(ax, "offered load", "mean channel utilization", "SRP Fig. 10")
    r.figure = save_figure(fig, out)
    return r


@target("srp-11", "Fig. 11: speculative injection and drop rates vs load")
def srp11(out: Path, full: bool, jobs) -> Reproduction:
    loads = _loads(full)
    runs = _uniform_sweep(full, jobs)

    inj = {l: _rate(runs[("srp", l)], "speculative_injected") for l in loads}
    drop = {l: _rate(runs[("srp", l)], "speculative_dropped") for l in loads}
    r = Reproduction("srp-11", "SRP paper Fig. 11: speculative VC")
    peak = max(loads, key=lambda l: inj[l])
    r.check("speculative injection peak", "near 50% load", f"{peak:.0%}", "40% to 60%", 0.4 <= peak <= 0.6)
    r.check("drops rise with load", "yes", f"{drop[min(loads)]:.4f} -> {drop[max(loads)]:.4f}", "highest load > lowest", drop[max(loads)] > drop[min(loads)])
    # "Less than 1.5% of the total bandwidth" (§6.1): every channel's, as the authors' code
    # counts it (docs/validation.md).
    wasted = max(_wasted(runs[("srp", l)]) for l in loads)
    ours = f"max {wasted:.1%} (drops: {max(drop.values()):.1%} of injection)"
    r.check("bandwidth wasted by drops, of the total", "< 1.5%", ours, "< 1.5%", wasted < 0.015)

    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot(loads, [inj[l] for l in loads], marker="o", label="speculative injection")
    ax.plot(loads, [drop[l] for l in loads], marker="s", label="speculative drops")
    _finish(ax, "offered load", "rate (fraction of link rate)", "SRP Fig. 11")
    r.figure = save_figure(fig, out)
    return r


SIZES = [("1", {"kind": "fixed", "packets": 1}), ("2", {"kind": "fixed", "packets": 2}), ("4", {"kind": "fixed", "packets": 4}),
         ("8", {"kind": "fixed", "packets": 8}), ("16", {"kind": "fixed", "packets": 16}), ("32", {"kind": "fixed", "packets": 32}),
         ("64", {"kind": "fixed", "packets": 64}), ("Bi", {"kind": "bimodal", "packets": [4, 64]}), ("Mix", {"kind": "uniform", "min": 4, "max": 64})]


def _saturated_throughput(full: bool, jobs, points: list[dict]) -> list[float]:
    """Each point's saturation throughput on uniform random traffic as the accepted rate under
    overload (`lossless.overload_throughput`): §5.3's bars are network throughput (§6.2:
    "network throughput recovers by 3%"), and the bisection's latency criterion would also count
    SRP's wait for t_s at the source (docs/validation.md, SRP-9)."""
    # SRP's throughput climbs for about 700 us while the sources' backlogs build (more send
    # queues to serve while others wait for t_s): the warm-up must cover it.
    window = {"simulation.warmup_ns": 1_000_000 if full else 300_000, "simulation.measure_ns": 1_000_000 if full else 200_000}
    return map_parallel(lambda over: overload_throughput(example("fattree256_uniform.toml"), overrides={**window, **over}), points, jobs)


@target("srp-9", "Fig. 9: saturation throughput by message size, uniform random")
def srp9(out: Path, full: bool, jobs) -> Reproduction:
    sizes = SIZES if full else [s for s in SIZES if s[0] in ("1", "4", "16", "64", "Bi")]
    keys = [(m, name) for m in MECHANISMS for name, _ in sizes]
    law = dict(sizes)
    sat = dict(zip(keys, _saturated_throughput(full, jobs, [{"cc.mechanism": m, "traffic.0.message": law[name]} for m, name in keys])))
    r = Reproduction("srp-9", "SRP paper Fig. 9: saturation throughput")
    b = lambda n: sat[("none", n)]  # noqa: E731
    r.check("baseline falls as messages grow", "decreases", f"{b('4'):.2f} (4) -> {b('64'):.2f} (64)", "64 below 4 by > 0.05", b("64") < b("4") - 0.05)
    gain_b = sat[("srp", "4")] / b("4") - 1
    gain_e = sat[("srp", "4")] / sat[("ecn", "4")] - 1
    r.check("SRP vs baseline, 4 packets", "+6%", f"{gain_b:+.1%} ({sat[('srp', '4')]:.3f} vs {b('4'):.3f})", "+2% to +10%", 0.02 <= gain_b <= 0.10)
    r.check("SRP vs ECN, 4 packets", "+3%", f"{gain_e:+.1%} (ECN {sat[('ecn', '4')]:.3f})", "0% to +6%", 0.0 <= gain_e <= 0.06)
    high = min(sat[("srp", "64")], sat[("ecn", "64")])
    r.check("SRP, ECN at 64 packets", "stay high, above baseline", f"SRP {sat[('srp', '64')]:.2f}, ECN {sat[('ecn', '64')]:.2f}, base {b('64'):.2f}", "both > baseline + 0.05", high > b("64") + 0.05)
    r.check("below n_min SRP = baseline", "equal", f"1 packet: {sat[('srp', '1')]:.2f} vs {b('1'):.2f}", "within 0.02", abs(sat[("srp", "1")] - b("1")) <= 0.02)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.27
    for i, m in enumerate(MECHANISMS):
        ax.bar([x + i * width for x in range(len(sizes))], [sat[(m, n)] for n, _ in sizes], width, label=LABEL[m])
    ax.set_xticks([x + width for x in range(len(sizes))], [n for n, _ in sizes])
    ax.set_ylim(0, 1)
    _finish(ax, "message size (packets)", "saturation throughput", "SRP Fig. 9")
    r.figure = save_figure(fig, out)
    return r


def _rate(run, counter: str) -> float:
    """A whole-run SRP counter per host per packet time (a fraction of the injection link rate)."""
    s = run.summary
    return run.cc[counter] * PACKET_NS / (HOSTS * (s["warmup_ns"] + s["measure_ns"]))


def _wasted(run) -> float:
    """Bandwidth wasted by dropped speculative packets as the SRP authors' code counts it: each
    dropped packet's bytes times the channels it crossed before its drop, over the capacity of
    every channel (injection, internal, ejection) for the whole run."""
    s = run.summary
    capacity_bytes = len(run.links) * LINK_GBPS * (s["warmup_ns"] + s["measure_ns"]) / 8
    return run.cc["speculative_dropped_channel_bytes"] / capacity_bytes


def _halving(out: Path, r: Reproduction, values, label: str, loads, runs, paper: str) -> Reproduction:
    """Checks that each doubling of `label` roughly halves the peak drop rate, and plots."""
    peak = {v: max(_rate(runs[(v, l)], "speculative_dropped") for l in loads) for v in values}
    for a, b in zip(values, values[1:]):
        ratio = peak[a] / peak[b] if peak[b] > 0 else float("inf")
        r.check(f"peak drop rate, {label} {a} -> {b}", paper, f"/{ratio:.1f}", "/1.4 to /3", 1.4 <= ratio <= 3.0)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for v in values:
        ax.plot(loads, [_rate(runs[(v, l)], "speculative_dropped") for l in loads], marker="o", label=f"{label} = {v}")
    _finish(ax, "offered load", "speculative drop rate (fraction of link rate)", r.title)
    r.figure = save_figure(fig, out)
    return r


@target("srp-12", "Fig. 12: TTW 0.65 to 2.6 us and the speculative drop rate")
def srp12(out: Path, full: bool, jobs) -> Reproduction:
    loads = [0.3, 0.5, 0.6, 0.7, 0.8, 0.9] if full else [0.5, 0.7, 0.8, 0.9]
    ttws = [650, 1300, 2600]
    window = {"simulation.warmup_ns": 50_000 if full else 20_000, "simulation.measure_ns": 1_000_000 if full else 100_000}
    keys = [(t, l) for t in ttws for l in loads]
    points = [(example("fattree256_uniform.toml"), {**window, "cc.mechanism": "srp", "cc.srp.ttw_ns": t, "traffic.0.load": l}) for t, l in keys]
    runs = dict(zip(keys, run_many(points, jobs)))
    r = Reproduction("srp-12", "SRP paper Fig. 12: TTW")
    return _halving(out, r, ttws, "TTW (ns)", loads, runs, "halved")


@target("srp-13", "Fig. 13: n_max and the speculative drop rate, 256-packet messages")
def srp13(out: Path, full: bool, jobs) -> Reproduction:
    loads = [0.3, 0.5, 0.6, 0.7, 0.8, 0.9] if full else [0.5, 0.7, 0.8]
    n_maxes = [8, 16, 32, 64]
    # A 256-packet message takes 52 us: a window must hold many per host before the drop rate
    # settles (short mode's first step: /1.1 over 200 us, /1.3 over 500 us, /1.5 over 1 ms).
    window = {"simulation.warmup_ns": 100_000 if full else 50_000, "simulation.measure_ns": 2_000_000 if full else 1_000_000}
    keys = [(n, l) for n in n_maxes for l in loads]
    points = [
        (example("fattree256_uniform.toml"), {**window, "cc.mechanism": "srp", "cc.srp.n_max": n, "traffic.0.load": l, "traffic.0.message": {"kind": "fixed", "packets": 256}})
        for n, l in keys
    ]
    runs = dict(zip(keys, run_many(points, jobs)))
    r = Reproduction("srp-13", "SRP paper Fig. 13: n_max")
    return _halving(out, r, n_maxes, "n_max", loads, runs, "halved")


@target("srp-14", "Fig. 14: impulse, every node sends one 8-packet message to one host")
def srp14(out: Path, full: bool, jobs) -> Reproduction:
    onset = 1_000_000 if full else 200_000
    end = onset + (400_000 if full else 100_000)
    text = example("fattree256_uniform.toml").read_text() + f"""
[[traffic]]
name = "impulse"
pattern = "burst"
dest = 0
start_ns = {onset}
message = {{ kind = "fixed", packets = 8 }}
"""
    window = {"simulation.warmup_ns": 0, "simulation.measure_ns": end, "simulation.bin_ns": 1_000}
    runs = dict(zip(["none", "srp"], run_many([(text, {**window, "cc.mechanism": m}) for m in ["none", "srp"]], jobs)))

    r = Reproduction("srp-14", "SRP paper Fig. 14: impulse")
    srp, base = (series(runs[m], "uniform", "accepted") for m in ("srp", "none"))
    before = srp[(srp.index >= onset - 50_000) & (srp.index < onset)].mean()
    dip = srp[(srp.index >= onset) & (srp.index < onset + 20_000)].min()
    after = srp[(srp.index >= onset + 20_000)].mean()
    r.check("SRP background throughput dips", "a dip", f"{before:.2f} -> min {dip:.2f}", "min < 0.9 x before", dip < 0.9 * before)
    r.check("then back to normal within microseconds", "a few us", f"{after:.2f} after 20 us", "within ±0.03 of before", abs(after - before) <= 0.03)
    base_after = base[(base.index >= onset + 20_000)].mean()
    r.check("baseline (for contrast)", "(not in the paper)", f"{base_after:.2f} after 20 us", "below SRP", base_after < after)

    fig, ax = plt.subplots(figsize=(7, 4))
    lo = onset - 20_000
    for m, sr in (("none", base), ("srp", srp)):
        sel = sr[sr.index >= lo]
        ax.plot((sel.index - onset) / 1_000, sel.values, label=LABEL[m])
    ax.axvline(0, ls="--", c="gray")
    _finish(ax, "time from the impulse (us)", "background accepted throughput (1 us bins)", "SRP Fig. 14")
    r.figure = save_figure(fig, out)
    return r


@target("srp-7", "Fig. 7: onset of a 40:1 hot spot over uniform 40% load, averaged over seeds")
def srp7(out: Path, full: bool, jobs) -> Reproduction:
    onset, end, seeds, bin_ns = (1_000_000, 3_000_000, 100, 1_000) if full else (200_000, 600_000, 8, 2_000)
    # §5.3: warm up with uniform 40% (8-packet messages); at the onset the 40 hot-spot senders
    # switch from uniform traffic to the hot spot, while the other hosts go on with uniform 40%
    # among themselves throughout: that background is the series shown.
    text = example("srp/hotspot40_background.toml").read_text() + f"""
[[traffic]]
name = "warm-up"
pattern = "uniform"
load = 0.4
stop_ns = {onset}
message = {{ kind = "fixed", packets = 8 }}
sources_from = "hotspot"
"""
    common = {
        "simulation.warmup_ns": 0,
        "simulation.measure_ns": end,
        "simulation.bin_ns": bin_ns,
        "traffic.0.start_ns": onset,
        "traffic.1.load": 0.4,
        "traffic.1.message": {"kind": "fixed", "packets": 8},
    }
    keys = [(m, s) for m in MECHANISMS for s in range(1, seeds + 1)]
    runs = run_many([(text, {**common, "cc.mechanism": m, "simulation.seed": s}) for m, s in keys], jobs)
    by = {m: [r for (mm, _), r in zip(keys, runs) if mm == m] for m in MECHANISMS}
    lat = {m: average_series([series(r, "background", "packet_latency_mean_ns") for r in by[m]]) for m in MECHANISMS}
    acc = {m: average_series([series(r, "background", "accepted") for r in by[m]]) for m in MECHANISMS}

    def window(df, a, b):
        return df[(df.index >= a) & (df.index < b)]["mean"]

    span = (end - onset) / 4
    r = Reproduction("srp-7", f"SRP paper Fig. 7: hot-spot onset, mean of {seeds} seeds")
    for m in MECHANISMS:
        before_lat = window(lat[m], onset - span, onset).mean()
        before_acc = window(acc[m], onset - span, onset).mean()
        peak_lat = window(lat[m], onset, end).max() / before_lat
        dip_acc = window(acc[m], onset, end).min() / before_acc
        end_acc = window(acc[m], end - span, end).mean() / before_acc
        if m == "srp":
            r.check("SRP: background latency after onset", "no observable change", f"peak {peak_lat:.2f}x", "< 1.3x", peak_lat < 1.3)
            r.check("SRP: background throughput after onset", "no observable change", f"min {dip_acc:.2f}x", "> 0.85x", dip_acc > 0.85)
        elif m == "ecn":
            r.check("ECN: latency spike", "large", f"peak {peak_lat:.1f}x", "> 3x", peak_lat > 3)
            r.check("ECN: throughput dip", "large", f"min {dip_acc:.2f}x", "< 0.8x", dip_acc < 0.8)
            if full:
                r.check("ECN: recovered by the end (about 1 ms)", "recovers", f"{end_acc:.2f}x", "0.9x to 1.2x", 0.9 <= end_acc <= 1.2)
        else:
            r.check("baseline: never recovers", "saturated", f"{end_acc:.2f}x at the end", "< 0.5x", end_acc < 0.5)

    fig, (a, b) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for m in MECHANISMS:
        for ax, df in ((a, lat[m]), (b, acc[m])):
            t = (df.index - onset) / 1_000
            ax.plot(t, df["mean"], label=LABEL[m])
            ax.fill_between(t, df["mean"] - df["ci95"], df["mean"] + df["ci95"], alpha=0.25)
    a.set_yscale("log")
    a.set_ylabel("background latency (ns)")
    b.set_ylabel("background accepted")
    b.set_xlabel("time from the hot-spot onset (us)")
    for ax in (a, b):
        ax.axvline(0, ls="--", c="gray")
    a.legend()
    a.set_title(f"SRP Fig. 7 (mean of {seeds} seeds, 95% band)")
    r.figure = save_figure(fig, out)
    return r


@target("srp-15", "§6.2: 4096-node 3-level fat tree, 128 ns channels, 200:1 hot spot")
def srp15(out: Path, full: bool, jobs) -> Reproduction:
    big = {"topology.k": 16, "topology.n": 3, "topology.latency_ns": 128}
    # §6.2: "Using the same set of SRP parameters shown in Table 1, this larger network is able
    # to effectively manage congestion formed by a 200:1 over-subscribed hot-spot".
    window = {"simulation.warmup_ns": 200_000 if full else 30_000, "simulation.measure_ns": 1_000_000 if full else 60_000}
    hs = {**big, **window, "traffic.0.senders": 200, "traffic.0.dest": 1000, "traffic.1.load": 0.3, "traffic.1.message": {"kind": "fixed", "packets": 8}}
    runs = dict(zip(["none", "srp"], run_many([(example("srp/hotspot40_background.toml"), {**hs, "cc.mechanism": m}) for m in ["none", "srp"]], jobs)))
    r = Reproduction("srp-15", "SRP paper §6.2: 4096 nodes")
    bg = {m: runs[m].summary["classes"]["background"] for m in runs}
    r.check("baseline background with the 200:1 hot spot", "(tree saturation)", f"{bg['none']['accepted']:.3f} of {bg['none']['offered']:.2f}", "< offered - 0.05", bg["none"]["accepted"] < bg["none"]["offered"] - 0.05)
    r.check("SRP background with the 200:1 hot spot", "congestion managed", f"{bg['srp']['accepted']:.3f} of {bg['srp']['offered']:.2f}", "within 0.02 of offered", abs(bg["srp"]["accepted"] - bg["srp"]["offered"]) <= 0.02)
    labels, values = ["baseline", "SRP"], [bg["none"]["accepted"], bg["srp"]["accepted"]]
    if full:
        # §6.2: UR 4-packet saturation equal to the baseline; +3% with a TTW matched to the
        # larger network's queuing (we double it).
        base, srp, srp_ttw = _saturated_throughput(full, jobs, [{**big, "cc.mechanism": "none"}, {**big, "cc.mechanism": "srp"}, {**big, "cc.mechanism": "srp", "cc.srp.ttw_ns": 2600}])
        r.check("SRP vs baseline saturation, UR 4 packets", "equal", _pct(srp / base - 1), "within ±3%", abs(srp / base - 1) <= 0.03)
        r.check("with a larger TTW", "+3%", _pct(srp_ttw / base - 1), "0% to +6%", 0 <= srp_ttw / base - 1 <= 0.06)
        labels += ["sat. baseline", "sat. SRP", "sat. SRP, TTW 2.6 us"]
        values += [base, srp, srp_ttw]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bar(labels, values)
    ax.set_ylabel("throughput (fraction of link rate)")
    ax.set_title("SRP §6.2: 4096 nodes, background 0.3 with a 200:1 hot spot")
    r.figure = save_figure(fig, out)
    return r
