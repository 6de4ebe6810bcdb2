"""Congested-flow isolation, thesis Papers V and VI (docs/validation.md, "Isolation").

Paper V's network #3 (examples/isolation/fattree64_hotspot.toml): a 64-node 4-ary 3-tree, 48
nodes sending uniform traffic at 100%, the other 16 sending to 1, 4 or 6 hot spots during
[1, 2] ms. The techniques Paper V §V compares: 1Q, ITh (IB CC on VOQsw switches), FBICM,
CCFIT and VOQnet, with the parameters of Paper V §V-A.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..parallel import run_many  # noqa: E402
from ..run import Result  # noqa: E402
from . import Reproduction, example, save_figure, target  # noqa: E402

NETWORK = "isolation/fattree64_hotspot.toml"
#: The hot senders (a quarter of the nodes, Paper V case #4) and the hot spots, each in another
#: subtree of the last stage. How the thesis assigns senders to hot spots is not given: in turn.
HOT = list(range(0, 64, 4))
SPOTS = [63, 47, 31, 15, 55, 39]
BURST_NS = (1_000_000, 2_000_000)

# Paper V §V-A: ITh's High/Low of 4/2 MTUs over a 64 KB buffer is IB CC's threshold weight 14
# (upper threshold 2/16 of the buffer) with 4 KB of hysteresis; its Marking_Rate of "85% of the
# packets" is not an IB Marking_Rate (a mean gap): we mark every eligible packet; its
# CCTI_Timer is 8 us. CCFIT takes the same, on the fullest root CFQ (`threshold_mode = cfq`).
ITH_CC = {"mechanism": "ibcc", "ibcc": {"threshold": 14, "hysteresis_bytes": 4096, "marking_rate": 0, "ccti_timer_ns": 8_000}}
TECHNIQUES = {
    "1Q": {"switch.input_queues": "fifo"},
    "ITh": {"switch.input_queues": "voq", "cc": ITH_CC},
    "FBICM": {"switch.input_queues": "fbicm"},
    "CCFIT": {"switch.input_queues": "fbicm", "cc": {**ITH_CC, "ibcc": {**ITH_CC["ibcc"], "threshold_mode": "cfq"}}},
    "VOQnet": {"switch.input_queues": "voqnet"},
}


def _traffic(trees: int) -> list[dict]:
    """The example's uniform class, and the hot senders split in turn among `trees` hot spots."""
    uniform = {"name": "uniform", "pattern": "uniform", "load": 1.0, "sources": [h for h in range(64) if h not in HOT]}
    start, stop = BURST_NS
    hot = [
        {"name": f"hot{k}", "pattern": "hotspot", "sources": HOT[k::trees], "dest": SPOTS[k], "greedy": True, "start_ns": start, "stop_ns": stop}
        for k in range(trees)
    ]
    return [uniform, *hot]


def _network_throughput(run: Result) -> pd.Series:
    """Accepted traffic of all classes per bin, as a fraction of what the nodes can take (every
    node is a source of one class)."""
    ts = run.timeseries
    sources = {c: v["sources"] for c, v in run.summary["classes"].items()}
    weighted = ts["accepted"] * ts["class"].map(sources) / sum(sources.values())
    return weighted.groupby(ts["bin_start_ns"]).sum()


def _during(s: pd.Series) -> pd.Series:
    return s[(s.index >= BURST_NS[0]) & (s.index < BURST_NS[1])]


def _level(s: pd.Series) -> float:
    """Mean normalized network throughput during the hot spots."""
    return float(_during(s).mean())


def _throughput_figure(panels: dict[str, dict[str, pd.Series]], title: str, out: Path, shade: tuple[int, int] | None = BURST_NS) -> Path:
    """One panel per entry of `panels` (its title: the techniques' throughput over time), the
    interval `shade` (ns) shaded."""
    fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 4), sharey=True, squeeze=False)
    for ax, (name, lines) in zip(axes[0], panels.items()):
        for k, s in lines.items():
            ax.plot(s.index / 1e6, s.rolling(5, min_periods=1).mean().values, label=k, lw=0.9)
        if shade:
            ax.axvspan(shade[0] / 1e6, shade[1] / 1e6, color="grey", alpha=0.1)
        ax.set(xlabel="time (ms)", title=name)
    axes[0][0].set_ylabel("normalized network throughput")
    axes[0][0].legend()
    fig.suptitle(title)
    return save_figure(fig, out)


@target("ib-t51", "IB-T5.1: Paper V network #3, 1, 4 and 6 hot spots, 1Q/ITh/FBICM/CCFIT/VOQnet")
def ib_t51(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example(NETWORK)
    seeds = [1, 2, 3] if full else [1]
    points = [(trees, tech, seed) for trees in (1, 4, 6) for tech in TECHNIQUES for seed in seeds]
    runs = run_many([(cfg, {"traffic": _traffic(t), **TECHNIQUES[tech], "simulation.seed": s, "simulation.bin_ns": 10_000}) for t, tech, s in points], jobs)
    series = {p: _network_throughput(r) for p, r in zip(points, runs)}
    # Normalized network throughput during the burst, mean over seeds; and its spread over
    # 10-us bins once the first 250 us of the onset have passed (the saw-tooth Paper V sees in
    # ITh, not the fall that every technique but VOQnet shows at the onset).
    level = {(t, k): statistics.mean(_level(series[(t, k, s)]) for s in seeds) for t, k, _ in points}
    settled = {p: s[s.index >= BURST_NS[0] + 250_000] for p, s in series.items()}
    spread = {(t, k): statistics.mean(float(_during(settled[(t, k, s)]).std(ddof=0)) for s in seeds) for t, k, _ in points}
    r = Reproduction("ib-t51", "Thesis Paper V Fig. 8: network throughput during the hot spots, per technique")

    def row(t: int) -> str:
        return ", ".join(f"{k} {level[(t, k)]:.3f}" for k in TECHNIQUES)

    one = {k: level[(1, k)] for k in TECHNIQUES}
    r.check("1 tree: VOQnet at least CCFIT", "VOQnet >= CCFIT", row(1), "VOQnet >= CCFIT - 0.01", one["VOQnet"] >= one["CCFIT"] - 0.01)
    r.check("1 tree: CCFIT as good as FBICM (2 CFQs suffice)", "CCFIT ≈ FBICM", f"{one['CCFIT'] / one['FBICM']:.3f}x", "within 5%", abs(one["CCFIT"] / one["FBICM"] - 1) <= 0.05)
    r.check("1 tree: FBICM far above ITh", "FBICM >> ITh", f"{one['FBICM'] / one['ITh']:.2f}x", "> 1.5x", one["FBICM"] > 1.5 * one["ITh"])
    r.check("1 tree: ITh above 1Q", "ITh > 1Q", f"{one['ITh']:.3f} vs {one['1Q']:.3f}", "higher", one["ITh"] > one["1Q"])
    for t in (4, 6):
        lv = {k: level[(t, k)] for k in TECHNIQUES}
        ordered = lv["VOQnet"] > lv["CCFIT"] > lv["FBICM"]
        r.check(f"{t} trees: VOQnet > CCFIT > FBICM (2 CFQs run out)", "VOQnet > CCFIT > FBICM", row(t), "that order", ordered)
        r.check(f"{t} trees: 1Q worst", "1Q lowest", f"1Q {lv['1Q']:.3f}", "lowest of the five", lv["1Q"] == min(lv.values()))
    saw = max(spread[(t, "ITh")] / spread[(t, "CCFIT")] for t in (4, 6))
    r.check("4 and 6 trees: ITh saw-tooth", "ITh oscillates", f"spread over 10-us bins after the onset up to {saw:.2f}x CCFIT's", "> 1.5x CCFIT's", saw > 1.5)

    panels = {f"{t} hot spot{'s' if t > 1 else ''}": {k: series[(t, k, seeds[0])] for k in TECHNIQUES} for t in (1, 4, 6)}
    r.figure = _throughput_figure(panels, "Thesis Paper V Fig. 8 (network #3, case #4)", out)
    return r


PARKING_LOT = "isolation/parking_lot.toml"
#: Paper V §V compares the four on its configuration #1 (VOQnet is for network #3 only).
PARKING_TECHNIQUES = {k: v for k, v in TECHNIQUES.items() if k != "VOQnet"}


@target("ib-t52", "IB-T5.2: parking-lot fairness and a victim, 1Q/ITh/FBICM/CCFIT (a substitute for Paper V's configuration #1)")
def ib_t52(out: Path, full: bool, jobs) -> Reproduction:
    runs = dict(zip(PARKING_TECHNIQUES, run_many([(example(PARKING_LOT), o) for o in PARKING_TECHNIQUES.values()], jobs)))
    share = {k: {c: v["accepted"] for c, v in run.summary["classes"].items()} for k, run in runs.items()}
    spread = {k: max(v[c] for c in ("X1", "X2", "Y")) / min(v[c] for c in ("X1", "X2", "Y")) for k, v in share.items()}
    r = Reproduction("ib-t52", "Thesis Paper V Fig. 9: shares of the hot spot's link (X1, X2 one input, Y another) and the victim")

    def row(k: str) -> str:
        return ", ".join(f"{c} {v:.3f}" for c, v in share[k].items())

    r.check("1Q: parking lot (Y against X1, X2)", "1/2 vs 1/4 each (Paper II)", row("1Q"), "Y >= 1.5x each X", all(share["1Q"]["Y"] >= 1.5 * share["1Q"][x] for x in ("X1", "X2")))
    r.check("1Q: the victim is blocked", "victim HoL-blocked", f"{share['1Q']['victim']:.3f}", "<= 0.5", share["1Q"]["victim"] <= 0.5)
    r.check("ITh: fair, the victim recovered", "a third each, victim freed", row("ITh"), "max/min <= 1.2, victim >= 0.8", spread["ITh"] <= 1.2 and share["ITh"]["victim"] >= 0.8)
    best = max(v["victim"] for v in share.values())
    r.check("FBICM: the best victim", "victim improves more than with ITh", f"{share['FBICM']['victim']:.3f} (best {best:.3f})", "within 0.01 of the best", share["FBICM"]["victim"] >= best - 0.01)
    r.check("FBICM: the parking lot stays, no less unfair than 1Q", "unfairness increases", f"max/min {spread['FBICM']:.2f} vs 1Q {spread['1Q']:.2f}", ">= 1Q's", spread["FBICM"] >= spread["1Q"] - 0.01)
    r.check("CCFIT: fair, the victim freed", "fair (Fig. 9d)", row("CCFIT"), "max/min <= 1.2, victim >= 0.8", spread["CCFIT"] <= 1.2 and share["CCFIT"]["victim"] >= 0.8)
    fig, ax = plt.subplots(figsize=(8, 4))
    flows = list(share["1Q"])
    width = 0.8 / len(share)
    for i, (k, v) in enumerate(share.items()):
        ax.bar([j + i * width for j in range(len(flows))], [v[c] for c in flows], width, label=k)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(flows))], flows)
    ax.set(ylabel="accepted (of its link)", title="Parking lot and victim (thesis Paper V Fig. 9)")
    ax.legend()
    r.figure = save_figure(fig, out)
    return r


#: Paper V's case #1 (§V-A): the victim F0 sends for the whole 10 ms, the contributors join one
#: by one at 2, 4 and 6 ms, all at the full link rate. On the parking lot the victim is V, the
#: contributors X1 and X2 (on the left switch, as F1 and F2 seem to be: Paper V blames ITh's dip
#: on "congestion detection at the left switch") and Y (on the right).
MS = 1_000_000
STEPS = [
    {"name": "victim", "pattern": "flow", "src": "V", "dest": "W", "greedy": True},
    {"name": "X1", "pattern": "flow", "src": "X1", "dest": "T", "greedy": True, "start_ns": 2 * MS},
    {"name": "X2", "pattern": "flow", "src": "X2", "dest": "T", "greedy": True, "start_ns": 4 * MS},
    {"name": "Y", "pattern": "flow", "src": "Y", "dest": "T", "greedy": True, "start_ns": 6 * MS},
]


@target("ib-t53", "IB-T5.3: light-load case #1 over time, 1Q/ITh/FBICM/CCFIT (a substitute for Paper V's configuration #1)")
def ib_t53(out: Path, full: bool, jobs) -> Reproduction:
    steps = {"traffic": STEPS, "simulation.warmup_ns": 0, "simulation.measure_ns": 10 * MS, "simulation.bin_ns": 100_000}
    runs = run_many([(example(PARKING_LOT), {**steps, **o}) for o in PARKING_TECHNIQUES.values()], jobs)
    series = dict(zip(PARKING_TECHNIQUES, map(_network_throughput, runs)))

    def mean(k: str, a: int, b: int) -> float:
        s = series[k]
        return float(s[(s.index >= a * MS) & (s.index < b * MS)].mean())

    r = Reproduction("ib-t53", "Thesis Paper V Fig. 7a: network throughput as the contributors join (case #1)")
    cc = ("ITh", "FBICM", "CCFIT")
    # Congestion starts at 4 ms, when the second contributor joins: X1 alone fills T's link
    # exactly.
    worst = min(mean(k, 4, 10) for k in cc)
    r.check("1Q struggles once congestion starts", "1Q struggles", f"1Q {mean('1Q', 4, 10):.3f}, the others from {worst:.3f} (4-10 ms)", "< 0.9x each", mean("1Q", 4, 10) < 0.9 * worst)
    others = {a: (mean("FBICM", a, b) + mean("CCFIT", a, b)) / 2 for a, b in ((4, 6), (6, 10))}
    dip = mean("ITh", 4, 6) / others[4]
    after = mean("ITh", 6, 10) / others[6]
    r.check("ITh drops in [4, 6] ms, then recovers", "a drop in [4, 6] ms", f"{dip:.2f}x FBICM's and CCFIT's mean, then {after:.2f}x", "< 0.9x, then >= 0.9x", dip < 0.9 and after >= 0.9)
    late = {k: mean(k, 6, 10) for k in cc}
    spread = max(late.values()) / min(late.values())
    row = ", ".join(f"{k} {v:.3f}" for k, v in late.items())
    r.check("ITh, FBICM and CCFIT similar (after ITh's dip)", "similar results", f"{row} (6-10 ms; max/min {spread:.2f})", "max/min <= 1.1", spread <= 1.1)
    r.figure = _throughput_figure({"case #1": series}, "Thesis Paper V Fig. 7a (parking lot, case #1)", out, shade=None)
    return r


# ---------------------------------------------------------------------------------------------
# Paper VI: EcoCC and HFDI on multi-read-port VOQ switches (examples/isolation/fattree64_ecocc.toml)

PAPER_VI = "isolation/fattree64_ecocc.toml"
#: Table 2's patterns: the share of hot senders (every 8th host, then also the 4th, the 2nd and
#: 6th of each 8) and the number of roots.
PATTERNS = {1: ({0}, 1), 2: ({0, 4}, 4), 3: ({0, 2, 4}, 6)}
#: Paper VI §IV: dList capacity by network size (4-ary n-trees).
DLIST = {3: 8, 4: 16, 5: 32}
DLIST_BY_NODES = [(4**n, d) for n, d in DLIST.items()]
NONE = {"cc": {"mechanism": "none"}}
PAPER_VI_TECHNIQUES = {
    "1VL": {"switch.input_queues": "voq", **NONE},
    "IB-ITh": {"switch.input_queues": "voq"},
    "HFDI": {**NONE},
    "EcoCC": {},
    # One queue per destination of 64 packets of 2 KB (Paper VI §IV: 8 MB per input at 64 nodes).
    "VOQnet": {"switch.input_queues": "voqnet", "switch.voqnet.queue_bytes": 131_072, **NONE},
}


def _paper_vi_traffic(n: int, pattern: int) -> list[dict]:
    hosts = 4**n
    residues, roots = PATTERNS[pattern]
    hot = [h for h in range(hosts) if h % 8 in residues]
    spots = [hosts * f // 8 - 1 for f in (8, 6, 4, 2, 7, 5)][:roots]
    start, stop = BURST_NS
    uniform = {"name": "uniform", "pattern": "uniform", "load": 1.0, "sources": [h for h in range(hosts) if h % 8 not in residues]}
    return [uniform] + [
        {"name": f"hot{k}", "pattern": "hotspot", "sources": hot[k::roots], "dest": spots[k], "greedy": True, "start_ns": start, "stop_ns": stop} for k in range(roots)
    ]


def _paper_vi_runs(sizes: list[int], patterns: list[int], jobs) -> dict:
    """Every technique on every (network size n, pattern): the runs, keyed (n, pattern, technique)."""
    cfg = example(PAPER_VI)
    points = [(n, p, t) for n in sizes for p in patterns for t in PAPER_VI_TECHNIQUES]

    def overrides(n: int, p: int, t: str) -> dict:
        o = {"topology.n": n, "traffic": _paper_vi_traffic(n, p), "simulation.bin_ns": 10_000, **PAPER_VI_TECHNIQUES[t]}
        if t in ("HFDI", "EcoCC"):
            o["switch.hfdi.dlist"] = DLIST[n]
        return o

    return dict(zip(points, run_many([(cfg, overrides(*p)) for p in points], jobs)))


def _isolation(run: Result, counter: str) -> int:
    return (run.summary.get("isolation") or {}).get(counter, 0)


def _paper_vi_figure(runs: dict, cells: list[tuple[int, int]], title: str, out: Path) -> Path:
    panels = {f"{4**n} nodes, pattern #{p}": {t: _network_throughput(runs[(n, p, t)]) for t in PAPER_VI_TECHNIQUES} for n, p in cells}
    return _throughput_figure(panels, title, out)


@target("ib-t61", "IB-T6.1: Paper VI pattern #2 (4 roots) at 64 and 256 nodes (--full: and 1,024), 1VL/IB-ITh/HFDI/EcoCC/VOQnet")
def ib_t61(out: Path, full: bool, jobs) -> Reproduction:
    sizes = [3, 4, 5] if full else [3, 4]
    runs = _paper_vi_runs(sizes, [2], jobs)
    r = Reproduction("ib-t61", "Thesis Paper VI Fig. 7b, e, h: network throughput during the 4 hot spots")
    for n in sizes:
        lv = {t: _level(_network_throughput(runs[(n, 2, t)])) for t in PAPER_VI_TECHNIQUES}
        row = ", ".join(f"{t} {v:.3f}" for t, v in lv.items())
        nodes = 4**n
        r.check(f"{nodes} nodes: EcoCC ≈ VOQnet", "EcoCC ≈ VOQnet", row, "within 5%", abs(lv["EcoCC"] / lv["VOQnet"] - 1) <= 0.05)
        r.check(f"{nodes} nodes: HFDI well below EcoCC (runs out of HPQs)", "significant drop", f"EcoCC {lv['EcoCC'] / lv['HFDI'] - 1:+.0%} over HFDI", ">= +10%", lv["EcoCC"] >= 1.10 * lv["HFDI"])
        r.check(f"{nodes} nodes: HFDI > IB-ITh > 1VL", "HFDI > IB-ITh > 1VL", row, "that order", lv["HFDI"] > lv["IB-ITh"] > lv["1VL"])
        # The supplement's Fig. 10 counts the ports with no free HPQ over time: ours, the inputs
        # with none free on average over the run (and, for the record, those where a packet
        # found none at least once).
        mean = {t: _isolation(runs[(n, 2, t)], "input_ns_without_free_hot_queue") / runs[(n, 2, t)].summary["sim_time_ns"] for t in ("HFDI", "EcoCC")}
        ports = {t: _isolation(runs[(n, 2, t)], "inputs_run_out") for t in ("HFDI", "EcoCC")}
        ratio = mean["HFDI"] / mean["EcoCC"] if mean["EcoCC"] > 0 else float("inf")
        ours = f"{mean['HFDI']:.1f} vs {mean['EcoCC']:.1f} inputs on average ({ratio:.2f}x; ran out at {ports['HFDI']} vs {ports['EcoCC']})"
        r.check(f"{nodes} nodes: HFDI runs out of HPQs at more ports than EcoCC", "many ports vs rarely", ours, ">= 1.5x", ratio >= 1.5)
    r.figure = _paper_vi_figure(runs, [(n, 2) for n in sizes], "Thesis Paper VI Fig. 7 (pattern #2)", out)
    return r


@target("ib-t62", "IB-T6.2: Paper VI patterns #1 (1 root) and #3 (6 roots) at 64 nodes (--full: and 256)")
def ib_t62(out: Path, full: bool, jobs) -> Reproduction:
    sizes = [3, 4] if full else [3]
    runs = _paper_vi_runs(sizes, [1, 3], jobs)
    r = Reproduction("ib-t62", "Thesis Paper VI Fig. 7a, c, d, f: network throughput with 1 and 6 hot spots")
    for n in sizes:
        nodes = 4**n
        one = {t: _level(_network_throughput(runs[(n, 1, t)])) for t in PAPER_VI_TECHNIQUES}
        six = {t: _level(_network_throughput(runs[(n, 3, t)])) for t in PAPER_VI_TECHNIQUES}
        row = lambda lv: ", ".join(f"{t} {v:.3f}" for t, v in lv.items())  # noqa: E731
        near = max(abs(one[t] / one["VOQnet"] - 1) for t in ("EcoCC", "HFDI"))
        r.check(f"{nodes} nodes, 1 root: EcoCC ≈ HFDI ≈ VOQnet", "2 HPQs suffice", row(one), "within 5% of VOQnet", near <= 0.05)
        r.check(f"{nodes} nodes, 1 root: IB-ITh cannot cope, 1VL worst", "EcoCC > IB-ITh > 1VL", row(one), "IB-ITh < 0.95 EcoCC, 1VL lowest", one["IB-ITh"] < 0.95 * one["EcoCC"] and one["1VL"] == min(one.values()))
        r.check(f"{nodes} nodes, 6 roots: EcoCC > HFDI", "EcoCC > HFDI", row(six), ">= +10%", six["EcoCC"] >= 1.10 * six["HFDI"])
        r.check(f"{nodes} nodes, 6 roots: EcoCC moderately close to VOQnet", "moderately close", f"{six['EcoCC'] / six['VOQnet'] - 1:+.1%}", "within 15%", abs(six["EcoCC"] / six["VOQnet"] - 1) <= 0.15)
    r.figure = _paper_vi_figure(runs, [(n, p) for n in sizes for p in (1, 3)], "Thesis Paper VI Fig. 7 (patterns #1 and #3)", out)
    return r


#: Table 3: EcoCC's average gain over each technique, pattern #2 (Paper VI §V-B), by nodes.
TABLE_3 = {64: {"1VL": 0.58, "IB-ITh": 0.55, "HFDI": 0.29, "VOQnet": 0.0}, 256: {"1VL": 0.83, "IB-ITh": 0.75, "HFDI": 0.43, "VOQnet": 0.0}}


def gain(x: pd.Series, y: pd.Series) -> float:
    """The average gain of X over Y (docs/metrics.md): their mean normalized network
    throughput during the hot spots, as a ratio, minus 1."""
    return _level(x) / _level(y) - 1


@target("ib-t63", "IB-T6.3: Paper VI Table 3, EcoCC's average gain over each technique at 64 and 256 nodes")
def ib_t63(out: Path, full: bool, jobs) -> Reproduction:
    runs = _paper_vi_runs([3, 4], [2], jobs)
    r = Reproduction("ib-t63", "Thesis Paper VI Table 3: EcoCC's average gain, pattern #2")
    gains = {}
    for n, nodes in ((3, 64), (4, 256)):
        eco = _network_throughput(runs[(n, 2, "EcoCC")])
        for t, paper in TABLE_3[nodes].items():
            g = gains[(nodes, t)] = gain(eco, _network_throughput(runs[(n, 2, t)]))
            tol = 0.05 if t == "VOQnet" else 0.20
            r.check(f"{nodes} nodes: EcoCC over {t}", f"{paper:+.0%}", f"{g:+.0%}", f"±{tol:.0%} (points)", abs(g - paper) <= tol)
    fig, ax = plt.subplots(figsize=(7, 4))
    labels = [f"{t}\n{nodes}" for nodes in TABLE_3 for t in TABLE_3[nodes]]
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], [100 * TABLE_3[nodes][t] for nodes in TABLE_3 for t in TABLE_3[nodes]], 0.4, label="thesis")
    ax.bar([x + 0.2 for x in xs], [100 * gains[(nodes, t)] for nodes in TABLE_3 for t in TABLE_3[nodes]], 0.4, label="lossless")
    ax.set_xticks(list(xs), labels)
    ax.set(ylabel="EcoCC's gain (%)", title="Thesis Paper VI Table 3 (pattern #2)")
    ax.legend()
    r.figure = save_figure(fig, out)
    return r


def cam_line_cells(nodes: int, dlist: int, ports: int = 64) -> tuple[int, int]:
    """CAM and SRAM cells of one EcoCC CAM line (Paper VI supplement §8, Table 5): op and hops
    (6 CAM cells each for up to 64 ports), Queue (4), a dList of `dlist` destinations of
    log2(nodes) bits; stop, sentStop, propagated (1 SRAM cell each) and a 32-bit timer."""
    bits = max(1, (nodes - 1).bit_length())
    op = max(1, (ports - 1).bit_length())
    return op + 6 + 4 + dlist * bits, 3 + 32


@target("ib-t65", "IB-T6.5: Paper VI supplement Tables 4-5, the cost of EcoCC's CAM lines and of VOQnet")
def ib_t65(out: Path, full: bool, jobs) -> Reproduction:
    r = Reproduction("ib-t65", "Thesis Paper VI supplement §8: CAM lines per input port, against VOQnet's memory")
    for (nodes, dlist), paper in zip(DLIST_BY_NODES, (64, 144, 336)):
        cam, sram = cam_line_cells(nodes, dlist)
        r.check(f"{nodes} nodes: CAM cells per line (dList {dlist})", str(paper), str(cam), "exact", cam == paper)
    cam, sram = cam_line_cells(1024, 32)
    # 9 lines per input of an 8-port switch: one per VOQ (7, no U-turn) and one per HPQ (2).
    per_port = 9 * (cam + sram)
    r.check("1,024 nodes: cells per input port (9 lines)", "3339 (about 418 bytes)", f"{per_port} ({per_port / 8:.0f} bytes)", "exact", per_port == 3339)
    voqnet = {nodes: 64 * 2048 * nodes for nodes in (64, 256, 1024)}
    r.check("VOQnet's memory per input (64 packets of 2 KB per destination)", "8 / 32 / 128 MB", " / ".join(f"{b // 2**20} MB" for b in voqnet.values()), "exact", list(voqnet.values()) == [8 * 2**20, 32 * 2**20, 128 * 2**20])
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar([str(n) for n in voqnet], [b / 1024 for b in voqnet.values()], label="VOQnet (KB per input)")
    ax.bar([str(n) for n, _ in DLIST_BY_NODES], [9 * sum(cam_line_cells(n, d)) / 8 / 1024 for n, d in DLIST_BY_NODES], label="EcoCC's 9 CAM lines (KB per input)")
    ax.set(yscale="log", xlabel="nodes", ylabel="KB per input port", title="Thesis Paper VI supplement §8")
    ax.legend()
    r.figure = save_figure(fig, out)
    return r


