"""The `lossless` command as a newcomer meets it: help, list, version, start-up."""

import signal
import subprocess
import sys


def lossless(*args):
    return subprocess.run([sys.executable, "-m", "lossless", *args], capture_output=True, text=True)


def test_help_lists_every_command_with_a_line():
    out = lossless("--help").stdout
    for command in ["run", "validate", "list", "sweep", "plot", "report", "reproduce"]:
        assert any(line.strip().startswith(command + " ") for line in out.splitlines()), f"{command} missing from:\n{out}"
    out = lossless("validate", "--help").stdout
    assert "Scenario file" in out and "Overrides a config key" in out


def test_list_names_every_choice_and_reproduction():
    p = lossless("list")
    assert p.returncode == 0
    for line in ["cc.mechanism:", "  srp ", "  kary_ntree ", "traffic.pattern:", "  hotspot ", "reproductions", "  srp-5 ", "  ib-t2 "]:
        assert line in p.stdout, line


def test_run_validate_and_version_start_without_pandas_or_matplotlib():
    # -X importtime lists every module imported; the heavy ones are for sweeps, plots, reports.
    for args in (["--version"], ["validate", "examples/fattree256_uniform.toml"]):
        p = subprocess.run([sys.executable, "-X", "importtime", "-m", "lossless", *args], capture_output=True, text=True, cwd=__file__.rsplit("/python/", 1)[0])
        assert p.returncode == 0, p.stderr
        imported = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
        assert not imported & {"pandas", "matplotlib", "numpy"}, (args, sorted(imported & {"pandas", "matplotlib", "numpy"}))
    assert lossless("--version").stdout.startswith("lossless ")


def test_a_full_disk_names_where_the_command_writes(capsys, tmp_path):
    from lossless.commands import guarded

    def write():
        # A write that fails for want of space carries no file name.
        raise OSError(28, "No space left on device")

    before = signal.getsignal(signal.SIGTERM)  # `guarded` makes SIGTERM a Ctrl-C, as for a command
    try:
        assert guarded(write, "", writing=tmp_path / "sweep") == 1
        assert capsys.readouterr().err.strip() == f"error: No space left on device: writing to {tmp_path / 'sweep'}"
        assert guarded(write, "") == 1
        assert capsys.readouterr().err.strip() == "error: No space left on device"
    finally:
        signal.signal(signal.SIGTERM, before)


def lossless_in(cwd, *args):
    return subprocess.run([sys.executable, "-m", "lossless", *args], capture_output=True, text=True, cwd=cwd)


def test_the_shipped_examples_are_reachable_from_an_empty_folder(tmp_path):
    listed = lossless_in(tmp_path, "examples")
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert "example:fattree256_uniform" in names and "example:srp/fig1_baseline" in names
    run = lossless_in(tmp_path, "run", "example:srp/fig1_baseline", "--out", "r", "-q", "--set", "simulation.measure_ns=5000")
    assert run.returncode == 0 and (tmp_path / "r" / "summary.json").is_file(), run.stderr
    # A name that is not an example is refused with the closest ones.
    bad = lossless_in(tmp_path, "validate", "example:fattree256")
    assert bad.returncode == 2 and "did you mean example:fattree256_uniform" in bad.stderr, bad.stderr
    copied = lossless_in(tmp_path, "examples", "copy", "mine")
    assert copied.returncode == 0, copied.stderr
    copies = {p.relative_to(tmp_path / "mine").as_posix().removesuffix(".toml") for p in (tmp_path / "mine").rglob("*.*")}
    assert {n.removeprefix("example:") for n in names} <= copies
    # Copying again would replace the user's (maybe edited) copies: refused, nothing written.
    (tmp_path / "mine" / "fattree256_uniform.toml").write_text("# mine")
    again = lossless_in(tmp_path, "examples", "copy", "mine")
    assert again.returncode == 2 and "copy into a new or empty folder" in again.stderr
    assert (tmp_path / "mine" / "fattree256_uniform.toml").read_text() == "# mine"


def test_reproductions_list_in_natural_order_with_their_times():
    p = lossless("reproduce", "--list")
    ids = [line.split()[0] for line in p.stdout.splitlines()]
    assert ids.index("srp-9") < ids.index("srp-10") < ids.index("srp-15") and ids.index("ib-t9") < ids.index("ib-t41")
    # Every line: the id, its short and --full times (or "-"), the title.
    for line in p.stdout.splitlines():
        parts = line.split()
        assert parts[1] == "-" or parts[2] in ("s", "min", "h"), line


def test_a_run_with_flows_prints_their_completion_times(tmp_path):
    p = lossless("run", "examples/flows/fattree256_websearch.toml", "--out", str(tmp_path / "r"), "--set", "simulation.measure_ns=200000")
    assert p.returncode == 0, p.stderr
    header = next(line for line in p.stdout.splitlines() if "FCT p50 ns" in line)
    assert header.split()[:2] == ["class", "flows"] and "slow" in header


def test_a_run_larger_than_the_address_space_limit_is_refused_naming_it(tmp_path):
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, resource.RLIM_INFINITY))

    # 2^16 hosts in a binary tree: about 2.9 GiB, more than 80% of 2 GiB.
    config = tmp_path / "tree.toml"
    config.write_text('[topology]\nkind = "kary_ntree"\nk = 2\nn = 16\n[[traffic]]\npattern = "uniform"\nload = 0.1\n')
    p = subprocess.run([sys.executable, "-m", "lossless", "validate", str(config)], capture_output=True, text=True, preexec_fn=limit)
    assert p.returncode == 2, p.stderr
    assert "this process's address-space limit (ulimit -v), 2.0 GiB" in p.stderr, p.stderr


def test_where_and_set_read_values_by_one_rule():
    from lossless.commands import parse_set

    # As `lossless run --set` (crates/core/src/config/overrides.rs): TOML, else a plain string.
    assert parse_set(["series=srp", "traffic.0.load=0.5", 'name="a b"', "vcs=[1, 2]", "on=true"], "--where") == {
        "series": "srp", "traffic.0.load": 0.5, "name": "a b", "vcs": [1, 2], "on": True,
    }
