"""A run can always be stopped, never panics into Python, and never reports a deadlocked network
as a finished run."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import lossless

# Four switches in a ring, clockwise two-hop routes, greedy shift-2 traffic: it locks at once.
RING = Path(__file__).resolve().parents[2] / "examples" / "deadlock" / "ring4_clockwise.toml"


def ctrl_c(call: str) -> float:
    """Seconds a Python process running `call` (after importing lossless) takes to end on Ctrl-C
    sent a second after it starts; asserts that it ends by KeyboardInterrupt."""
    script = f"import lossless\nprint('started', flush=True)\n{call}\n"
    # A shell starts background jobs with SIGINT ignored, and Python keeps an ignored SIGINT:
    # give the run the default, as a terminal's Ctrl-C finds it, wherever the suite runs.
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout.readline().strip() == "started"
    time.sleep(1.0)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err, err
    return time.monotonic() - sent


def test_ctrl_c_stops_a_python_run_promptly(default_example):
    # 100 ms of simulated time on 256 hosts: minutes of work, so only Ctrl-C can end it soon.
    waited = ctrl_c(f"lossless.run({str(default_example)!r}, overrides={{'simulation.measure_ns': 1e8}})")
    # Before, the run ignored Ctrl-C until it ended; now it checks every 65,536 events.
    assert waited < 10, f"took {waited:.1f} s to stop"


def test_ctrl_c_stops_the_runs_of_every_thread(default_example):
    # Three such runs, two at a time on worker threads, where a signal does not reach: the main
    # thread stops them (`stop_runs`) and drops the one queued.
    waited = ctrl_c(f"lossless.run_many([({str(default_example)!r}, {{'simulation.measure_ns': 1e8}})] * 3, jobs=2)")
    # Before, the worker threads' runs went on to their end, and the queued one after them.
    assert waited < 10, f"took {waited:.1f} s to stop"


def test_a_deadlocked_run_raises_with_the_results_up_to_then():
    with pytest.raises(lossless.DeadlockError) as e:
        lossless.run(RING)
    d = e.value.result.summary["deadlock"]
    assert sorted(d["cycle"]) == ["s0-s1>", "s1-s2>", "s2-s3>", "s3-s0>"]
    assert "s0-s1>" in str(e.value)


def test_a_deadlocked_sweep_point_is_a_failure_and_the_others_run(tmp_path):
    # The clockwise routes lock; with s1 and s3 routing counterclockwise there is no cycle.
    r = lossless.sweep(
        RING,
        tmp_path / "s",
        zipped={
            "routing.shortest_path.routes.1.next": ["s2", "s0"],
            "routing.shortest_path.routes.3.next": ["s0", "s2"],
        },
        overrides={"simulation.measure_ns": 20_000},
        jobs=1,
        progress=False,
    )
    assert list(r.failures["kind"]) == ["deadlock"]
    assert "s0-s1>" in r.failures["message"].iloc[0]
    assert len(r.meta) == 1


def test_errors_of_lossless_are_ordinary_exceptions():
    # A bug surfaces as lossless.InternalError, not as pyo3's PanicException (a BaseException
    # that `except Exception` lets through).
    assert issubclass(lossless.InternalError, Exception)
    assert issubclass(lossless.DeadlockError, Exception) and issubclass(lossless.ConfigError, ValueError)


def test_a_point_that_fails_validation_with_a_bug_is_recorded_and_the_others_run(tmp_path, default_example, monkeypatch):
    from lossless import _lossless, sweeps

    real = _lossless.validate

    def buggy(**kw):
        if "traffic.0.load=0.3" in kw.get("overrides", []):
            raise _lossless.InternalError("internal error, please report it with the config: a test's bug")
        return real(**kw)

    monkeypatch.setattr(sweeps._lossless, "validate", buggy)
    r = lossless.sweep(default_example, tmp_path / "s", product={"traffic.0.load": [0.2, 0.3]}, overrides={"simulation.measure_ns": 2_000}, jobs=1, progress=False)
    assert list(r.failures["kind"]) == ["crash"] and list(r.failures["traffic.0.load"]) == [0.3]
    assert len(r.meta) == 1 and (tmp_path / "s" / "sweep.json").is_file()
