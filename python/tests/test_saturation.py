"""The saturation search agrees with a fine manual load scan (to within its resolution)."""

import pytest

import lossless

# Uniform random, 8-packet messages; short windows keep the test fast (and make the search
# conservative: see the window bias in saturation.py).
SET = {"traffic.0.message": {"kind": "fixed", "packets": 8}, "simulation.warmup_ns": 10_000, "simulation.measure_ns": 30_000}


def saturated(r: lossless.Result, reference_ns: float) -> bool:
    c = r.summary["classes"]["uniform"]
    return c["accepted"] < c["offered"] - 0.02 or c["packet_latency_ns"]["mean"] > 10 * reference_ns


def test_bisection_matches_a_fine_scan(default_example):
    s = lossless.saturation(default_example, overrides=SET, resolution=0.02)
    assert s.above is not None and s.above.load - s.below.load <= 0.02
    assert not s.below.saturated and s.above.saturated
    # A scan in steps of 0.02 with the same criterion finds the same boundary.
    reference = lossless.run(default_example, overrides={**SET, "traffic.0.load": 0.05}).summary["classes"]["uniform"]["packet_latency_ns"]["mean"]
    loads = [round(0.5 + 0.02 * i, 2) for i in range(26)]
    scan = lossless.run_many([(default_example, {**SET, "traffic.0.load": l}) for l in loads])
    first = next(l for l, r in zip(loads, scan) if saturated(r, reference))
    assert s.below.load < first + 0.02 and s.above.load > first - 0.04, (s.below, s.above, first)
    assert s.throughput == pytest.approx(s.below.accepted)


def test_bad_arguments(default_example):
    with pytest.raises(ValueError):
        lossless.saturation(default_example, low=0.5, high=0.4)


def test_overload_throughput_is_the_accepted_rate_at_full_load(default_example):
    over = {**SET, "simulation.warmup_ns": 30_000}
    carried = lossless.overload_throughput(default_example, overrides={**over, "traffic.0.load": 0.3})
    # The class's load is raised to 1.0 whatever the config or `set` say, and the network is
    # then past saturation: it carries less than it is offered.
    direct = lossless.run(default_example, overrides={**over, "traffic.0.load": 1.0}).summary["classes"]["uniform"]
    assert carried == direct["accepted"]
    assert direct["offered"] > 0.99 and carried < direct["offered"] - 0.05
