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
