"""ACCurate paper reproductions (Karampelas et al.): docs/validation.md rows ACC-3 and ACC-4 on
the paper's two small scenarios (examples/accurate/). Tolerances are stated here and in
docs/validation.md. The paper's baselines pause links (PFC) or run TCP; ours is the same network
without congestion control, lossless by credits.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..parallel import run_many  # noqa: E402
from ..run import Result  # noqa: E402
from ..transient import series  # noqa: E402
from . import Reproduction, example, save_figure, target  # noqa: E402

#: §III: 10 Gb/s links, α = 0.05, RRP 20 us.
LINK_GBPS = 10.0
ALPHA = 0.05
RRP_US = 20.0


def gbps(run: Result, cls: str) -> float:
    """A flow's delivered rate over the measurement window, Gb/s."""
    return run.summary["classes"][cls]["accepted"] * LINK_GBPS


def rate_series(run: Result, cls: str):
    """A flow's delivered rate per time bin, Gb/s, indexed by the bin's start in us."""
    s = series(run, cls, "accepted") * LINK_GBPS
    s.index = s.index / 1e3
    return s


def mean_between(s, start_us: float, stop_us: float) -> float:
    return float(s[(s.index >= start_us) & (s.index < stop_us)].mean())


def settled_after(s, onset_us: float, stop_us: float, level: float, within: float = 0.1) -> float:
    """Microseconds from `onset_us` until the rate stays within `within` of `level` (to `stop_us`)."""
    span = s[(s.index >= onset_us) & (s.index < stop_us)]
    off = span[(span - level).abs() > within * level]
    return float(off.index.max() + (s.index[1] - s.index[0]) - onset_us) if len(off) else 0.0


def _plot(ax, run: Result, flows: list[str], title: str, events_us: list[float] = ()):
    for f in flows:
        s = rate_series(run, f)
        ax.plot(s.index, s.values, label=f, lw=1)
    for t in events_us:
        ax.axvline(t, color="grey", ls=":")
    ax.set(xlabel="time (us)", ylabel="delivered rate (Gb/s)", ylim=(0, LINK_GBPS * 1.05), title=title)
    ax.legend(fontsize=8)


@target("acc-3", "Fig. 3: the parking lot on a fat tree, without CC and with ACCurate")
def acc3(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example("accurate/parking_lot.toml")
    none, acc = run_many([(cfg, {"cc.mechanism": "none"}), (cfg, {})], jobs)
    r = Reproduction("acc-3", "ACCurate paper Fig. 3: the parking lot")
    remote = (gbps(none, "f1") + gbps(none, "f2")) / 2
    ratio = gbps(none, "f3") / remote
    r.check("without CC: the local flow against each remote one", "about 2x", f"{ratio:.2f}x ({gbps(none, 'f3'):.2f} vs {remote:.2f} Gb/s)", "1.7x to 2.3x", 1.7 <= ratio <= 2.3)
    share = LINK_GBPS / 3 * (1 - ALPHA)
    rates = [gbps(acc, f) for f in ("f1", "f2", "f3")]
    worst = max(abs(x / share - 1) for x in rates)
    r.check(
        "ACCurate: every flow at 10/3 Gb/s less the α headroom",
        f"{share:.2f} Gb/s each",
        ", ".join(f"{x:.2f}" for x in rates) + " Gb/s",
        "each within 5%",
        worst <= 0.05,
    )
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    _plot(a, none, ["f1", "f2", "f3"], "without CC (credits)")
    _plot(b, acc, ["f1", "f2", "f3"], "ACCurate")
    r.figure = save_figure(fig, out)
    return r


@target("acc-4", "Fig. 4: a victim flow, max-min rates and recovery, without CC and with ACCurate")
def acc4(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example("accurate/victim.toml")
    none, acc = run_many([(cfg, {"cc.mechanism": "none"}), (cfg, {})], jobs)
    r = Reproduction("acc-4", "ACCurate paper Fig. 4: victim protection and recovery")
    f1_none, f1_acc = rate_series(none, "f1"), rate_series(acc, "f1")
    # f4 is active from 370 to 570 us; the rates are read once the network has settled.
    dragged = mean_between(f1_none, 420, 570)
    r.check("without CC: f1 while f4 is active", "3.33 Gb/s (dragged by HoL blocking)", f"{dragged:.2f} Gb/s", "3.0 to 3.7", 3.0 <= dragged <= 3.7)
    third = LINK_GBPS / 3 * (1 - ALPHA)
    max_min = LINK_GBPS * (1 - ALPHA) - third
    held = mean_between(f1_acc, 420, 570)
    r.check("ACCurate: f1 while f4 is active (max-min: its link less f4's third)", f"6.66 Gb/s ({max_min:.2f} with α)", f"{held:.2f} Gb/s", "within 5% of ours with α", abs(held / max_min - 1) <= 0.05)
    converge = settled_after(f1_acc, 370, 570, max_min)
    r.check("ACCurate: f1 reaches its max-min rate", "within 2 RRPs (40 us)", f"{converge:.0f} us", "<= 60 us", converge <= 60)
    before = mean_between(f1_acc, 300, 370)
    recover_acc = settled_after(f1_acc, 570, 800, before)
    before_none = mean_between(f1_none, 300, 370)
    recover_none = settled_after(f1_none, 570, 800, before_none)
    r.check("ACCurate: f1's rate back after f4 stops", "within 2 RRPs (40 us)", f"{recover_acc:.0f} us", "<= 60 us", recover_acc <= 60)
    r.check("without CC: f1's rate back after f4 stops", "about 150 us (the backlog drains)", f"{recover_none:.0f} us", "longer than ACCurate's", recover_none > recover_acc)
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    flows = ["f1", "f2", "f3", "f4"]
    _plot(a, none, flows, "without CC (credits)", [170, 370, 570])
    _plot(b, acc, flows, "ACCurate", [170, 370, 570])
    r.figure = save_figure(fig, out)
    return r


#: §III-C's 20 KB latency-critical flows: 80 packets of 256 bytes.
CRITICAL_PACKETS = 80


@target("acc-5", "Fig. 5: flow completion times on the multi-node-group network, without CC and with ACCurate")
def acc5(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example("accurate/multinode.toml")
    loads = [0.1, 0.2, 0.24]
    window = {"simulation.measure_ns": 200e6 if full else 50e6}
    keys = [(m, load) for m in ("none", "accurate") for load in loads]
    runs = dict(zip(keys, run_many([(cfg, {**window, "cc.mechanism": m, "traffic.0.load": load}) for m, load in keys], jobs)))
    r = Reproduction("acc-5", "ACCurate paper Fig. 5: critical-flow FCT and tail slowdown")

    def critical(m, load):
        f = runs[(m, load)].flows
        return f[f.packets == CRITICAL_PACKETS]

    mean_us = {k: critical(*k).fct_ns.mean() / 1e3 for k in keys}
    tail = {k: critical(*k).slowdown.quantile(0.999) for k in keys}
    lower = all(mean_us[("accurate", load)] < mean_us[("none", load)] for load in loads)
    r.check(
        "critical flows' mean FCT: ACCurate lowest at every load",
        "lowest",
        ", ".join(f"{mean_us[('accurate', load)]:.0f} vs {mean_us[('none', load)]:.0f} us" for load in loads),
        "lower at 0.1, 0.2, 0.24",
        lower,
    )
    near = mean_us[("none", loads[-1])] / mean_us[("accurate", loads[-1])]
    r.check("critical flows' mean FCT near saturation (0.24): the others against ACCurate", "5x to 10x", f"{near:.1f}x (no CC)", "5x to 10x", 5 <= near <= 10)
    tails = all(tail[("accurate", load)] < tail[("none", load)] for load in loads)
    r.check(
        "critical flows' 99.9th percentile slowdown: ACCurate lowest at every load",
        "lowest (PAUSE about 4x from low loads)",
        ", ".join(f"{tail[('none', load)] / tail[('accurate', load)]:.1f}x" for load in loads) + " (no CC against ACCurate)",
        "lower at 0.1, 0.2, 0.24",
        tails,
    )
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for m in ("none", "accurate"):
        a.plot(loads, [mean_us[(m, load)] for load in loads], marker="o", label=m)
        b.plot(loads, [tail[(m, load)] for load in loads], marker="o", label=m)
    a.set(xlabel="offered load per node", ylabel="mean FCT of 20 KB flows (us)", yscale="log", title="critical flows")
    b.set(xlabel="offered load per node", ylabel="99.9th percentile slowdown, 20 KB flows", yscale="log", title="critical flows' tail")
    a.legend()
    r.figure = save_figure(fig, out)
    return r
