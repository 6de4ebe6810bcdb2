"""Sweeps: spec, store, executors, resume after interruption, failures."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import lossless
from lossless.sweeps import Spec
from lossless.sweeps.store import write_atomically

# Short windows keep the 36-point sweeps at a few seconds.
SHORT = {"simulation.warmup_ns": 2_000, "simulation.measure_ns": 10_000}
MECHANISMS = {"none": {"cc.mechanism": "none"}, "ecn": {"cc.mechanism": "ecn"}, "srp": {"cc.mechanism": "srp"}}
LOADS = [0.2, 0.4, 0.6, 0.8]
SEEDS = [1, 2, 3]


def spec_file(tmp_path: Path, example: Path, measure_ns: int = 10_000, loads=LOADS) -> Path:
    """The 3 x 4 x 3 sweep of the issue as a spec file."""
    path = tmp_path / "spec.toml"
    series = "\n".join(f'{name} = {{ "cc.mechanism" = "{name}" }}' for name in MECHANISMS)
    path.write_text(
        f'[sweep]\nbase = "{example}"\nseeds = {SEEDS}\n\n[sweep.product]\n"traffic.0.load" = {loads}\n\n'
        f"[sweep.series]\n{series}\n\n[simulation]\nwarmup_ns = 2_000\nmeasure_ns = {measure_ns}\n"
    )
    return path


def comparable(r: lossless.SweepResults) -> dict[str, pd.DataFrame]:
    """The result tables (everything but run metadata: wall time, host, executor)."""
    return {"points": r.points, "timeseries": r.timeseries, "senders": r.senders, "links": r.links}


def assert_same_tables(a: lossless.SweepResults, b: lossless.SweepResults) -> None:
    for name, table in comparable(a).items():
        pd.testing.assert_frame_equal(table, comparable(b)[name], check_exact=True, obj=name)


def test_points_nest_in_file_order():
    spec = Spec.from_dict({
        "sweep": {"series": {"a": {"x": 1}, "b": {"x": 2}}, "product": {"p": [1, 2], "q": ["u", "v"]}, "zip": {"z1": [7, 8], "z2": [9, 10]}, "seeds": [5, 6]},
    })
    points = spec.points()
    assert len(points) == 2 * 4 * 2 * 2
    assert spec.dimensions == ["series", "p", "q", "z1", "z2", "seed"]
    assert [p.seed for p in points[:4]] == [5, 6, 5, 6]
    assert points[0].params == {"x": 1, "p": 1, "q": "u", "z1": 7, "z2": 9}
    assert points[2].params == {"x": 1, "p": 1, "q": "u", "z1": 8, "z2": 10}  # zip walks together
    assert points[4].params["q"] == "v" and points[8].params["p"] == 2
    assert points[16].series == "b" and points[16].params["x"] == 2
    assert points[3].overrides({"s": 0}) == {"s": 0, **points[3].params, "simulation.seed": 6}


def test_lists_made_with_numpy_are_swept_as_the_lists_they_hold(tmp_path, default_example):
    import numpy as np

    results = lossless.sweep(
        default_example, tmp_path, product={"traffic.0.load": np.array([0.1, 0.2])}, seeds=np.arange(1, 2), overrides={"simulation.measure_ns": np.int64(2000)}, jobs=1, progress=False
    )
    assert results.points["traffic.0.load"].tolist() == [0.1, 0.2] and results.failures.empty

    spec = Spec(base={}, product={"traffic.0.load": np.linspace(0.2, 0.4, 3)}, zip={"z": np.arange(2)}, seeds=np.arange(1, 3), set={"s": np.int64(7)})
    assert spec.product == {"traffic.0.load": [0.2, 0.30000000000000004, 0.4]} and spec.zip == {"z": [0, 1]}
    points = spec.points()
    assert len(points) == 3 * 2 * 2
    assert all(type(v) in (int, float) for p in points for v in (*p.params.values(), p.seed))
    assert points[-1].overrides(spec.set) == {"s": 7, "traffic.0.load": 0.4, "z": 1, "simulation.seed": 2}


@pytest.mark.parametrize(
    "sweep, message",
    [
        ({"product": {"p": 3}}, "`sweep.product.p`: give a non-empty list"),
        ({"zip": {"a": [1, 2], "b": [1]}}, "`sweep.zip`: the lists must have one length"),
        ({"seeds": [1, -2]}, "`sweep.seeds`"),
        ({"seeds": [1], "product": {"simulation.seed": [1, 2]}}, "simulation.seed is also swept"),
        ({"grid": {}}, "`sweep.grid`: unknown key"),
        ({"series": {"a": 3}}, "`sweep.series.a`"),
        ({"base": "nowhere.toml"}, "`sweep.base`"),
        # A point given twice would weigh twice in every mean over the sweep.
        ({"seeds": [1, 2, 1]}, "`sweep.seeds`: 1 appears twice"),
        ({"product": {"traffic.0.load": [0.2, 0.4, 0.2]}}, "`sweep.product.traffic.0.load`: 0.2 appears twice"),
        ({"product": {"m": [{"kind": "fixed", "packets": 4}, {"kind": "fixed", "packets": 4}]}}, "`sweep.product.m`: {'kind': 'fixed', 'packets': 4} appears twice"),
        ({"zip": {"a": [1, 2, 1], "b": [5, 6, 5]}}, "`sweep.zip`: its values at position 2 (a = 1, b = 5) repeat an earlier position's"),
    ],
)
def test_bad_specs_name_the_key(sweep, message):
    with pytest.raises(lossless.ConfigError, match=re.escape(message)):
        Spec.from_dict({"sweep": sweep})


def test_setting_a_key_every_point_sweeps_is_refused_naming_both(tmp_path, default_example):
    # Each point's value won, and the setting was silently lost.
    cases = [
        ({"product": {"traffic.0.load": [0.2, 0.4]}}, "traffic[0].load", "sweep.product"),
        ({"zip": {"a": [1, 2]}}, "a", "sweep.zip"),
        ({"seeds": [1, 2]}, "simulation.seed", "sweep.seeds"),
        ({"series": {"x": {"cc.mechanism": "ecn"}, "y": {"cc.mechanism": "srp"}}}, "cc.mechanism", "every series of sweep.series"),
    ]
    for dims, key, where in cases:
        with pytest.raises(lossless.ConfigError, match=re.escape(f"`{key}`: set for every point (--set, overrides=) but also swept by {where}, whose values would win")):
            Spec(base={}, set={key: 1}, **dims)
    # A key only some series set is the others' setting.
    Spec(base={}, series={"x": {"cc.mechanism": "ecn"}, "y": {"cc.srp.n_min": 2}}, set={"cc.mechanism": "srp"})
    # A spec file with the CLI's --set (Python's overrides=) is checked the same way, before anything is written.
    with pytest.raises(lossless.ConfigError, match=re.escape("`traffic.0.load`: set for every point")):
        lossless.sweep(spec_file(tmp_path, default_example), tmp_path / "out", overrides={"traffic.0.load": 0.9}, progress=False)
    assert not (tmp_path / "out").exists()


def test_where_points_run_is_said_once_and_by_an_executor(tmp_path, default_example):
    # Before: jobs= was dropped beside client= or executor=, and executor="local" raised
    # AttributeError from inside the sweep.
    args = dict(product={"traffic.0.load": [0.1]}, progress=False)
    with pytest.raises(ValueError, match=re.escape("give one of executor=, jobs= and client= (they say where points run), not jobs= and client=")):
        lossless.sweep(default_example, tmp_path / "a", jobs=2, client="tcp://127.0.0.1:1", **args)
    with pytest.raises(ValueError, match=re.escape("not executor= and jobs=")):
        lossless.sweep(default_example, tmp_path / "b", executor=lossless.sweeps.Local(1), jobs=2, **args)
    with pytest.raises(TypeError, match=re.escape("executor: give lossless.sweeps.Local(jobs), Dask(client) or another `Executor` (a `name` and `map_unordered`), not 'local'")):
        lossless.sweep(default_example, tmp_path / "c", executor="local", **args)
    assert not any((tmp_path / d).exists() for d in "abc")


def test_the_stored_config_reproduces_the_run(default_example, fig1_example):
    """A point runs from its resolved config (its store key): it must give the same run as
    the base scenario with the overrides."""
    for example, overrides in [(default_example, {**SHORT, "cc.mechanism": "srp"}), (fig1_example, {"cc.mechanism": "ecn", "simulation.measure_ns": 20_000})]:
        direct = lossless.run(example, overrides=overrides).summary
        resolved = lossless.validate(example, overrides=overrides)
        again = lossless.run(resolved).summary
        direct.pop("wall_s"), again.pop("wall_s")
        assert direct == again


def test_local_and_dask_executors_give_identical_tables(tmp_path, default_example):
    from dask.distributed import Client, LocalCluster

    spec = spec_file(tmp_path, default_example)
    local = lossless.sweep(spec, tmp_path / "local", jobs=2, progress=False)
    assert len(local.meta) == 36 and local.failures.empty and not local.missing
    assert len(local.points) == 36  # one traffic class
    # The sweep's dimensions and values are the table's columns, in the spec's order.
    assert list(local.points.columns[:6]) == ["point", "key", "series", "cc.mechanism", "traffic.0.load", "seed"]
    assert list(local.points["series"].unique()) == ["none", "ecn", "srp"]
    assert set(local.points["cc.mechanism"]) == {"none", "ecn", "srp"}
    assert (local.points.groupby("series")["cc.mechanism"].first() == pd.Series({"ecn": "ecn", "none": "none", "srp": "srp"})).all()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        dask = lossless.sweep(spec, tmp_path / "dask", client=client, progress=False)
    assert set(dask.meta["executor"]) == {"dask"}
    assert_same_tables(local, dask)
    # The Parquet tables hold the same as lossless.load.
    for name, table in comparable(local).items():
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "dask" / f"{name}.parquet"), table, obj=name)


def test_changing_a_knob_never_reuses_a_result(tmp_path, default_example):
    base = {"product": {"traffic.0.load": [0.3, 0.5]}, "overrides": SHORT, "progress": False, "jobs": 2}
    first = lossless.sweep(default_example, tmp_path, **base)
    again = lossless.sweep(default_example, tmp_path, **base)
    # Nothing re-ran: the same stored points (same finish stamps).
    pd.testing.assert_frame_equal(first.meta, again.meta)
    changed = lossless.sweep(default_example, tmp_path, **{**base, "overrides": {**SHORT, "routing.algorithm": "dmodk"}})
    assert set(changed.points["key"]).isdisjoint(first.points["key"])
    assert len(list((tmp_path / "points").glob("*.json"))) == 4


def test_a_changed_file_the_config_names_runs_its_points_again(tmp_path, default_example):
    cdf = tmp_path / "sizes.txt"
    cdf.write_text("256 0.5\n1024 1\n")
    base = {"product": {"traffic.0.load": [0.3]}, "progress": False, "jobs": 1,
            "overrides": {**SHORT, "traffic.0.message": {"kind": "cdf", "file": str(cdf)}}}
    first = lossless.sweep(default_example, tmp_path / "out", **base)
    same = lossless.sweep(default_example, tmp_path / "out", **base)
    pd.testing.assert_frame_equal(first.meta, same.meta)
    cdf.write_text("2048 0.5\n8192 1\n")
    changed = lossless.sweep(default_example, tmp_path / "out", **base)
    assert set(changed.points["key"]).isdisjoint(first.points["key"])
    # The larger flows take longer: the result is the new file's, not the stored one.
    assert changed.points["packet_latency_mean_ns"].iloc[0] != first.points["packet_latency_mean_ns"].iloc[0]


def test_a_key_inside_a_defaulted_table_is_swept(tmp_path, default_example):
    # docs/sweeps.md's example: the example file sets `message`, so take it out first.
    r = lossless.sweep(default_example, tmp_path, product={"traffic.0.message.packets": [1, 16]}, progress=False, jobs=1,
                       overrides={**SHORT, "traffic.0.message": None})
    assert len(r.failures) == 0 and sorted(r.points["traffic.0.message.packets"]) == [1, 16]


def test_a_failing_point_is_recorded_and_the_others_run(tmp_path, default_example):
    spec = spec_file(tmp_path, default_example, loads=[0.3, 1.5])
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "lossless", "sweep", spec, "--out", out, "--jobs", "2", "-q"], capture_output=True, text=True)
    assert p.returncode == 1, p.stderr
    assert "point 3 failed (config): `traffic[0].load`: must be between 1e-6 and 1" in p.stderr
    r = lossless.load(out)
    assert len(r.meta) == 9 and len(r.failures) == 9
    assert set(r.failures["traffic.0.load"]) == {1.5}
    assert r.failures["message"].str.contains("traffic\\[0\\].load").all()


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_an_interrupted_sweep_resumes_without_loss_or_repeat(tmp_path, default_example, how):
    # Longer points so that the sweep is surely killed in the middle.
    spec = spec_file(tmp_path, default_example, measure_ns=30_000)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "lossless", "sweep", spec, "--out", out, "--jobs", "2", "-q"]
    log = tmp_path / "stderr"
    # A shell starts background jobs with SIGINT ignored, and Python keeps an ignored SIGINT:
    # give the sweep the default, as a terminal's Ctrl-C finds it, wherever the suite runs.
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log.open("w"), preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    points = out / "points"
    deadline = time.monotonic() + 120
    while len(list(points.glob("*.json"))) < 4:
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, "the sweep finished no point in 2 minutes"
        time.sleep(0.02)
    proc.send_signal(how)
    proc.wait(timeout=60)
    stderr = log.read_text()
    assert proc.returncode == (130 if how == signal.SIGINT else -signal.SIGKILL), stderr
    if how == signal.SIGINT:
        assert "run the same command again" in stderr
    # What is left: complete points only (each parses and has its summary), fewer than all.
    finished = {f: (f.stat().st_ino, f.stat().st_mtime_ns) for f in points.glob("*.json")}
    assert 4 <= len(finished) < 36
    for f in finished:
        assert "summary" in json.loads(f.read_text())
    assert not (out / "points.parquet").exists()
    partial = lossless.load(out)
    assert len(partial.meta) == len(finished) and len(partial.missing) == 36 - len(finished)

    resumed = subprocess.run(cmd[:-1], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(finished)} of 36 points already finished" in resumed.stderr
    # Finished points were not recomputed (same files, untouched), none lost or duplicated.
    for f, stamp in finished.items():
        assert (f.stat().st_ino, f.stat().st_mtime_ns) == stamp
    final = lossless.load(out)
    assert len(final.meta) == 36 and not final.missing and final.points["point"].is_unique
    reference = lossless.sweep(spec, tmp_path / "reference", jobs=2, progress=False)
    assert_same_tables(final, reference)


def test_cli_bad_input_exits_2(tmp_path, default_example):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "lossless", "sweep", *map(str, args)], capture_output=True, text=True)

    p = run(tmp_path / "missing.toml", "--out", tmp_path / "o")
    assert p.returncode == 2 and "does not exist" in p.stderr
    p = run(default_example, "--out", tmp_path / "o")
    assert p.returncode == 2 and "no [sweep] table" in p.stderr
    p = run(spec_file(tmp_path, default_example), "--out", tmp_path / "o", "--set", "simulation.measure_ns=abc")
    # `abc` is a string, as `lossless run --set` reads it: every point is refused naming the key.
    assert p.returncode == 2 and "`simulation.measure_ns`: invalid type: string \"abc\"" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_every_example_spec_is_valid_at_every_point():
    specs = sorted((Path(__file__).resolve().parents[2] / "examples").rglob("*.toml"))
    specs = [s for s in specs if "[sweep]" in s.read_text()]
    assert specs
    for path in specs:
        spec = Spec.from_file(path)
        for p in spec.points():
            lossless.validate(spec.base, overrides=p.overrides(spec.set))


def test_the_tutorial_script_runs(tmp_path):
    root = Path(__file__).resolve().parents[2]
    p = subprocess.run([sys.executable, "examples/sweeps/mechanisms_load.py", str(tmp_path)], cwd=root, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "SRP latency at 80% load" in p.stdout
    assert (tmp_path / "latency.png").stat().st_size > 0 and (tmp_path / "report.html").stat().st_size > 0
    assert len(lossless.load(tmp_path).meta) == 30


def test_files_are_renamed_into_place_with_the_usual_permissions(tmp_path):
    # Results, figures and tables go through one atomic writer; shared result directories need
    # them readable by others (the umask's permissions, not a temporary file's 0600).
    old = os.umask(0o022)
    try:
        write_atomically(tmp_path / "x.json", lambda tmp: Path(tmp).write_text("{}"))
    finally:
        os.umask(old)
    assert (tmp_path / "x.json").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_flows_of_every_point_land_in_one_table(tmp_path, default_example):
    # Two loads of the web-search example with a row per flow: flows.parquet holds every
    # completed message of both, each with its point's identity, as each run's own rows.
    cfg = default_example.parent / "flows" / "fattree256_websearch.toml"
    short = {"simulation.warmup_ns": 0, "simulation.measure_ns": 200_000, "simulation.record_flows": True}
    r = lossless.sweep(cfg, tmp_path / "s", product={"traffic.0.load": [0.2, 0.5]}, overrides=short, jobs=1, progress=False)
    table = pd.read_parquet(tmp_path / "s" / "flows.parquet")
    pd.testing.assert_frame_equal(table, lossless.sweeps._parquet_safe(r.flows))
    for load in (0.2, 0.5):
        alone = lossless.run(cfg, overrides={**short, "traffic.0.load": load}).flows
        rows = table[table["traffic.0.load"] == load][alone.columns].reset_index(drop=True)
        assert len(rows) > 0
        pd.testing.assert_frame_equal(rows, alone, check_dtype=False)


def _dies_on_three(item: int) -> dict:
    """A point function whose worker process aborts on item 3, as a crashing simulation would."""
    if item == 3:
        os.abort()
    time.sleep(0.05)
    return {"value": item}


def test_a_worker_that_dies_fails_only_its_own_point():
    from lossless.sweeps.executors import Local

    outcomes = dict(Local(jobs=2).map_unordered(_dies_on_three, range(8)))
    assert sorted(outcomes) == list(range(8))
    assert outcomes[3]["kind"] == "crash" and "died" in outcomes[3]["error"]
    assert {i: o for i, o in outcomes.items() if i != 3} == {i: {"value": i} for i in range(8) if i != 3}


def test_an_unreachable_dask_scheduler_is_named_promptly(monkeypatch, tmp_path, default_example):
    from lossless.sweeps import executors

    monkeypatch.setattr(executors, "CONNECT_TIMEOUT_S", 1)
    start = time.monotonic()
    # Port 1 on loopback: nothing listens there.
    with pytest.raises(ValueError, match=r"no Dask scheduler answered at tcp://127.0.0.1:1 within 1 s"):
        lossless.sweep(default_example, tmp_path, product={"traffic.0.load": [0.1]}, client="tcp://127.0.0.1:1", progress=False)
    assert time.monotonic() - start < 10
