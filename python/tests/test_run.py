"""The Python API runs the same simulation as the CLI and returns DataFrames."""

import json
import subprocess
import sys

import pandas as pd
import pytest

import lossless
from lossless.run import class_rows

SHORT = ["simulation.measure_ns=20000"]


def test_run_returns_dataframes_with_the_documented_columns(default_example):
    r = lossless.run(default_example, overrides=SHORT)
    c = r.classes
    assert list(c.index) == ["uniform"]
    assert c.loc["uniform", "offered"] == pytest.approx(0.4, abs=0.03)
    assert c.loc["uniform", "accepted"] == pytest.approx(0.4, abs=0.03)
    for col in ["packet_latency_mean_ns", "inflight_latency_p99_ns", "network_latency_p999_ns"]:
        assert c.loc["uniform", col] >= 294.8  # never below zero-load latency
    assert len(r.sources) == 256
    assert set(r.timeseries.columns) >= {"class", "bin_start_ns", "offered", "accepted", "packets"}
    assert len(r.timeseries) == 40  # 40 us of 1 us bins
    assert (r.links["utilization"] <= 1.0 + 1e-9).all()
    assert (r.links["drops"] == 0).all()  # credits lose nothing
    k = r.counters
    assert k["in_flight"] == k["injected"] - k["delivered"] - k["dropped"]
    assert c.loc["uniform", "marked"] == 0.0  # no congestion control, no marks
    # A class's sources are every host here: their throughput is the sources table's.
    per_class = r.class_sources("uniform")
    assert list(per_class.index) == list(range(256)) and (per_class.to_numpy() == r.sources["accepted"].to_numpy()).all()
    with pytest.raises(KeyError, match=r"no traffic class `nosuch` \(classes: uniform\)"):
        r.class_sources("nosuch")


def test_flows_are_rows_of_completed_messages_only_when_recorded(default_example):
    kept = lossless.run(default_example, overrides=SHORT + ["simulation.record_flows=true"])
    f = kept.flows
    assert list(f.columns) == ["class", "src", "dst", "packets", "bytes", "start_ns", "fct_ns", "ideal_ns", "slowdown"]
    c = kept.classes.loc["uniform"]
    assert len(f) == c["fct_count"] > 100
    assert (f.slowdown >= 1.0).all() and (f.fct_ns >= f.ideal_ns).all()
    assert f.fct_ns.mean() == pytest.approx(c["fct_mean_ns"])
    assert c["slowdown_p99"] >= c["slowdown_p50"] >= 1.0
    plain = lossless.run(default_example, overrides=SHORT)
    assert plain.classes.loc["uniform", "fct_mean_ns"] == c["fct_mean_ns"]  # the same run
    with pytest.raises(ValueError, match="record_flows = true"):
        plain.flows


def test_summaries_stored_before_fcts_existed_have_no_fct_columns(default_example):
    summary = lossless.run(default_example, overrides=SHORT).summary
    for key in ("fct_ns", "slowdown", "unfinished_messages"):
        del summary["classes"]["uniform"][key]
    row = class_rows(summary)[0]
    assert "fct_mean_ns" not in row and "slowdown_p99" not in row
    assert row["accepted"] == summary["classes"]["uniform"]["accepted"]


def test_summaries_stored_before_marked_existed_read_it_as_not_measured(default_example):
    summary = lossless.run(default_example, overrides=SHORT).summary
    del summary["classes"]["uniform"]["marked"]
    rows = class_rows(summary)
    assert pd.isna(rows[0]["marked"])
    assert rows[0]["accepted"] == summary["classes"]["uniform"]["accepted"]


def test_lossy_links_report_their_drops(default_example):
    # A 4:1 incast on lossy links: the hot spot's link carries one sender's worth, and the
    # switches drop the rest, counted per link and for the run.
    hot = {"name": "hotspot", "pattern": "hotspot", "sources": [0, 1, 2, 3], "dest": 200, "greedy": True}
    r = lossless.run(default_example, overrides={"simulation.measure_ns": 20000, "flow_control": {"kind": "lossy"}, "traffic": [hot]})
    assert r.links["drops"].sum() > 0
    assert r.counters["dropped"] >= r.links["drops"].sum()
    assert r.classes.loc["hotspot", "accepted"] * 4 == pytest.approx(1.0, abs=0.02)


def test_python_and_cli_give_the_same_result(default_example, tmp_path):
    r = lossless.run(default_example, seed=3, overrides=SHORT)
    out = tmp_path / "run"
    p = subprocess.run(
        [sys.executable, "-m", "lossless", "run", str(default_example), "--out", str(out), "--seed", "3", "--set", SHORT[0], "-q"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    cli = json.loads((out / "summary.json").read_text())
    assert cli["classes"] == r.summary["classes"]
    assert cli["sources"] == r.summary["sources"]
    series = pd.read_csv(out / "timeseries.csv")
    pd.testing.assert_frame_equal(series, r.timeseries, check_dtype=False)
    assert not (out / "flows.csv").exists()


def test_the_cli_writes_flows_csv_when_flows_are_recorded(default_example, tmp_path):
    flows = SHORT + ["simulation.record_flows=true"]
    r = lossless.run(default_example, overrides=flows)
    out = tmp_path / "run"
    p = subprocess.run(
        [sys.executable, "-m", "lossless", "run", str(default_example), "--out", str(out), "-q", *[a for o in flows for a in ("--set", o)]],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    pd.testing.assert_frame_equal(pd.read_csv(out / "flows.csv"), r.flows, check_dtype=False)


def test_dict_config_and_overrides(fig1_example):
    import tomllib

    cfg = tomllib.loads(fig1_example.read_text())
    r = lossless.run(cfg, overrides={"simulation.measure_ns": 100_000})
    s = r.sources["accepted"]
    # SRP Fig. 1 baseline: S3..S5 get twice what S1, S2 get (per-input round-robin).
    assert s[3] / s[1] == pytest.approx(2.0, rel=0.05)
    util = r.links.set_index("name")["utilization"]
    assert util["L2>"] == pytest.approx(1.0, abs=0.01)


def test_same_seed_same_result_different_seed_different(default_example):
    a = lossless.run(default_example, seed=5, overrides=SHORT).summary
    b = lossless.run(default_example, seed=5, overrides=SHORT).summary
    c = lossless.run(default_example, seed=6, overrides=SHORT).summary
    for s in (a, b, c):
        s.pop("wall_s")
    assert a == b
    assert a["classes"] != c["classes"]


def test_threads_give_the_same_result_and_bad_counts_are_refused(default_example):
    one = lossless.run(default_example, overrides=SHORT)
    two = lossless.run(default_example, overrides=SHORT, threads=2)
    for r in (one, two):
        r.summary.pop("wall_s")
    assert one.summary == two.summary
    pd.testing.assert_frame_equal(one.links, two.links)
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(lossless.ConfigError, match="`threads`"):
            lossless.run(default_example, overrides=SHORT, threads=bad)
    with pytest.raises(lossless.ConfigError, match="simulation.threads.*no latency"):
        lossless.run(default_example, overrides=[*SHORT, "topology.latency_ns=0"], threads=2)


@pytest.mark.parametrize(
    "overrides, key",
    [
        ({"traffic.0.load": 1.5}, "traffic[0].load"),
        ({"traffic.0.lod": 0.5}, "traffic[0].lod"),
        ({"topology.k": 1}, "topology.k"),
        ({"traffic.0.pattern": "hotspot", "traffic.0.dest": 9999}, "traffic[0].dest"),
        ({"flow_control": {"kind": "lossy", "output_queue_bytes": 4096}}, "flow_control.output_queue_bytes"),
        ({"cc.mechanism": "tcp", "cc.tcp.receiver_window_segments": 0}, "cc.tcp.receiver_window_segments"),
    ],
)
def test_bad_input_raises_config_error_naming_the_key(default_example, overrides, key):
    with pytest.raises(lossless.ConfigError, match=key.replace("[", r"\[").replace("]", r"\]")):
        lossless.run(default_example, overrides=overrides)
    assert issubclass(lossless.ConfigError, ValueError)


def test_bad_arguments_are_refused_clearly(default_example):
    with pytest.raises(FileNotFoundError):
        lossless.run("missing.toml")
    with pytest.raises(TypeError, match="overrides must be"):
        lossless.run(default_example, overrides="traffic.0.load=0.5")
    with pytest.raises(lossless.ConfigError, match="seed"):
        lossless.run(default_example, seed=-1)


def test_numpy_numbers_and_arrays_read_as_the_values_they_hold(default_example):
    import tomllib

    import numpy as np

    cfg = tomllib.loads(default_example.read_text())
    cfg["simulation"]["measure_ns"] = 20_000
    by_hand = lossless.run(cfg, seed=3, overrides={"traffic.0.load": 0.25, "traffic.0.message.packets": 2}, threads=1).summary
    cfg["simulation"]["measure_ns"] = np.int64(20_000)
    with_numpy = lossless.run(cfg, seed=np.int64(3), overrides={"traffic.0.load": np.float64(0.25), "traffic.0.message.packets": np.int32(2)}, threads=np.int64(1)).summary
    for s in (by_hand, with_numpy):
        s.pop("wall_s")
    assert with_numpy == by_hand


def test_none_and_non_finite_numbers_are_refused_naming_their_key(default_example):
    import tomllib

    cfg = tomllib.loads(default_example.read_text())
    cfg["traffic"][0]["load"] = None
    with pytest.raises(lossless.ConfigError, match=r"`traffic\[0\]\.load`: None has no TOML form"):
        lossless.run(cfg)
    cfg["traffic"][0]["load"] = float("nan")
    with pytest.raises(lossless.ConfigError, match=r"`traffic\[0\]\.load`: must be a finite number, got nan"):
        lossless.run(cfg)
    # In overrides, None removes the key, as `--unset` does: the load is then missing.
    with pytest.raises(lossless.ConfigError, match=r"`traffic\[0\]\.load`: is required"):
        lossless.run(default_example, overrides={"traffic.0.load": None})
    with pytest.raises(lossless.ConfigError, match=r"`traffic\.0\.message\.kind`: None has no TOML form"):
        lossless.run(default_example, overrides={"traffic.0.message": {"kind": None}})


def test_validate_returns_resolved_config(default_example):
    text = lossless.validate(default_example, overrides={"traffic.0.load": 0.25})
    assert "load = 0.25" in text


def test_cli_script_exit_status(default_example, tmp_path):
    out = tmp_path / "bad"
    p = subprocess.run(["lossless", "run", str(default_example), "--out", str(out), "--set", "traffic.0.load=7"], capture_output=True, text=True)
    assert p.returncode == 2
    assert "traffic[0].load" in p.stderr
    assert "Traceback" not in p.stderr
    assert not out.exists()


def test_treatment_variation_follows_paper_iii():
    import pandas as pd

    from lossless.fairness import treatment_variation

    # Two contributors over three bins: deltas 0.2, 0.0, 0.4 (the first bin is before start).
    ts = pd.DataFrame({
        "class": ["a", "b"] * 4,
        "bin_start_ns": [0, 0, 10, 10, 20, 20, 30, 30],
        "accepted": [0.9, 0.0, 0.5, 0.3, 0.4, 0.4, 0.6, 0.2],
    })
    tv = treatment_variation(ts, ["a", "b"], start_ns=10)
    assert tv.bins == 3
    assert tv.mean_delta == pytest.approx(0.2)
    assert tv.var == pytest.approx(((0.0) ** 2 + 0.2**2 + 0.2**2) / 3)
    with pytest.raises(KeyError):
        treatment_variation(ts, ["a", "c"], start_ns=0)


def test_what_the_cli_warns_of_a_python_run_warns_of_too(default_example):
    # A class that starts after the run's end sends nothing: the command line said so, Python
    # said nothing.
    with pytest.warns(UserWarning, match=r"`traffic\[0\].start_ns` \(1000000 ns\) is not before the end of the run .*: class `uniform` sends nothing") as caught:
        r = lossless.run(default_example, overrides=[*SHORT, "traffic.0.start_ns=1e6"])
    assert r.summary["classes"]["uniform"]["offered"] == 0
    assert caught[0].filename == __file__, "the warning points at the caller"


def test_the_old_keyword_names_still_work_with_a_warning(default_example):
    # `set=` and `zip=` shadowed Python builtins; they are `overrides=` and `zipped=` now.
    with pytest.warns(DeprecationWarning, match="`set=` is deprecated, use `overrides=`"):
        old = lossless.run(default_example, set=SHORT).summary
    new = lossless.run(default_example, overrides=SHORT).summary
    assert old["classes"] == new["classes"]
    with pytest.raises(TypeError, match="not both"):
        lossless.run(default_example, set=SHORT, overrides=SHORT)
