"""CBCM paper reproductions (Kim et al., contention-based congestion management): docs/validation.md
rows CBCM-2 to CBCM-14, on the paper's flattened butterflies in its cycles (examples/cbcm/: 1-ns
cycles, 64-bit flits, 100-cycle channels between routers).

Tolerances test the shape of each result (which scheme wins, by roughly how much); they are
stated here and in docs/validation.md.
"""

from __future__ import annotations

import statistics
from functools import lru_cache
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..parallel import map_parallel, run_many  # noqa: E402
from ..saturation import saturation  # noqa: E402
from ..transient import series  # noqa: E402
from . import Reproduction, example, save_figure, target  # noqa: E402

FB16 = "cbcm/fb16_hotspot.toml"
FB512 = "cbcm/fb512_hotspot.toml"
FB256 = "cbcm/fb256_hotspot.toml"
#: §V-A: the comparisons' parameters in cycles (1 ns). ECN: 90% threshold, IPD+ 400, IPD max
#: 1,500, IPD- 50 every 1,000 cycles, and packets marked when they enter a buffer past the
#: threshold (§III-A: "marks packets that traverse through a congested buffer";
#: `marking = "buffer"`). SRP: TTW 2,000 cycles, ε 0.05, n_min 4 packets; and as §III-B
#: describes the SRP it compares with: "up to 1 message per destination from each source" (a
#: message's reservation waits for the one before it to the same destination,
#: `early_reservation = false`; the SRP authors' own code reserves as messages arrive), and
#: "the source can only transmit one message at any given time" (one waiting for its
#: reservation's start holds back the rest: `nic.arbitration = "fifo"`). §V-A picks the next
#: message round-robin over per-destination queues; `message_round_robin` does that, and two
#: SRP checks fail with it (docs/validation.md). Speculative packets also drop when they face a
#: full output buffer (`early_drop = "output_full"`): the paper's SRP drops in
#: UR-UR traffic, where none of ours waits its TTW.
SETTINGS = {
    "ecn": {"cc.ecn.threshold": 0.9, "cc.ecn.ipd_increment_ns": 400, "cc.ecn.ipd_max_ns": 1500, "cc.ecn.ipd_decrement_ns": 50, "cc.ecn.decrement_timer_ns": 1000, "cc.ecn.marking": "buffer"},
    "srp": {"cc.srp.ttw_ns": 2000, "cc.srp.epsilon": 0.05, "cc.srp.n_min": 4, "cc.srp.early_reservation": False, "cc.srp.early_drop": "output_full", "nic.arbitration": "fifo"},
}
LABEL = {"none": "Baseline", "ideal": "Ideal", "ecn": "ECN", "srp": "SRP", "cbcm": "CBCM"}
ROUTING = {"minimal": "MIN", "ugal": "UGAL"}
#: Footnote 1: §III's 16-node experiments use single-flit packets (one 64-bit flit).
SINGLE_FLIT = {"nic.data_packet_bytes": 8}


def window(full: bool, nodes: int = 16) -> dict:
    """Warm-up and measurement. The paper reports steady state: on the 512-node network a hot
    spot that starts with the run fills the network before it is throttled, and that backlog
    drains through one ejection link for about 100 us, so the warm-up covers it. 16 nodes
    measure 50 us in short mode: 100 us held and missed the same checks in twice the time
    (docs/validation.md)."""
    if full:
        return {"simulation.warmup_ns": 200_000, "simulation.measure_ns": 500_000}
    if nodes <= 16:
        return {"simulation.warmup_ns": 20_000, "simulation.measure_ns": 50_000}
    return {"simulation.warmup_ns": 150_000, "simulation.measure_ns": 40_000}


def drained(nodes: int) -> dict:
    """Warm-up for the steady state under throttling the paper reports: the backlog a hot spot
    builds before it is found (one detection epoch) drains only through what the throttle
    leaves, which takes hundreds of microseconds. 16 nodes, 0.99/N on the data VC (1% of the
    hot spot's link left), 40% background: its latency is 375 ns after 20 us, 269 after 500 us,
    274 after 2 ms. 512 nodes, 63:1 hot spot, tornado at 0.3: its latency settles after about
    300 us."""
    return {"simulation.warmup_ns": 1_000_000 if nodes <= 16 else 400_000}


def scheme(mechanism: str, routing: str) -> dict:
    """Overrides selecting `mechanism` with the paper's parameters, routed by `routing`."""
    return {"cc.mechanism": mechanism, "routing.algorithm": routing, **SETTINGS.get(mechanism, {})}


def name(mechanism: str, routing: str) -> str:
    return f"{LABEL[mechanism]}({ROUTING[routing]})"


def latency(run, cls: str) -> float:
    return run.summary["classes"][cls]["packet_latency_ns"]["mean"]


def accepted(run, cls: str) -> float:
    return run.summary["classes"][cls]["accepted"]


def _saturations(config: Path, points: list[dict], traffic: int, jobs) -> list[float]:
    """Saturation throughput of class `traffic` for each set of overrides: bisection on its load,
    saturated when it accepts 2% less than offered or its latency passes 5x that at 2% load
    (0 when it is saturated even there)."""

    def one(over: dict) -> float:
        try:
            return saturation(config, overrides=over, traffic=traffic, latency_factor=5.0, low=0.02, resolution=0.02).throughput
        except ValueError:
            return 0.0

    return map_parallel(one, points, jobs)


def _paired_bars(labels: list[str], series: dict[str, list[float]], ylabel: str, title: str, out: Path) -> Path:
    """A bar per label for each of two series, side by side; the figure's path."""
    fig, ax = plt.subplots(figsize=(7, 4))
    x = range(len(labels))
    for offset, (label, values) in zip((-0.2, 0.2), series.items()):
        ax.bar([i + offset for i in x], values, 0.4, label=label)
    ax.set_xticks(list(x), labels)
    ax.set(ylabel=ylabel, title=title)
    ax.legend()
    return save_figure(fig, out)


def _curves(ax, loads, lat: dict, title: str) -> None:
    for label, values in lat.items():
        ax.plot(loads, values, marker="o", label=label)
    ax.set(xlabel="offered load (flits/cycle/node)", ylabel="mean packet latency (cycles)", title=title, yscale="log")
    ax.legend(fontsize=7)


# ---------------------------------------------------------------------------------------------
# §III: the limitations of adaptive routing, ECN and SRP on the 16-node network


@target("cbcm-2", "Fig. 2: 4:1 hot spot + uniform on the 16-node flattened butterfly, MIN vs UGAL")
def cbcm2(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example(FB16)
    schemes = [(m, rt) for m in ("none", "ideal") for rt in ("minimal", "ugal")]
    loads = [0.02, 0.2, 0.4, 0.6, 0.8]
    keys = [(m, rt, l) for m, rt in schemes for l in loads]
    runs = dict(zip(keys, run_many([(cfg, {**window(full), **SINGLE_FLIT, **scheme(m, rt), "traffic.1.load": l}) for m, rt, l in keys], jobs)))
    sat = dict(zip(schemes, _saturations(cfg, [{**window(full), **SINGLE_FLIT, **scheme(m, rt)} for m, rt in schemes], 1, jobs)))
    lat = {k: latency(r, "uniform") for k, r in runs.items()}
    r = Reproduction("cbcm-2", "CBCM paper Fig. 2: uniform traffic beside a 4:1 hot spot")
    drop = sat[("none", "ugal")] / sat[("none", "minimal")] - 1
    r.check("Baseline: UGAL's saturation against MIN's", "-23%", f"{drop:+.0%} ({sat[('none', 'ugal')]:.2f} vs {sat[('none', 'minimal')]:.2f})", "-10% to -40%", -0.40 <= drop <= -0.10)
    zero = lat[("none", "ugal", loads[0])] / lat[("none", "minimal", loads[0])] - 1
    r.check("Baseline: UGAL's zero-load latency against MIN's", "+46%", f"{zero:+.0%}", "+20% to +80%", 0.20 <= zero <= 0.80)
    mid = lat[("none", "ugal", 0.4)] / lat[("none", "minimal", 0.4)]
    r.check("Baseline: UGAL's latency at 40% load against MIN's", "worse (UGAL spreads the hot spot)", f"{mid:.2f}x", "> 1.2x", mid > 1.2)
    ideal = min(sat[("ideal", "minimal")], sat[("ideal", "ugal")])
    r.check("Ideal's saturation, MIN and UGAL", "high for both", f"{sat[('ideal', 'minimal')]:.2f}, {sat[('ideal', 'ugal')]:.2f}", ">= Baseline(MIN)'s", ideal >= sat[("none", "minimal")])
    gain = sat[("ideal", "ugal")] / sat[("ideal", "minimal")] - 1
    r.check("Ideal(UGAL) against Ideal(MIN) on uniform traffic", "no benefit", f"{gain:+.0%}", "within 10%", abs(gain) <= 0.10)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    _curves(ax, loads, {name(m, rt): [lat[(m, rt, l)] for l in loads] for m, rt in schemes}, "CBCM Fig. 2")
    r.figure = save_figure(fig, out)
    return r


#: Fig. 3's permutation, i -> i + 4 mod 16 (router i to router i + 1).
PERMUTATION = {"traffic.1.pattern": "shift", "traffic.1.shift": 4}


@target("cbcm-3", "Fig. 3: worst-case permutation, alone and with a 4:1 hot spot; ECN and SRP")
def cbcm3(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example(FB16)
    schemes = [(m, rt) for m in ("ideal", "ecn", "srp") for rt in ("minimal", "ugal")]
    alone = {**window(full), **SINGLE_FLIT, "traffic": [{"name": "permutation", "pattern": "shift", "shift": 4, "load": 0.1}]}
    combined = {**window(full), **SINGLE_FLIT, **PERMUTATION}
    sat_alone = dict(zip(schemes, _saturations(cfg, [{**alone, **scheme(m, rt)} for m, rt in schemes], 0, jobs)))
    sat_hot = dict(zip(schemes, _saturations(cfg, [{**combined, **scheme(m, rt)} for m, rt in schemes], 1, jobs)))
    r = Reproduction("cbcm-3", "CBCM paper Fig. 3: worst-case permutation (i -> i + 4)")
    gap = sat_alone[("ecn", "ugal")] / sat_alone[("ideal", "ugal")] - 1
    r.check("permutation alone: ECN(UGAL) against Ideal(UGAL)", "within 8%", f"{gap:+.0%}", "within 15%", abs(gap) <= 0.15)
    ratio = sat_hot[("ideal", "ugal")] / max(sat_hot[("ecn", "ugal")], 1e-9)
    r.check("with the hot spot: Ideal(UGAL) against ECN(UGAL)", "about 2x", f"{ratio:.2f}x", "1.4x to 3x", 1.4 <= ratio <= 3.0)
    r.check(
        "with the hot spot: ECN(UGAL) against ECN(MIN)", "worse",
        f"{sat_hot[('ecn', 'ugal')]:.2f} vs {sat_hot[('ecn', 'minimal')]:.2f}", "lower", sat_hot[("ecn", "ugal")] < sat_hot[("ecn", "minimal")],
    )
    early = sat_alone[("srp", "ugal")] / sat_alone[("ideal", "ugal")]
    r.check("permutation alone: SRP(UGAL) saturates early", "well below Ideal(UGAL)", f"{early:.2f}x Ideal(UGAL)", "< 0.8x", early < 0.8)
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    labels = [name(m, rt) for m, rt in schemes]
    a.bar(labels, [sat_alone[s] for s in schemes])
    b.bar(labels, [sat_hot[s] for s in schemes])
    for ax, title in ((a, "permutation alone"), (b, "with a 4:1 hot spot")):
        ax.set(ylabel="saturation throughput (flits/cycle/node)", title=title)
        ax.tick_params(axis="x", rotation=45)
    r.figure = save_figure(fig, out)
    return r


#: Fig. 5(b): half of each router's nodes send 4-packet messages among themselves (UR1), the other
#: half single packets among themselves at 90% (UR2).
def _ur_ur(load: float) -> dict:
    return {
        "traffic": [
            {"name": "ur1", "pattern": "uniform", "load": load, "sources": [h for h in range(16) if h % 4 < 2]},
            {"name": "ur2", "pattern": "uniform", "load": 0.9, "sources": [h for h in range(16) if h % 4 >= 2], "message": {"kind": "fixed", "packets": 1}},
        ]
    }


UNIFORM = {"traffic": [{"name": "uniform", "pattern": "uniform", "load": 0.1}]}


@target("cbcm-5", "Fig. 5: SRP on uniform traffic and on UR1 (4-packet) + UR2 (1-packet, 90%)")
def cbcm5(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example(FB16)
    loads = [0.1, 0.3, 0.5, 0.7]
    schemes = [(m, rt) for m in ("none", "srp") for rt in ("minimal", "ugal")]
    keys = [(m, rt, l) for m, rt in schemes for l in loads]
    uniform = dict(zip(keys, run_many([(cfg, {**window(full), **UNIFORM, **scheme(m, rt), "traffic.0.load": l}) for m, rt, l in keys], jobs)))
    urur = dict(zip(schemes, run_many([(cfg, {**window(full), **_ur_ur(0.6), **scheme(m, rt)}) for m, rt in schemes], jobs)))
    r = Reproduction("cbcm-5", "CBCM paper Fig. 5: SRP's latency overhead")
    worst = max(latency(uniform[("srp", rt, l)], "uniform") / latency(uniform[("none", rt, l)], "uniform") for rt in ROUTING for l in loads[:-1])
    r.check("uniform: SRP's latency against the baseline's, intermediate loads", "up to 2.45x", f"up to {worst:.2f}x", "1.5x to 3.5x", 1.5 <= worst <= 3.5)
    srp = urur[("srp", "ugal")].summary["cc"]
    dropped = srp["speculative_dropped"] / max(srp["speculative_injected"], 1)
    r.check("UR-UR at 0.6, SRP(UGAL): speculative packets dropped", "about 15%", f"{dropped:.0%}", "5% to 30%", 0.05 <= dropped <= 0.30)
    slow = latency(urur[("srp", "ugal")], "ur1") / latency(urur[("none", "ugal")], "ur1")
    r.check("UR-UR at 0.6: UR1 latency, SRP(UGAL) against the baseline", "4.4x", f"{slow:.2f}x", "2x to 8x", 2.0 <= slow <= 8.0)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    _curves(ax, loads, {name(m, rt): [latency(uniform[(m, rt, l)], "uniform") for l in loads] for m, rt in schemes}, "CBCM Fig. 5(a): uniform")
    r.figure = save_figure(fig, out)
    return r


# ---------------------------------------------------------------------------------------------
# §V-B: CBCM on the 512-node network


@lru_cache(maxsize=None)
def _fb512(full: bool, jobs, pattern: str, schemes: tuple, loads: tuple) -> dict:
    """Runs of the 512-node network at each load for each (mechanism, routing): `pattern` is
    `uniform` (the hot-spot class stopped), `hotspot` (Fig. 8(b)) or `urur` (Fig. 8(c))."""
    cfg = example(FB512)
    base = {**window(full, 512)}
    keys = [(m, rt, l) for m, rt in schemes for l in loads]

    def point(m, rt, l):
        if pattern == "urur":
            ur1 = [h for h in range(512) if h % 8 < 4]
            traffic = [
                {"name": "ur1", "pattern": "uniform", "load": l, "sources": ur1},
                {"name": "ur2", "pattern": "uniform", "load": 0.9, "sources": [h for h in range(512) if h % 8 >= 4], "message": {"kind": "fixed", "packets": 1}},
            ]
            return {**base, **scheme(m, rt), "traffic": traffic}
        if pattern == "uniform":
            return {**base, **scheme(m, rt), "traffic": [{"name": "uniform", "pattern": "uniform", "load": l}]}
        return {**base, **scheme(m, rt), "traffic.1.load": l}

    return dict(zip(keys, run_many([(cfg, point(*k)) for k in keys], jobs)))


@target("cbcm-8", "Fig. 8: 512-node 2D flattened butterfly: uniform, uniform + 40:1 hot spot, UR-UR")
def cbcm8(out: Path, full: bool, jobs) -> Reproduction:
    loads = (0.1, 0.3, 0.5)
    schemes = (("ideal", "ugal"), ("cbcm", "ugal"), ("srp", "ugal"), ("none", "minimal"))
    ur = _fb512(full, jobs, "uniform", schemes, loads)
    hs = _fb512(full, jobs, "hotspot", schemes, loads)
    urur = _fb512(full, jobs, "urur", schemes, (0.4,))
    r = Reproduction("cbcm-8", "CBCM paper Fig. 8: 512-node flattened butterfly")

    def near(runs, cls, ls):
        return max(latency(runs[("cbcm", "ugal", l)], cls) / latency(runs[("ideal", "ugal", l)], cls) - 1 for l in ls)

    gap = near(ur, "uniform", loads)
    r.check("uniform: CBCM(UGAL) latency against Ideal(UGAL)", "nearly identical", f"at most {gap:+.0%}", "within 10%", gap <= 0.10)
    false_hot = ur[("cbcm", "ugal", 0.5)].summary["cc"]["hot_spots"]
    r.check("uniform at 0.5: hot spots found (false detections)", "< 0.001% of runtime", f"{false_hot}", "none", false_hot == 0)
    gap = near(hs, "uniform", loads)
    r.check("uniform + 40:1 hot spot: CBCM(UGAL) against Ideal(UGAL)", "very close", f"at most {gap:+.0%}", "within 15%", gap <= 0.15)
    base = latency(hs[("none", "minimal", 0.1)], "uniform") / latency(hs[("ideal", "ugal", 0.1)], "uniform")
    r.check("uniform + hot spot: Baseline(MIN) at 10% load", "saturated (very high latency)", f"{base:.1f}x Ideal's latency", "> 3x", base > 3)
    ratio = latency(urur[("srp", "ugal", 0.4)], "ur1") / latency(urur[("cbcm", "ugal", 0.4)], "ur1")
    r.check("UR-UR at 40%: SRP(UGAL) latency against CBCM(UGAL)", "2.4x", f"{ratio:.2f}x", "1.5x to 4x", 1.5 <= ratio <= 4.0)
    srp = urur[("srp", "ugal", 0.4)].summary["cc"]
    spec = srp["speculative_injected"] / max(srp["speculative_injected"] + srp["grants"], 1)
    dropped = srp["speculative_dropped"] / max(srp["speculative_injected"], 1)
    r.check("UR-UR at 40%: SRP's packets sent speculatively, dropped", "52%, 24% of them", f"{spec:.0%}, {dropped:.0%}", "drops 10% to 40%", 0.10 <= dropped <= 0.40)
    gap = latency(urur[("cbcm", "ugal", 0.4)], "ur1") / latency(urur[("ideal", "ugal", 0.4)], "ur1") - 1
    r.check("UR-UR at 40%: CBCM(UGAL) against Ideal(UGAL)", "near-ideal", f"{gap:+.0%}", "within 15%", gap <= 0.15)
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    _curves(a, loads, {name(m, rt): [latency(ur[(m, rt, l)], "uniform") for l in loads] for m, rt in schemes}, "Fig. 8(a): uniform")
    _curves(b, loads, {name(m, rt): [latency(hs[(m, rt, l)], "uniform") for l in loads] for m, rt in schemes}, "Fig. 8(b): + 40:1 hot spot")
    r.figure = save_figure(fig, out)
    return r


@target("cbcm-9", "Fig. 9: tornado, and tornado + 63:1 hot spot, 512 nodes")
def cbcm9(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example(FB512)
    schemes = [("ideal", "ugal"), ("cbcm", "ugal"), ("srp", "ugal")]
    tornado = {**window(full, 512), "traffic": [{"name": "tornado", "pattern": "tornado", "load": 0.1}]}
    # §V-B: the first node of routers 1 to 63 sends to node 0; the others send the permutation.
    senders = [8 * r for r in range(1, 64)]
    combined = {
        **window(full, 512),
        **drained(512),
        "traffic": [
            {"name": "hotspot", "pattern": "hotspot", "sources": senders, "dest": 0, "greedy": True},
            {"name": "tornado", "pattern": "tornado", "load": 0.1, "exclude": ["hotspot"]},
        ],
    }
    alone = dict(zip(schemes, _saturations(cfg, [{**tornado, **scheme(m, rt)} for m, rt in schemes], 0, jobs)))
    hot = dict(zip(schemes, _saturations(cfg, [{**combined, **scheme(m, rt)} for m, rt in schemes], 1, jobs)))
    (probe,) = run_many([(cfg, {**tornado, **scheme("cbcm", "ugal"), "traffic.0.load": 0.3})], jobs)
    r = Reproduction("cbcm-9", "CBCM paper Fig. 9: tornado on the 512-node flattened butterfly")
    early = alone[("srp", "ugal")] / max(alone[("cbcm", "ugal")], 1e-9)
    r.check("tornado: SRP(UGAL) saturates early", "well below CBCM", f"{alone[('srp', 'ugal')]:.2f} vs {alone[('cbcm', 'ugal')]:.2f}", "< 0.8x CBCM's", early < 0.8)
    gap = alone[("cbcm", "ugal")] / alone[("ideal", "ugal")] - 1
    r.check("tornado: CBCM(UGAL) against Ideal(UGAL)", "high performance", f"{gap:+.0%}", "within 10%", abs(gap) <= 0.10)
    throttles = probe.summary["cc"]["throttle_packets"]
    r.check("tornado at 0.3: CBCM throttle packets", "none (D_t never > 1)", f"{throttles}", "0", throttles == 0)
    gap = hot[("cbcm", "ugal")] / max(hot[("ideal", "ugal")], 1e-9) - 1
    r.check("tornado + 63:1 hot spot: CBCM(UGAL) against Ideal(UGAL)", "nearly ideal", f"{gap:+.0%}", "within 15%", abs(gap) <= 0.15)
    series = {"tornado": [alone[s] for s in schemes], "tornado + 63:1 hot spot": [hot[s] for s in schemes]}
    r.figure = _paired_bars([name(m, rt) for m, rt in schemes], series, "saturation throughput (flits/cycle/node)", "CBCM Fig. 9", out)
    return r


# ---------------------------------------------------------------------------------------------
# §VI-A: detection at intermediate routers

#: Fig. 11: the hot spot starts at the 100th interval of 100 cycles.
ROUTER_ONSET_NS = 10_000
SEEDS = (1, 2, 3, 4, 5)


@target("cbcm-11", "Fig. 11: hot spot found at the senders' router vs at the destination, 16 nodes")
def cbcm11(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example(FB16)
    # Fig. 1(c): nodes 0 to 3 (router 0) send to node 4 (router 1) from the 100th interval; every
    # node sends uniform random traffic at 40% throughout (§VI-A gives no exclusion). UGAL.
    traffic = {
        "traffic": [
            {"name": "hotspot", "pattern": "hotspot", "sources": [0, 1, 2, 3], "dest": 4, "greedy": True, "start_ns": ROUTER_ONSET_NS},
            {"name": "uniform", "pattern": "uniform", "load": 0.4},
        ]
    }
    length = {"simulation.warmup_ns": 0, "simulation.measure_ns": 200_000 if full else 100_000, "simulation.bin_ns": 100}
    kinds = {"endpoint": False, "router": True}
    points = [(k, seed) for k in kinds for seed in SEEDS]
    runs = run_many([(cfg, {**length, **traffic, **scheme("cbcm", "ugal"), "cc.cbcm.router_detection": kinds[k], "simulation.seed": seed}) for k, seed in points], jobs)
    lat = {p: series(run, "uniform", "packet_latency_mean_ns").dropna() for p, run in zip(points, runs)}
    r = Reproduction("cbcm-11", "CBCM paper Fig. 11: detection at an intermediate router against at the destination")
    # One seed's peak is one 100-cycle bin and its settling time ends at its last spike: the
    # peaks' mean over five seeds, and the settling times' median.
    peak = {k: statistics.mean(float(lat[(k, s)][lat[(k, s)].index >= ROUTER_ONSET_NS].max()) for s in SEEDS) for k in kinds}
    settle = {k: statistics.median(_settle_ns(lat[(k, s)], ROUTER_ONSET_NS, float(lat[(k, s)][lat[(k, s)].index < ROUTER_ONSET_NS].mean())) for s in SEEDS) for k in kinds}
    ratio = peak["router"] / peak["endpoint"]
    r.check("background latency peak, router against destination detection", "0.42x", f"{ratio:.2f}x ({peak['router']:.0f} vs {peak['endpoint']:.0f} ns)", "0.21x to 0.84x (within 2x)", 0.21 <= ratio <= 0.84)
    ratio = settle["router"] / max(settle["endpoint"], 100.0)
    r.check("time to stabilize, router against destination detection", "0.22x", f"{ratio:.2f}x ({settle['router'] / 1e3:.1f} vs {settle['endpoint'] / 1e3:.1f} us)", "0.11x to 0.44x (within 2x)", 0.11 <= ratio <= 0.44)
    fig, ax = plt.subplots(figsize=(8, 4))
    for k in kinds:
        v = lat[(k, SEEDS[0])]
        ax.plot(v.index / 1e3, v.rolling(20, min_periods=1).mean().values, label=f"{k} detection", lw=0.8)
    ax.axvline(ROUTER_ONSET_NS / 1e3, color="grey", ls=":")
    ax.set(xlabel="time (us)", ylabel="background packet latency (ns, 2-us mean)", yscale="log", title=f"CBCM Fig. 11 (seed {SEEDS[0]})")
    ax.legend()
    r.figure = save_figure(fig, out)
    return r


# ---------------------------------------------------------------------------------------------
# §VI: the dedicated hot-spot VC and throttling


@target("cbcm-12", "Fig. 12: throttling to 1/N or 0.99/N without a dedicated VC")
def cbcm12(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example(FB16)
    loads = [0.2, 0.4, 0.6]
    variants = {"1/N": {"cc.cbcm.dedicated_vc": False, "cc.cbcm.rate_scale": 1.0}, "0.99/N": {"cc.cbcm.dedicated_vc": False, "cc.cbcm.rate_scale": 0.99}}
    points = [(v, l) for v in (*variants, "ideal") for l in loads]

    def over(v, l):
        base = {**window(full), **drained(16), "traffic.1.load": l}
        return {**base, **scheme("ideal", "ugal")} if v == "ideal" else {**base, **scheme("cbcm", "ugal"), **variants[v]}

    runs = dict(zip(points, run_many([(cfg, over(*p)) for p in points], jobs)))
    lat = {p: latency(run, "uniform") for p, run in runs.items()}
    r = Reproduction("cbcm-12", "CBCM paper Fig. 12: hot-spot senders throttled to 1/N and 0.99/N on the data VC")
    worst = max(lat[("1/N", l)] / lat[("ideal", l)] for l in loads)
    r.check("1/N: background latency against Ideal, medium and high loads", "1.6x to 2.0x", f"up to {worst:.2f}x", "1.3x to 2.5x", 1.3 <= worst <= 2.5)
    near = max(lat[("0.99/N", l)] / lat[("ideal", l)] for l in loads) - 1
    r.check("0.99/N: background latency against Ideal", "nearly ideal", f"at most {near:+.0%}", "within 15%", near <= 0.15)
    hot = {v: statistics.mean(accepted(runs[(v, l)], "hotspot") for l in loads) for v in variants}
    diff = abs(hot["0.99/N"] / hot["1/N"] - 1)
    r.check("hot-spot throughput, 0.99/N against 1/N", "differs by less than 1%", f"{diff:.1%}", "< 2%", diff < 0.02)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    _curves(ax, loads, {("Ideal" if v == "ideal" else f"CBCM, {v}"): [lat[(v, l)] for l in loads] for v in (*variants, "ideal")}, "CBCM Fig. 12")
    r.figure = save_figure(fig, out)
    return r


#: Fig. 13: the hot spot starts at the 500th interval of 100 cycles (examples/cbcm/fb256_hotspot.toml).
ONSET_NS = 50_000


def _settle_ns(latency_ns, onset_ns: float, steady: float) -> float:
    """Time from `onset_ns` until the latency, averaged over 5 us (50 intervals), stays within
    1.5x of `steady`."""
    smooth = latency_ns.rolling(50, min_periods=1).mean()
    after = smooth[smooth.index >= onset_ns]
    high = after[after > 1.5 * steady]
    return float(high.index.max() - onset_ns + 100) if len(high) else 0.0


@target("cbcm-13", "Fig. 13: dedicated vs shared VC, 16:1 hot spot from the 500th interval, 256 nodes")
def cbcm13(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example(FB256)
    length = {"simulation.measure_ns": 300_000 if full else 150_000}
    dedicated, shared = run_many([(cfg, length), (cfg, {**length, "cc.cbcm.dedicated_vc": False, "cc.cbcm.rate_scale": 0.99})], jobs)
    r = Reproduction("cbcm-13", "CBCM paper Fig. 13: the transient with and without the dedicated VC")
    lat = {k: series(run, "uniform", "packet_latency_mean_ns").dropna() for k, run in (("dedicated", dedicated), ("shared", shared))}
    before = {k: float(v[v.index < ONSET_NS].mean()) for k, v in lat.items()}
    peak = {k: float(v[v.index >= ONSET_NS].max()) for k, v in lat.items()}
    r.check("peak background latency after the onset", "lower with the dedicated VC", f"{peak['dedicated']:.0f} vs {peak['shared']:.0f} ns shared", "lower", peak["dedicated"] < peak["shared"])
    settle = {k: _settle_ns(v, ONSET_NS, before[k]) for k, v in lat.items()}
    faster = settle["shared"] / max(settle["dedicated"], 100.0)
    r.check("time to steady state, shared against dedicated", "13.2x", f"{faster:.1f}x ({settle['dedicated'] / 1e3:.1f} vs {settle['shared'] / 1e3:.1f} us)", "> 2x", faster > 2)

    def hot_share(run) -> float:
        acc = series(run, "hotspot", "accepted")
        return float(acc[acc.index >= ONSET_NS + 20_000].mean() * 16)

    share = {k: hot_share(run) for k, run in (("dedicated", dedicated), ("shared", shared))}
    r.check("hot spot's accepted throughput, dedicated VC", "93%", f"{share['dedicated']:.0%}", "85% to 99%", 0.85 <= share["dedicated"] <= 0.99)
    r.check("hot spot's accepted throughput, shared VC", "100%", f"{share['shared']:.0%}", ">= 97%", share["shared"] >= 0.97)
    fig, ax = plt.subplots(figsize=(8, 4))
    for k, v in lat.items():
        ax.plot(v.index / 1e3, v.values, label=f"{k} VC", lw=0.8)
    ax.axvline(ONSET_NS / 1e3, color="grey", ls=":")
    ax.set(xlabel="time (us)", ylabel="background packet latency (ns)", yscale="log", title="CBCM Fig. 13")
    ax.legend()
    r.figure = save_figure(fig, out)
    return r


@target("cbcm-14", "Fig. 14: fairness among hot-spot senders, 3 one hop away and 1 local")
def cbcm14(out: Path, full: bool, jobs) -> Reproduction:
    cfg = example(FB16)
    # §VI-C: nodes 0 to 2 (router 0) and 8 (router 2) send to node 9 (router 2), nothing else.
    traffic = {"traffic": [{"name": "hotspot", "pattern": "hotspot", "sources": [0, 1, 2, 8], "dest": 9, "greedy": True}]}
    # Both with the dedicated VC, as Fig. 14 assumes: found and moved to it, throttled or not.
    points = [{"cc.cbcm.throttle": throttle} for throttle in (False, True)]
    unthrottled, throttled = run_many([(cfg, {**window(full), **traffic, **scheme("cbcm", "ugal"), **o}) for o in points], jobs)
    r = Reproduction("cbcm-14", "CBCM paper Fig. 14: hot-spot senders with and without throttling")

    def per_sender(run) -> dict[int, float]:
        return {h: float(run.sources["accepted"][h]) for h in (0, 1, 2, 8)}

    free, fair = per_sender(unthrottled), per_sender(throttled)
    local = free[8] / sum(free[h] for h in (0, 1, 2))
    r.check("without throttling: local sender against the three remote ones together", "2x", f"{local:.2f}x", "1.5x to 3x", 1.5 <= local <= 3.0)
    spread = max(fair.values()) / min(fair.values()) - 1
    r.check("with throttling: spread among the four", "equal", f"{spread:.0%}", "within 10%", spread <= 0.10)
    total = sum(fair.values()) / sum(free.values()) - 1
    r.check("with throttling: total against without", "nearly unaffected", f"{total:+.1%}", "within 5%", abs(total) <= 0.05)
    series = {"without throttling": list(free.values()), "CBCM": list(fair.values())}
    r.figure = _paired_bars([f"node {h}" for h in free], series, "accepted throughput (of its link)", "CBCM Fig. 14", out)
    return r
