"""Santos, Turner and Janakiraman (INFOCOM 2003) reproductions: docs/validation.md rows SAN-2 to SAN-7
on their two-switch scenario (examples/santos/two_switch.toml). Tolerances are stated here and
in docs/validation.md.
"""

from __future__ import annotations

import statistics
import tomllib
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .. import plot  # noqa: E402
from ..parallel import run_many  # noqa: E402
from ..run import Result  # noqa: E402
from ..sweeps import sweep  # noqa: E402
from . import Reproduction, example, target  # noqa: E402

SCENARIO = "santos/two_switch.toml"
#: §VI-B: 500 ms runs, rates averaged over the last 400 ms (`--full`); short mode 150 ms / 100 ms.
WINDOW = {True: {"simulation.warmup_ns": 100e6, "simulation.measure_ns": 400e6}, False: {"simulation.warmup_ns": 50e6, "simulation.measure_ns": 100e6}}


def flows(remote: int, local: int) -> dict:
    return {"traffic.0.sources": [f"A{i}" for i in range(1, remote + 1)], "traffic.1.sources": [f"B{i}" for i in range(1, local + 1)]}


def link(run: Result, name: str) -> float:
    return float(run.links.set_index("name")["utilization"][name])


def aggregate(run: Result, cls: str) -> float:
    """A class's delivered rate as a fraction of one link."""
    c = run.summary["classes"][cls]
    return c["accepted"] * c["sources"]


def _bars(rows: dict[str, Result], path: Path, title: str) -> Path:
    fig, ax = plt.subplots(figsize=(8, 4))
    names = ["remote", "local", "victim", "root link", "inter-switch link"]
    width = 0.8 / len(rows)
    for i, (label, run) in enumerate(rows.items()):
        values = [aggregate(run, "remote"), aggregate(run, "local"), aggregate(run, "victim"), link(run, "root<"), link(run, "AB>")]
        ax.bar([x + i * width for x in range(len(names))], values, width, label=label)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(names))], names)
    ax.set(ylabel="rate (fraction of a link)", ylim=(0, 1.05), title=title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return plot.save(fig, path)


@target("san-2", "Fig. 2: congestion spreading without CC (L = 5, R = 1)")
def san2(out: Path, full: bool, jobs) -> Reproduction:
    # §III: the victim is active from 40 to 60 ms; the window is that interval.
    over = {**flows(1, 5), "cc.mechanism": "none", "traffic.2.start_ns": 40e6, "traffic.2.stop_ns": 60e6, "simulation.warmup_ns": 40e6, "simulation.measure_ns": 20e6}
    (run,) = run_many([(example(SCENARIO), over)], jobs)
    r = Reproduction("san-2", "Santos et al. Fig. 2")
    victim, ab = aggregate(run, "victim"), link(run, "AB>")
    r.check("victim share of the inter-switch link", "about 15%", f"{victim:.1%}", "10% to 20%", 0.10 <= victim <= 0.20)
    r.check("inter-switch link utilization", "about 30%", f"{ab:.1%}", "25% to 40%", 0.25 <= ab <= 0.40)
    r.check("root link", "saturated", f"{link(run, 'root<'):.1%}", ">= 99%", link(run, "root<") >= 0.99)
    r.figure = _bars({"no CC": run}, out / "san-2.png", "L = 5, R = 1, no congestion control")
    return r


@target("san-3", "Fig. 3: a window of one packet alone")
def san3(out: Path, full: bool, jobs) -> Reproduction:
    # Rates pinned at R_max (R_min = R_max): only the window acts.
    window_only = {**WINDOW[full], "cc.mechanism": "santos", "cc.santos.min_rate": 0.999999}
    # Fig. 3(d): every flow's rate set by hand to its ideal share. The text does not say
    # whether the window of one stays: rate limits alone are checked, both are shown.
    rates = {**flows(5, 5), "traffic.0.rate_limit": 0.1, "traffic.1.rate_limit": 0.1, "traffic.2.rate_limit": 0.5}
    few, many, fixed, fixed_window = run_many(
        [(example(SCENARIO), {**window_only, **flows(1, 5)}), (example(SCENARIO), {**window_only, **flows(5, 5)}),
         (example(SCENARIO), {**WINDOW[full], **rates, "cc.mechanism": "none"}), (example(SCENARIO), {**window_only, **rates})],
        jobs,
    )
    r = Reproduction("san-3", "Santos et al. Fig. 3(b), 3(c), 3(d)")
    r.check("L=5, R=1: inter-switch link", "fully used", f"{link(few, 'AB>'):.1%}", ">= 85%", link(few, "AB>") >= 0.85)
    r.check("L=5, R=1: victim", "takes the idle bandwidth", f"{aggregate(few, 'victim'):.1%}", ">= 70%", aggregate(few, "victim") >= 0.70)
    r.check("L=5, R=5: victim", "congestion spreading again", f"{aggregate(many, 'victim'):.1%}", "< 20%", aggregate(many, "victim") < 0.20)

    def shares(run: Result) -> str:
        return ", ".join(f"{c} {aggregate(run, c):.1%}" for c in ("remote", "local", "victim"))

    lowest = min(aggregate(fixed, c) for c in ("remote", "local", "victim"))
    r.check(
        "L=5, R=5, rates fixed at 1/10 (victim 1/2)", "every flow at its ideal",
        f"{shares(fixed)} (with the window of one: {shares(fixed_window)})", "each class >= 45% (ideal 50%)", lowest >= 0.45,
    )
    bars = {"L=5, R=1": few, "L=5, R=5": many, "L=5, R=5, ideal rates": fixed, "ideal rates + window": fixed_window}
    r.figure = _bars(bars, out / "san-3.png", "Window of one packet; rates fixed by hand")
    return r


@target("san-4", "Fig. 4: marking policies, L = R = 10, LIPD")
def san4(out: Path, full: bool, jobs) -> Reproduction:
    base = {**WINDOW[full], **flows(10, 10), "cc.mechanism": "santos"}
    naive, counters = run_many([(example(SCENARIO), {**base, "cc.santos.marking": m}) for m in ("full_buffer", "counters")], jobs)
    r = Reproduction("san-4", "Santos et al. Fig. 4")
    local_share = aggregate(naive, "local") / link(naive, "root<")
    r.check("naive marking: local flows' share of the root link", "about 90%", f"{local_share:.1%}", "85% to 95%", 0.85 <= local_share <= 0.95)
    remote = {m: aggregate(run, "remote") / link(run, "root<") for m, run in (("naive", naive), ("counters", counters))}
    r.check("cnt1/cnt2 marking: remote flows' share", "much fairer (50% is fair)", f"{remote['counters']:.1%} vs {remote['naive']:.1%} naive", ">= 3x naive", remote["counters"] >= 3 * remote["naive"])
    r.check("cnt1/cnt2 marking: inter-switch link", "highly utilized", f"{link(counters, 'AB>'):.1%}", ">= 80%", link(counters, "AB>") >= 0.80)
    r.check("cnt1/cnt2 marking: victim", "not blocked", f"{aggregate(counters, 'victim'):.1%}", ">= 30%", aggregate(counters, "victim") >= 0.30)
    r.figure = _bars({"full-buffer marking": naive, "cnt1/cnt2 marking": counters}, out / "san-4.png", "L = R = 10, LIPD")
    return r


#: §VI-B, Fig. 5: from R_min = R_max/256 to R_max with 2048-byte packets at 1 GB/s.
CLIMB_MS = {"fimd": 4.2, "lipd": 133.7, "aimd": 133.7}


@target("san-5", "Fig. 5: rate increase from R_min to R_max")
def san5(out: Path, full: bool, jobs) -> Reproduction:
    # One flow (the victim) starting at R_min with no congestion; a wide window so that only
    # the rate limits it; 2048-byte packets as §VI-B's figure.
    points = []
    for response, span in (("fimd", 8e6), ("lipd", 160e6), ("aimd", 160e6)):
        points.append((example(SCENARIO), {
            "cc.mechanism": "santos", "cc.santos.response": response, "cc.santos.initial_rate": 1 / 256, "cc.santos.window_packets": 64,
            "nic.data_packet_bytes": 2048, "traffic.0.start_ns": 1e12, "traffic.1.start_ns": 1e12,
            "simulation.warmup_ns": 0, "simulation.measure_ns": span, "simulation.bin_ns": span / 1600,
        }))
    runs = dict(zip(CLIMB_MS, run_many(points, jobs)))
    # A flow that starts at R_min sends its first packet at once; F_inc(t) counts the first
    # interval at R_min too (256 packet times of 2.048 us): add it.
    first_interval_ms = 256 * 2.048e-3
    r = Reproduction("san-5", "Santos et al. Fig. 5 and §VI-B")
    fig, ax = plt.subplots(figsize=(7, 4))
    for response, run in runs.items():
        ts = run.timeseries[run.timeseries["class"] == "victim"]
        reached = ts[ts["accepted"] >= 0.99]["bin_start_ns"]
        ms = (reached.iloc[0] / 1e6 if len(reached) else float("inf")) + first_interval_ms
        r.check(f"{response.upper()}: time to R_max", f"{CLIMB_MS[response]} ms", f"{ms:.1f} ms", "±5%", abs(ms / CLIMB_MS[response] - 1) <= 0.05)
        ax.plot((ts["bin_start_ns"] / 1e6 + first_interval_ms), ts["accepted"], label=response.upper())
    ax.set(xscale="log", xlabel="time since the rate was R_min (ms)", ylabel="rate (fraction of R_max)", title="F_inc(t), R_min = R_max/256")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    r.figure = plot.save(fig, out / "san-5.png")
    return r


@target("san-6", "Fig. 6: static flows, response functions vs buffer size")
def san6(out: Path, full: bool, jobs) -> Reproduction:
    buffers = [2, 4, 8, 16]
    results = sweep(
        example(SCENARIO), out / "sweep",
        overrides={**WINDOW[full], "cc.mechanism": "santos"},
        product={"cc.santos.response": ["lipd", "fimd", "aimd"], "cc.santos.discrete": [False, True], "switch.input_buffer_packets": buffers},
        jobs=jobs, progress=False,
    )
    key = ["cc.santos.response", "cc.santos.discrete", "switch.input_buffer_packets"]
    links = results.links[results.links["name"].isin(["root<", "AB>"])]
    table = links.pivot_table(index=key, columns="name", values="utilization").rename(columns={"root<": "root", "AB>": "inter_switch"})
    pts = table.reset_index()
    r = Reproduction("san-6", "Santos et al. Fig. 6")
    lipd_root = table.loc[("lipd", False)]["root"]
    r.check("LIPD: root link", "almost 100%", f"{lipd_root.min():.1%} to {lipd_root.max():.1%}", ">= 95% at every size", lipd_root.min() >= 0.95)
    aimd_ab, lipd_ab = table.loc[("aimd", False, 2)]["inter_switch"], table.loc[("lipd", False, 2)]["inter_switch"]
    r.check("AIMD: inter-switch link with small buffers", "low (below LIPD)", f"{aimd_ab:.1%} vs LIPD {lipd_ab:.1%} (2 packets)", "AIMD < LIPD", aimd_ab < lipd_ab)
    diff = (table.xs(True, level=1) - table.xs(False, level=1)).abs().max().max()
    r.check("discrete (256 IPD rates) vs continuous", "nearly identical", f"largest difference {diff:.3f}", "<= 0.03", diff <= 0.03)
    fig = plot.grid(pts.assign(rate=pts["root"]), x="switch.input_buffer_packets", y="cc.santos.response", value="rate", title="root link utilization (mean of continuous and discrete)")
    r.figure = plot.save(fig, out / "san-6.png")
    return r


def _mixed(on_ms: float, persistent: bool, response: str, full: bool, all_dynamic: bool) -> dict:
    """§VI-B.2's scenario as a config dict: L = R = 10 with half of each side (or all) dynamic
    ON-OFF flows of mean ON = mean OFF = `on_ms`."""
    cfg = tomllib.loads(example(SCENARIO).read_text())
    remote, local, victim = cfg["traffic"]
    on_off = {"mean_on_ns": on_ms * 1e6, "mean_off_ns": on_ms * 1e6}
    classes = []
    for base, side in ((remote, "A"), (local, "B")):
        split = 0 if all_dynamic else 5
        if split:
            classes.append({**base, "name": f"static {base['name']}", "sources": [f"{side}{i}" for i in range(1, split + 1)]})
        classes.append({**base, "name": f"dynamic {base['name']}", "sources": [f"{side}{i}" for i in range(split + 1, 11)], "on_off": on_off})
    cfg["traffic"] = classes + [victim]
    cfg["cc"] = {"mechanism": "santos", "santos": {"persistent": persistent, "response": response}}
    # At least 20 ON cycles per dynamic flow (§VI-B.2) in --full; 10 in short mode.
    cfg["simulation"].update(warmup_ns=20e6, measure_ns=max(2 * (20 if full else 10) * on_ms * 1e6, 400e6 if full else 100e6))
    return cfg


def _aggregate_of(run: Result, kind: str) -> float:
    return sum(aggregate(run, name) for name in run.summary["classes"] if name.startswith(kind))


ON_MS = [0.05, 0.2, 0.5, 2.0, 10.0]


@target("san-7", "Fig. 7: dynamic ON-OFF flows, persistent rate state, response functions")
def san7(out: Path, full: bool, jobs) -> Reproduction:
    mixed = [(m, on, _mixed(on, m, "lipd", full, False)) for m in (False, True) for on in ON_MS]
    dynamic = [(resp, on, _mixed(on, True, resp, full, True)) for resp in ("lipd", "fimd", "aimd") for on in ON_MS]
    runs = run_many([(cfg, {}) for *_, cfg in mixed + dynamic], jobs)
    a = {(m, on): run for (m, on, _), run in zip(mixed, runs)}
    b = {(resp, on): run for (resp, on, _), run in zip(dynamic, runs[len(mixed):])}
    r = Reproduction("san-7", "Santos et al. Fig. 7")
    short, long_ = ON_MS[0], ON_MS[-1]
    dyn, sta = _aggregate_of(a[(False, short)], "dynamic"), _aggregate_of(a[(False, short)], "static")
    r.check(f"per-flow state, ON {short} ms: dynamic vs static", "dynamic flows starve static ones", f"{dyn:.2f} vs {sta:.2f}", "dynamic > 2x static", dyn > 2 * sta)
    dyn_p, sta_p = _aggregate_of(a[(True, short)], "dynamic"), _aggregate_of(a[(True, short)], "static")
    r.check(f"persistent state, ON {short} ms", "fair: about 0.5 each", f"{dyn_p:.2f} vs {sta_p:.2f}", "each 0.5 ±0.1", abs(dyn_p - 0.5) <= 0.1 and abs(sta_p - 0.5) <= 0.1)
    dyn_l, sta_l = _aggregate_of(a[(True, long_)], "dynamic"), _aggregate_of(a[(True, long_)], "static")
    r.check(f"persistent state, ON {long_} ms", "static get twice the dynamic", f"{sta_l / max(dyn_l, 1e-9):.2f}x", "1.6x to 2.4x", 1.6 <= sta_l / max(dyn_l, 1e-9) <= 2.4)
    root = {k: link(run, "root<") for k, run in b.items()}
    middle = [on for on in ON_MS if 0.2 <= on <= 2.0]
    r.check("all dynamic, ON 0.2-2 ms: root link", "FIMD best", ", ".join(f"{on}: FIMD {root[('fimd', on)]:.2f} LIPD {root[('lipd', on)]:.2f}" for on in middle), "FIMD >= LIPD", all(root[("fimd", on)] >= root[("lipd", on)] for on in middle))
    r.check(f"all dynamic, ON {long_} ms", "LIPD best (static-like)", f"LIPD {root[('lipd', long_)]:.2f}, FIMD {root[('fimd', long_)]:.2f}", "LIPD >= FIMD", root[("lipd", long_)] >= root[("fimd", long_)])
    gap = statistics.mean(max(root[("lipd", on)], root[("fimd", on)]) - root[("aimd", on)] for on in ON_MS)
    r.check("AIMD below the best", "about 10%", f"{gap:.1%} on average", "5% to 15%", 0.05 <= gap <= 0.15)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for persistent, style in ((False, "--"), (True, "-")):
        label = "persistent" if persistent else "per-flow"
        ax1.plot(ON_MS, [_aggregate_of(a[(persistent, on)], "dynamic") for on in ON_MS], style, marker="o", label=f"dynamic ({label})")
        ax1.plot(ON_MS, [_aggregate_of(a[(persistent, on)], "static") for on in ON_MS], style, marker="s", label=f"static ({label})")
    ax1.set(xscale="log", xlabel="mean ON time (ms)", ylabel="aggregate rate (fraction of the root link)", title="(a) half the flows dynamic")
    for resp in ("lipd", "fimd", "aimd"):
        ax2.plot(ON_MS, [root[(resp, on)] for on in ON_MS], marker="o", label=resp.upper())
    ax2.set(xscale="log", xlabel="mean ON time (ms)", ylabel="root link utilization", title="(b) all dynamic, persistent state")
    for ax in (ax1, ax2):
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    r.figure = plot.save(fig, out / "san-7.png")
    return r
