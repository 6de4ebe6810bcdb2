"""`lossless reproduce`: targets run, print paper vs ours, and write their figure and checks."""

import csv
import signal
import subprocess
import time

import pytest

from lossless.reproduce import TARGETS, reproduce


def test_targets_are_registered():
    assert {"srp-1", "srp-4", "srp-5", "srp-6", "srp-7", "srp-8", "srp-9", "srp-10", "srp-11", "srp-12", "srp-13", "srp-14", "srp-15"} <= set(TARGETS)
    assert {"ib-t2", "ib-t4", "ib-t7", "ib-t8", "ib-t9", "ib-t41", "ib-t42", "ib-t43", "ib-t44", "ib-t45", "ib-t46", "ib-t47"} <= set(TARGETS)
    assert {"san-2", "san-3", "san-4", "san-5", "san-6", "san-7"} <= set(TARGETS)
    assert {"cbcm-2", "cbcm-3", "cbcm-5", "cbcm-8", "cbcm-9", "cbcm-11", "cbcm-12", "cbcm-13", "cbcm-14"} <= set(TARGETS)
    assert {"acc-3", "acc-4", "acc-5"} <= set(TARGETS)
    assert {"ib-t51", "ib-t52", "ib-t53", "ib-t61", "ib-t62", "ib-t63", "ib-t65"} <= set(TARGETS)


def test_ib_t51_orders_the_isolation_techniques(tmp_path):
    # IB-T5.1 in short mode (15 runs of 3 ms on 64 nodes): every ordering of Paper V's Fig. 8
    # holds; ITh's saw-tooth does not show (docs/validation.md).
    r = reproduce("ib-t51", tmp_path)
    missed = [c.headline for c in r.checks if not c.ok]
    assert missed == ["4 and 6 trees: ITh saw-tooth"], r.table()
    assert (tmp_path / "ib-t51" / "figure.png").stat().st_size > 10_000


def test_ib_t62_and_t65(tmp_path):
    # IB-T6.2 in short mode (10 runs of 3 ms on 64 nodes): one root needs no more than the two
    # HPQs; with six EcoCC is not 10% ahead of HFDI (docs/validation.md). IB-T6.5 is arithmetic.
    r = reproduce("ib-t62", tmp_path)
    assert [c.headline for c in r.checks if not c.ok] == ["64 nodes, 6 roots: EcoCC > HFDI"], r.table()
    assert reproduce("ib-t65", tmp_path).ok


def test_cbcm_2_reproduces(tmp_path):
    # CBCM-2 in short mode (16 nodes in cycles, single-flit packets): UGAL spreads the hot spot.
    r = reproduce("cbcm-2", tmp_path)
    assert r.ok, r.table()
    assert (tmp_path / "cbcm-2" / "figure.png").stat().st_size > 10_000


# Every check of these holds in short mode: ACC-4's PAUSE-only recovers once f4's half of H1's
# 64 KB transmit FIFO has drained; IB-T8 runs 8 runs of 100 ms on 7 hosts; IB-T5.2 is a parking
# lot with a victim, IB-T5.3 the same with contributors joining over time; SRP-11's waste is of
# every channel's bandwidth (docs/validation.md). San-5 switches classes off by starting them after
# the run, which a run warns of: a target keeps that warning to itself.
@pytest.mark.filterwarnings("error:.*sends nothing:UserWarning")
@pytest.mark.parametrize("target", ["acc-3", "acc-4", "ib-t8", "ib-t52", "ib-t53", "san-2", "san-5", "srp-11", "srp-12"])
def test_short_reproductions_hold(tmp_path, target):
    r = reproduce(target, tmp_path)
    assert r.ok, r.table()


def test_reproduce_threads_gives_the_same_checks_and_refuses_a_bad_count(tmp_path):
    # ACC-3 runs TCP over PFC and ACCurate: both split over threads.
    args = ["lossless", "reproduce", "acc-3", "--out"]
    one = subprocess.run([*args, str(tmp_path / "one")], capture_output=True, text=True)
    two = subprocess.run([*args, str(tmp_path / "two"), "--threads", "2"], capture_output=True, text=True)
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert (tmp_path / "one" / "acc-3" / "checks.csv").read_text() == (tmp_path / "two" / "acc-3" / "checks.csv").read_text()
    bad = subprocess.run([*args, str(tmp_path / "bad"), "--threads", "-1"], capture_output=True, text=True)
    assert bad.returncode == 2 and "`threads`" in bad.stderr and "Traceback" not in bad.stderr, bad.stderr


def test_ib_t2_reproduces(tmp_path):
    # IB-T2/T3 in short mode (100 ms phases): every headline holds.
    r = reproduce("ib-t2", tmp_path)
    assert r.ok, r.table()
    assert (tmp_path / "ib-t2" / "figure.png").stat().st_size > 10_000


def test_srp1_reproduces_and_writes_its_figure(tmp_path):
    r = reproduce("srp-1", tmp_path)
    assert r.ok, r.table()
    assert (tmp_path / "srp-1" / "figure.png").stat().st_size > 10_000
    rows = list(csv.DictReader(open(tmp_path / "srp-1" / "checks.csv")))
    assert [row["headline"] for row in rows][:2] == ["L2 utilization", "S1, S2 vs S3..S5"]
    assert all(row["ok"] == "True" for row in rows)


def test_cli_reports_gaps_with_exit_status_1(tmp_path):
    # SRP-4's S0 gain read as relative to its baseline is a documented gap (docs/validation.md):
    # the command says so.
    p = subprocess.run(["lossless", "reproduce", "srp-4", "--out", str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 1, p.stderr
    gap = next(line for line in p.stdout.splitlines() if line.startswith("S0 gain, relative"))
    assert "NOT REPRODUCED" in gap
    assert (tmp_path / "srp-4" / "figure.png").exists()


def test_cli_lists_and_refuses_unknown_targets():
    p = subprocess.run(["lossless", "reproduce", "--list"], capture_output=True, text=True)
    assert p.returncode == 0 and "srp-5" in p.stdout
    p = subprocess.run(["lossless", "reproduce", "srp-99"], capture_output=True, text=True)
    assert p.returncode == 2 and "unknown reproduction" in p.stderr
    p = subprocess.run(["lossless", "reproduce", "srp-14", "--jobs", "-1"], capture_output=True, text=True)
    assert p.returncode == 2 and "--jobs: give a positive number" in p.stderr


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_reproduction_stops_its_simulations_and_says_so(tmp_path, how):
    # ib-t42 runs ten simulations of minutes each, two at a time on worker threads, which a
    # signal does not reach: before, Ctrl-C waited for every one of them.
    proc = subprocess.Popen(
        ["lossless", "reproduce", "ib-t42", "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell starts background jobs with SIGINT ignored: give the default, as a terminal's Ctrl-C finds it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr.readline().strip() == "ib-t42: running ..."
    time.sleep(2)
    proc.send_signal(how)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted: the target running wrote no checks.csv" in err and "Traceback" not in err, err
    assert not (tmp_path / "ib-t42" / "checks.csv").exists()


def test_windy_forest_runs_go_costliest_first_and_keep_their_keys(monkeypatch):
    # The p = 0 runs first, then IB CC by p, then no CC by p, so the cores finish together
    #; whatever the order, each key gets the result of its own config.
    from lossless.reproduce import ibcc

    submitted = []

    def fake_run_many(points, jobs):
        submitted.extend(cfg for cfg, _ in points)
        return [f"result of {cfg}" for cfg, _ in points]

    monkeypatch.setattr(ibcc, "run_many", fake_run_many)
    keys = [(b, p, m) for b in (0.25, 0.5) for p in ibcc.WINDY_P for m in ("none", "ibcc")]
    runs = ibcc._run_windy(keys, lambda b, p, m: f"{b}/{p}/{m}", jobs=2)
    assert runs == {k: f"result of {k[0]}/{k[1]}/{k[2]}" for k in keys}
    assert submitted[:6] == ["0.25/0/ibcc", "0.5/0/ibcc", "0.25/0/none", "0.5/0/none", "0.25/10/ibcc", "0.5/10/ibcc"]
    assert submitted[-2:] == ["0.25/90/none", "0.5/90/none"]


def test_transient_average_has_confidence_bands():
    import pandas as pd

    from lossless.transient import average_series

    a = pd.Series([1.0, 2.0], index=[0.0, 1000.0])
    b = pd.Series([3.0, 2.0], index=[0.0, 1000.0])
    avg = average_series([a, b])
    assert list(avg["mean"]) == [2.0, 2.0]
    # 1.96 x sample std (sqrt(2)) / sqrt(2 seeds) = 1.96 in the first bin, 0 in the second.
    assert avg["ci95"].iloc[0] == pytest.approx(1.96)
    assert avg["ci95"].iloc[1] == 0.0
    assert list(avg["seeds"]) == [2, 2]


def test_reproductions_run_outside_a_checkout(tmp_path):
    # The example configs ship inside the package: from a directory with no examples/ at all,
    # a reproduction runs and writes its figure and checks.
    p = subprocess.run(["lossless", "reproduce", "srp-1", "--out", str(tmp_path / "r")], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode in (0, 1), p.stderr
    assert (tmp_path / "r" / "srp-1" / "figure.png").is_file() and (tmp_path / "r" / "srp-1" / "checks.csv").is_file()
    assert "Traceback" not in p.stderr
