"""Property: whatever a Python caller passes as overrides, lossless answers with a result or a
`ConfigError` naming a key, never another exception (crates/core/tests/fuzz_config.rs does the
same for the Rust core with typed mutations; this one goes through the Python conversions:
dicts, numbers, strings, lists). More examples: LOSSLESS_FUZZ_EXAMPLES=20000."""

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lossless

KEYS = [
    "simulation.warmup_ns", "simulation.measure_ns", "simulation.bin_ns", "simulation.cycle_ns", "simulation.seed", "simulation.watchdog_ns",
    "topology.k", "topology.n", "topology.bandwidth_gbps", "topology.latency_ns", "topology.host_bandwidth_gbps", "topology.kind",
    "switch.router_latency_ns", "switch.speedup", "switch.input_buffer_packets", "switch.output_buffer_bytes", "switch.bypass_limit", "switch.input_queues",
    "nic.data_packet_bytes", "nic.control_packet_bytes", "cc.mechanism", "cc.vcs", "cc.srp.epsilon", "cc.srp.n_max", "cc.ecn.threshold",
    "cc.ibcc.ccti_limit", "cc.ibcc.cct", "cc.santos.min_rate", "traffic.0.load", "traffic.0.pattern", "traffic.0.message", "traffic.0.start_ns",
    "traffic.0.rate_limit", "traffic.0.greedy", "traffic.0.on_off", "traffic.0.dest", "traffic.1.load", "routing.algorithm", "no.such.key",
]

scalars = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.booleans(),
    st.sampled_from(["srp", "ecn", "voq", "hotspot", "kary_ntree", "", "x"]),
)
values = st.one_of(scalars, st.lists(scalars, max_size=3), st.dictionaries(st.sampled_from(["kind", "packets", "mean_on_ns", "mean_off_ns"]), scalars, max_size=2))
overrides = st.dictionaries(st.sampled_from(KEYS), values, min_size=1, max_size=4)


# The suite replays the same examples every run (derandomized); LOSSLESS_FUZZ_EXAMPLES=20000
# explores new ones.
EXPLORE = os.environ.get("LOSSLESS_FUZZ_EXAMPLES")


@settings(max_examples=int(EXPLORE or 300), derandomize=EXPLORE is None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(overrides)
def test_any_overrides_give_a_result_or_a_config_error(default_example, o):
    try:
        resolved = lossless.validate(default_example, overrides=o)
    except lossless.ConfigError as e:
        assert str(e).startswith("`"), f"{o}: the message names no key: {e}"
        return
    assert resolved.startswith("[simulation]"), resolved


# Whatever a caller passes where an argument goes: a result, or an error that names the
# argument (TypeError, ValueError, lossless.ConfigError); never AttributeError, IndexError or
# KeyError from deep inside.
junk = st.one_of(
    st.none(), st.integers(), st.floats(), st.text(max_size=5), st.binary(max_size=3),
    st.lists(st.one_of(st.integers(), st.text(max_size=3), st.tuples(st.text(max_size=3))), max_size=3),
    st.dictionaries(st.one_of(st.integers(), st.text(max_size=3)), st.one_of(st.integers(), st.lists(st.integers(), max_size=2), st.none()), max_size=2),
    st.tuples(st.integers()),
)
NAMED = ("overrides", "points", "product", "zipped", "series", "seeds", "jobs", "threads", "seed", "config", "`")


def _names_an_argument(e: Exception) -> bool:
    return any(n in str(e) for n in NAMED)


@settings(max_examples=int(EXPLORE or 150), derandomize=EXPLORE is None, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(call=st.sampled_from(["validate", "run_many", "sweep"]), arg=st.sampled_from(["overrides", "seed", "points", "product", "zipped", "series", "seeds"]), value=junk)
def test_api_misuse_is_named(default_example, tmp_path_factory, call, arg, value):
    short = {"simulation.warmup_ns": 0, "simulation.measure_ns": 1000}
    try:
        if call == "validate" and arg in ("overrides", "seed"):
            lossless.validate(default_example, **{arg: value})
        elif call == "run_many" or arg == "points":
            lossless.run_many(value if arg == "points" else [(default_example, value)], jobs=1)
        else:
            lossless.sweep(default_example, tmp_path_factory.mktemp("s"), progress=False, jobs=1, overrides=short, **{arg: value})
    except (TypeError, ValueError) as e:  # lossless.ConfigError is a ValueError
        assert _names_an_argument(e), f"{call}({arg}={value!r}): {type(e).__name__}: {e}"
