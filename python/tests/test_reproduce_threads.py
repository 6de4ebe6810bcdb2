"""Every setting `lossless reproduce` runs gives the same results on one thread and on two.

Each target runs in short mode with every run cut to a few microseconds (its checks then mean
nothing: only the settings are wanted). The first run of each setting is also run for 20 us on
one thread and on two threads with the switches dealt out in turn, so that every channel
between switches crosses threads, and the two results must be identical. A setting is the
config and the overrides whose values are not numbers: a load, a seed or a TTW only moves a
point along a curve (also inside a table: a `traffic` given whole), a mechanism or a queue
organization is another setting. Sweeps run in worker processes out of reach, so their points
are run here instead.
"""

import hashlib
import itertools
import json
import re
import sys
import threading

import pytest

import lossless
from lossless.reproduce import TARGETS, ibcc, reproduce, santos

# Targets that simulate nothing (IB-T6.5 is arithmetic).
RUN_NOTHING = {"ib-t65"}
COMPARED = ["simulation.warmup_ns=5000", "simulation.measure_ns=15000"]
CUT = ["simulation.warmup_ns=0", "simulation.measure_ns=2000"]


class _SweepRan(Exception):
    """A target's sweep has run its points here; the target cannot go on without its result."""


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _shape(value: str) -> str:
    """An override's value as a setting: a table or array (a whole `traffic`) without its
    numbers, so that tables that differ only in a load are one setting."""
    return re.sub(r"-?\d+(\.\d+)?([eE]-?\d+)?", "#", value) if value.startswith(("[", "{")) else value


def _setting(config: dict, overrides: list[str]) -> tuple:
    source = hashlib.sha1(json.dumps(config, sort_keys=True).encode()).hexdigest()
    pairs = (o.split("=", 1) for o in overrides)
    return source, tuple(sorted(k if _is_number(v) else f"{k}={_shape(v)}" for k, v in pairs))


def _deterministic(out) -> tuple:
    summary = json.loads(out[0])
    summary.pop("wall_s")
    return (json.dumps(summary, sort_keys=True), *out[1:])


def _clear_shared_runs() -> None:
    """Empties the caches through which targets share runs (`functools.lru_cache`s of the
    reproduction modules: SRP's uniform sweep, CBCM's 512-node runs), so that each target here
    runs its own settings whichever ran before it in this process, and leaves none of these cut
    runs for a later test."""
    for name, module in list(sys.modules.items()):
        if name.startswith("lossless.reproduce"):
            for cached in [v for v in vars(module).values() if hasattr(v, "cache_clear")]:
                cached.cache_clear()


# Settings compared in this process so far: a setting several targets run is compared once per
# test process (once per worker under pytest-xdist).
_COMPARED_SETTINGS: set = set()
_LOCK = threading.Lock()


# One test per target, so that the targets spread over pytest's workers (all of them in one test
# took 101 s, the suite's longest). Checks over runs of 2 us divide by zero; their figures are
# not wanted here. Classes a target starts later than 2 us send nothing in them, as the run warns.
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:.*sends nothing:UserWarning")
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_setting_reproduce_runs_gives_the_same_results_on_two_threads(tmp_path, monkeypatch, target):
    native = sys.modules["lossless.run"]._lossless
    run = native.run
    seen, differ = set(), []

    def intercept(*, overrides, **config):
        setting = _setting(config, overrides)
        with _LOCK:
            seen.add(setting)
            first = setting not in _COMPARED_SETTINGS
            _COMPARED_SETTINGS.add(setting)
        if first:
            try:
                one = run(**config, overrides=[*overrides, *COMPARED, "simulation.threads=1"])
                two = run(**config, overrides=[*overrides, *COMPARED, "simulation.threads=2", 'simulation.partition="round_robin"'])
                if _deterministic(one) != _deterministic(two):
                    differ.append((setting, "results differ"))
            except Exception as e:  # refused on two threads, or a crash: the target would swallow it
                differ.append((setting, repr(e)))
        return run(**config, overrides=[*overrides, *CUT])

    def sweep(base, _out, *, overrides, product, **_):
        for values in itertools.product(*product.values()):
            lossless.run(base, overrides={**overrides, **dict(zip(product, values))})
        raise _SweepRan

    monkeypatch.setattr(native, "run", intercept)
    for module in (ibcc, santos):
        monkeypatch.setattr(module, "sweep", sweep)
    _clear_shared_runs()
    try:
        reproduce(target, tmp_path, jobs=1)
    except Exception:  # checks over runs of 2 us divide by zero, find no series...
        pass
    finally:
        _clear_shared_runs()
    assert not differ, differ
    # Every target but those that simulate nothing ran settings, each compared by this test or
    # by an earlier one in this process.
    assert bool(seen) == (target not in RUN_NOTHING), seen
