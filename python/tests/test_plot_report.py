"""Plots show the data of the sweep (checked against the stored points, not only that a file
exists); the HTML report renders in headless Chromium."""

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import pytest

import lossless
import lossless.plot as plot
from lossless.saturation import Point, Saturation

LOADS = [0.3, 0.6, 0.9]
SEEDS = [1, 2]


@pytest.fixture(scope="module")
def swept(tmp_path_factory, default_example):
    out = tmp_path_factory.mktemp("sweep")
    lossless.sweep(
        default_example, out,
        series={"none": {"cc.mechanism": "none"}, "ecn": {"cc.mechanism": "ecn"}},
        product={"traffic.0.load": LOADS}, seeds=SEEDS,
        overrides={"simulation.warmup_ns": 2_000, "simulation.measure_ns": 10_000, "simulation.bin_ns": 2_000},
        jobs=2, progress=False,
    )
    return out


def stored(out: Path) -> dict[tuple, dict]:
    """Each point's summary and series straight from its file, by (series, load, seed)."""
    manifest = json.loads((out / "sweep.json").read_text())
    points = {}
    for e in manifest["points"]:
        rec = json.loads((out / "points" / f"{e['key']}.json").read_text())
        points[(e["series"], e["params"]["traffic.0.load"], e["seed"])] = rec
    return points


def by_label(ax):
    return {c.get_label(): c for c in ax.containers}


def test_latency_and_accepted_curves_are_seed_means(swept):
    points = stored(swept)
    results = lossless.load(swept)
    for make, metric in [(plot.latency_load, lambda s: s["classes"]["uniform"]["packet_latency_ns"]["mean"]), (plot.accepted_load, lambda s: s["classes"]["uniform"]["accepted"])]:
        ax = make(results).axes[0]
        curves = by_label(ax)
        assert list(curves) == ["none", "ecn"]
        for series, container in curves.items():
            line = container.lines[0]
            assert list(line.get_xdata()) == LOADS
            expected = [np.mean([metric(points[(series, load, s)]["summary"]) for s in SEEDS]) for load in LOADS]
            assert np.allclose(line.get_ydata(), expected, rtol=1e-12)
    # The accepted-load figure also has the diagonal accepted = offered.
    diagonal = [l for l in plot.accepted_load(results).axes[0].lines if l.get_label() == "_offered"]
    assert len(diagonal) == 1


def test_latency_grows_with_load(swept):
    ax = plot.latency_load(lossless.load(swept)).axes[0]
    for container in ax.containers:
        y = container.lines[0].get_ydata()
        assert y[0] < y[1] < y[2]


def test_timeseries_band_is_the_mean_over_seeds(swept):
    points = stored(swept)
    results = lossless.load(swept).select({"traffic.0.load": 0.9})
    ax = plot.timeseries(results, column="accepted").axes[0]
    lines = {l.get_label(): l for l in ax.lines}
    assert set(lines) == {"none", "ecn"}
    for series, line in lines.items():
        per_seed = [[row["accepted"] for row in points[(series, 0.9, s)]["timeseries"]] for s in SEEDS]
        assert np.allclose(line.get_ydata(), np.mean(per_seed, axis=0), rtol=1e-12)
        assert list(line.get_xdata()) == [row["bin_start_ns"] for row in points[(series, 0.9, 1)]["timeseries"]]
    assert len(ax.collections) == 2  # one confidence band per curve


def test_senders_of_a_large_network_are_drawn_as_their_distribution(swept):
    # 256 bars are unreadable: the per-source means, ranked, as one curve.
    points = stored(swept)
    results = lossless.load(swept).select({"traffic.0.load": 0.6, "series": "ecn"})
    ax = plot.senders(results).axes[0]
    assert not ax.patches
    expected = sorted(np.mean([points[("ecn", 0.6, s)]["summary"]["sources"][str(h)] for s in SEEDS]) for h in range(256))
    assert np.allclose(ax.lines[0].get_ydata(), expected, rtol=1e-12)


def test_a_single_run_directory_plots(fig1_example, tmp_path):
    run = tmp_path / "run"
    p = subprocess.run([sys.executable, "-m", "lossless", "run", str(fig1_example), "--out", str(run), "-q", "--set", "simulation.measure_ns=20000"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    summary = json.loads((run / "summary.json").read_text())
    results = lossless.load(run)
    # Six senders: a bar each, the run's own throughput.
    name = next(iter(summary["classes"]))
    ax = plot.senders(results, traffic_class=name).axes[0]
    ids = summary["classes"][name]["source_ids"]
    assert [b.get_height() for b in ax.patches] == [summary["sources"][str(h)] for h in ids]
    # The busiest channels, busiest first, as links.csv has them.
    links = {r["name"]: float(r["utilization"]) for r in csv.DictReader((run / "links.csv").open())}
    ax = plot.links(results).axes[0]
    assert [b.get_height() for b in ax.patches] == sorted(links.values(), reverse=True)[: len(ax.patches)]

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "lossless", "plot", str(run), *map(str, args)], capture_output=True, text=True)

    for kind in ("timeseries", "senders", "links"):
        p = cli("--kind", kind, "--out", tmp_path / f"{kind}.png")
        assert p.returncode == 0, p.stderr
    p = cli("--kind", "latency", "--out", tmp_path / "latency.png")
    assert p.returncode == 2 and "no swept load" in p.stderr


def test_heatmap_cells_are_means(swept):
    points = stored(swept)
    fig = plot.heatmap(lossless.load(swept), x="traffic.0.load", y="series", value="accepted")
    grid = fig.axes[0].images[0].get_array()
    rows = ["ecn", "none"]  # sorted
    expected = [[np.mean([points[(r, load, s)]["summary"]["classes"]["uniform"]["accepted"] for s in SEEDS]) for load in LOADS] for r in rows]
    assert np.allclose(grid, expected, rtol=1e-12)


def test_a_figure_that_would_mix_points_is_refused(swept):
    with pytest.raises(ValueError, match="`traffic.0.load` varies too"):
        plot.timeseries(lossless.load(swept))


def test_a_selection_or_axis_that_names_no_point_says_what_there_is(swept):
    results = lossless.load(swept)
    # Before: an empty selection, then "no finished point to plot"; and a pandas error for the heat map.
    with pytest.raises(ValueError, match=r"no finished point has traffic.0.load = 0.25; their values: 0.3, 0.6, 0.9"):
        results.select({"traffic.0.load": 0.25})
    with pytest.raises(ValueError, match="no finished point has series = 'srp'"):
        results.select({"series": "srp"})
    with pytest.raises(ValueError, match="heatmap: x and y are both `series`"):
        plot.heatmap(results, x="series", y="series")
    p = subprocess.run([sys.executable, "-m", "lossless", "plot", str(swept), "--kind", "latency", "--where", "traffic.0.load", "--out", "x.png"], capture_output=True, text=True)
    assert p.returncode == 2 and "`--where traffic.0.load`: give key=value, e.g. --where" in p.stderr, p.stderr


def test_saturation_against_a_parameter():
    def sat(below, above, accepted):
        return Saturation(accepted, Point(below, accepted, 1.0, False), Point(above, above, 50.0, True))

    ax = plot.saturation({4: sat(0.8, 0.82, 0.79), 16: sat(0.6, 0.62, 0.6)}, xlabel="packets per message").axes[0]
    line = ax.containers[0].lines[0]
    assert list(line.get_xdata()) == [4, 16] and list(line.get_ydata()) == [0.79, 0.6]


def test_plot_command(swept, tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "lossless", "plot", str(swept), *map(str, args)], capture_output=True, text=True)

    p = cli("--kind", "latency", "--out", tmp_path / "latency.svg")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "latency.svg").read_text().lstrip().startswith("<?xml")
    p = cli("--kind", "timeseries", "--where", "traffic.0.load=0.9", "--out", tmp_path / "ts.png")
    assert p.returncode == 0, p.stderr
    assert matplotlib.image.imread(tmp_path / "ts.png").shape[2] == 4
    p = cli("--kind", "heatmap", "--x", "traffic.0.load", "--out", tmp_path / "h.png")
    assert p.returncode == 2 and "give --x and --y" in p.stderr
    p = cli("--kind", "latency", "--latency", "nonsense", "--out", tmp_path / "x.png")
    assert p.returncode == 2 and "no column `nonsense`" in p.stderr and not (tmp_path / "x.png").exists()


def test_plotting_a_directory_of_no_results_says_what_it_needs(tmp_path):
    def plot(d: Path):
        return subprocess.run([sys.executable, "-m", "lossless", "plot", str(d), "--kind", "timeseries", "--out", tmp_path / "x.png"], capture_output=True, text=True)

    p = plot(tmp_path / "typo")
    assert p.returncode == 2 and f"{tmp_path / 'typo'} does not exist: give the --out directory of `lossless sweep` or `lossless run`" in p.stderr, p.stderr
    (tmp_path / "empty").mkdir()
    p = plot(tmp_path / "empty")
    assert p.returncode == 2 and "holds neither a sweep's results (sweep.json) nor a run's (summary.json)" in p.stderr, p.stderr
    (tmp_path / "afile").write_text("")
    p = plot(tmp_path / "afile")
    assert p.returncode == 2 and f"{tmp_path / 'afile'} is not a directory: give the --out directory" in p.stderr, p.stderr
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "typo").exists()


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    if os.environ.get("LOSSLESS_SKIP_BROWSER"):
        pytest.skip("LOSSLESS_SKIP_BROWSER is set")
    pytest.fail("the report test needs headless Chromium: `apt-get install chromium` (or set LOSSLESS_SKIP_BROWSER=1 to skip it)")


def test_report_renders_in_headless_chromium(swept, tmp_path):
    p = subprocess.run([sys.executable, "-m", "lossless", "report", str(swept), "--out", str(tmp_path / "report.html")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    page = (tmp_path / "report.html").as_uri()
    browser = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,3000"]
    dom = subprocess.run([*browser, "--dump-dom", page], capture_output=True, text=True, timeout=120).stdout
    # The browser parsed the whole page: run metadata, the parameters, four inline figures and a
    # row per point (12 points, one class).
    assert lossless.__commit__ in dom and lossless.__version__ in dom
    assert dom.count("<svg") == 4
    points_table = dom[dom.index('id="points"'):]
    assert points_table[: points_table.index("</table>")].count("<tr") == 1 + 12
    assert "wall_s" in dom and "traffic.0.load" in dom
    # And drew it: the screenshot is not blank.
    shot = tmp_path / "report.png"
    subprocess.run([*browser, f"--screenshot={shot}", page], capture_output=True, timeout=120, check=True)
    pixels = matplotlib.image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (3000, 1200)
    assert (pixels < 0.5).mean() > 0.01  # text, axes and curves


def test_slowdown_by_size_draws_each_buckets_quantiles():
    # Bucket <= 100 KB: slowdowns 1..100; 100 KB - 10 MB: all 2.0; nothing above 10 MB.
    flows = pd.DataFrame({"bytes": [20e3] * 100 + [1e6] * 10, "slowdown": [float(s) for s in range(1, 101)] + [2.0] * 10})
    ax = plot.slowdown_by_size(flows).axes[0]
    heights = {c.get_label(): [round(b.get_height(), 3) for b in c] for c in ax.containers}
    assert heights["p50"] == [50.5, 2.0]
    assert heights["p99"] == [99.01, 2.0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["<= 100 KB\n(100 flows)", "100 KB - 10 MB\n(10 flows)"]
    with pytest.raises(ValueError, match="no completed flow"):
        plot.slowdown_by_size(flows.iloc[:0])
