"""No output option may cost a user a file: the rule of `lossless.outputs`, command by command."""

import subprocess
import sys
from pathlib import Path

import pytest

import lossless

SHORT = {"simulation.warmup_ns": 0, "simulation.measure_ns": 2_000}


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "lossless", *map(str, args)], capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory, default_example) -> Path:
    out = tmp_path_factory.mktemp("sweep") / "s"
    lossless.sweep(default_example, out, product={"traffic.0.load": [0.2, 0.4]}, overrides=SHORT, jobs=1, progress=False)
    return out


def users_dir(parent: Path, name: str = "mine") -> Path:
    d = parent / name
    d.mkdir(parents=True)
    (d / "keep").write_text("a user's file")
    return d


def test_sweep_refuses_a_directory_it_did_not_write(tmp_path, default_example):
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[sweep]\nbase = "{default_example}"\n[sweep.product]\n"traffic.0.load" = [0.2]\n')
    mine = users_dir(tmp_path)
    (tmp_path / "afile").write_text("x")
    for out in [mine, tmp_path / "afile", Path("."), Path("..")]:
        p = cli("sweep", spec, "--out", out, "-q", cwd=mine)
        assert p.returncode == 2, (out, p.stderr)
        assert f"--out {out}" in p.stderr and "Traceback" not in p.stderr
    assert sorted(x.name for x in mine.iterdir()) == ["keep"]
    assert (mine / "keep").read_text() == "a user's file"


def test_a_sweep_never_writes_into_a_run_directory(tmp_path, default_example):
    run = tmp_path / "run"
    p = cli("run", default_example, "--out", run, "-q", "--set", "simulation.measure_ns=2000")
    assert p.returncode == 0, p.stderr
    before = sorted(x.name for x in run.iterdir())
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[sweep]\nbase = "{default_example}"\n[sweep.product]\n"traffic.0.load" = [0.2]\n')
    p = cli("sweep", spec, "--out", run, "-q")
    assert p.returncode == 2 and "holds the results of `lossless run`" in p.stderr, p.stderr
    assert sorted(x.name for x in run.iterdir()) == before


def test_a_sweep_directory_is_resumed_not_refused(small_sweep, default_example):
    # Written by lossless: a second sweep into it reuses its points.
    r = lossless.sweep(default_example, small_sweep, product={"traffic.0.load": [0.2, 0.4]}, overrides=SHORT, jobs=1, progress=False)
    assert len(r.meta) == 2
    assert (small_sweep / ".lossless").is_file()


def test_reproduce_refuses_a_target_directory_it_did_not_write(tmp_path):
    users_dir(tmp_path / "root", "srp-1")
    p = cli("reproduce", "srp-1", "--out", tmp_path / "root")
    assert p.returncode == 2, p.stderr
    assert "srp-1" in p.stderr and "not written by lossless" in p.stderr and "Traceback" not in p.stderr
    assert (tmp_path / "root" / "srp-1" / "keep").read_text() == "a user's file"


def test_plot_and_report_output_errors_are_one_line(small_sweep, tmp_path):
    p = cli("plot", small_sweep, "--kind", "accepted", "--out", tmp_path / "no" / "such" / "dir.png")
    assert p.returncode == 2 and "does not exist" in p.stderr and "Traceback" not in p.stderr
    p = cli("plot", small_sweep, "--kind", "accepted", "--out", tmp_path)
    assert p.returncode == 2 and "give a file name ending in .png or .svg" in p.stderr
    # /sys refuses new files even to root: the file system's own failure, exit 1, one line.
    for args in (["plot", small_sweep, "--kind", "accepted", "--out", "/sys/fig.png"], ["report", small_sweep, "--out", "/sys/report.html"]):
        p = cli(*args)
        assert p.returncode == 1, p.stderr
        assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_the_bad_input_table_in_the_docs_is_what_lossless_says_now():
    root = Path(__file__).resolve().parents[2]
    p = subprocess.run([sys.executable, str(root / "scripts" / "bad_input_table.py"), "--check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
