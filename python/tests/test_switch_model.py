"""The switch against an ideal output-queued network.

SRP paper §4: the crossbar's 2x speedup "combined with VOQ ... results in nearly 100% router
throughput". Then the only queuing left is for busy output links, and mean latency should be
that of a network whose switches queue at their outputs in unlimited FIFOs, with no credits
and no allocation losses. Mean waiting does not depend on the order a queue serves in when all
packets take the same time, so FIFO outputs stand in for our round-robin arbiters.
"""

from collections import Counter, deque

import numpy as np
import pytest

import lossless

# The reference network of examples/fattree256_uniform.toml (SRP paper §4): 2048-bit packets on
# 10 Gb/s links, 32 ns channels, 26 ns routers, a 16-ary 2-tree of 256 hosts.
PACKET_NS, LINK_NS, ROUTER_NS = 204.8, 32.0, 26.0
HOSTS, K = 256, 16
WARMUP_NS, MEASURE_NS = 20_000.0, 200_000.0


def _injections(load: float, packets: int, rng):
    """(source, destination, head leaves the NIC) for every packet: Poisson messages to uniform
    destinations, each NIC serving its per-destination send queues round-robin (§4)."""
    src, dst, t0 = [], [], []
    span = WARMUP_NS + MEASURE_NS
    for h in range(HOSTS):
        n = rng.poisson(load / (packets * PACKET_NS) * span)
        arrivals = np.sort(rng.uniform(0, span, n))
        dests = rng.integers(0, HOSTS - 1, n)
        dests[dests >= h] += 1
        left: Counter[int] = Counter()  # packets still to send per destination
        ring: deque[int] = deque()
        i, now = 0, 0.0
        while i < n or ring:
            if not ring:
                now = max(now, arrivals[i])
            while i < n and arrivals[i] <= now:
                d = int(dests[i])
                if not left[d]:
                    ring.append(d)
                left[d] += packets
                i += 1
            d = ring.popleft()
            src.append(h)
            dst.append(d)
            t0.append(now)
            now += PACKET_NS
            left[d] -= 1
            if left[d]:
                ring.append(d)
    return np.array(src), np.array(dst), np.array(t0)


def _fifo(port, arrival):
    """When each packet's head leaves an unlimited FIFO at its output port."""
    leave = np.empty_like(arrival)
    last, free = -1, 0.0
    for j in np.lexsort((arrival, port)):
        if port[j] != last:
            last, free = port[j], -np.inf
        leave[j] = max(arrival[j], free)
        free = leave[j] + PACKET_NS
    return leave


def output_queued_inflight_ns(load: float, packets: int, seed: int) -> float:
    """Mean in-flight latency (head leaves the NIC to tail delivered) of the ideal network, with
    nearest-common-ancestor routing through a random up port per packet (§4)."""
    rng = np.random.default_rng(seed)
    src, dst, t0 = _injections(load, packets, rng)
    remote = src // K != dst // K
    up = rng.integers(0, K, len(t0))
    hop = LINK_NS + ROUTER_NS
    at_leaf = t0 + hop
    left_leaf = at_leaf.copy()
    left_leaf[remote] = _fifo((src // K * K + up)[remote], at_leaf[remote])
    at_spine = left_leaf + hop
    left_spine = at_spine.copy()
    left_spine[remote] = _fifo((up * K + dst // K)[remote], at_spine[remote])
    at_last = np.where(remote, left_spine + hop, at_leaf)
    latency = _fifo(dst, at_last) + LINK_NS + PACKET_NS - t0
    return float(latency[t0 >= WARMUP_NS].mean())


@pytest.mark.parametrize("load", [0.5, 0.8])
def test_mean_inflight_latency_is_that_of_an_ideal_output_queued_network(default_example, load):
    seeds = (1, 2)
    ours = np.mean(
        [
            lossless.run(
                default_example, seed=s, overrides={"traffic.0.load": load, "simulation.warmup_ns": WARMUP_NS, "simulation.measure_ns": MEASURE_NS}
            ).classes.loc["uniform", "inflight_latency_mean_ns"]
            for s in seeds
        ]
    )
    ideal = np.mean([output_queued_inflight_ns(load, 4, s) for s in seeds])
    # Seeds move either mean by about 4% at 80% load over 200 us. A crossbar without speedup
    # adds half as much again (3.6 us against 2.4 us), FIFO input buffers saturate.
    assert ours == pytest.approx(ideal, rel=0.08), f"ours {ours:.0f} ns, output-queued {ideal:.0f} ns"
