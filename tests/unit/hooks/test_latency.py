"""Latency aggregates (issue 15, point 4): fixed buckets, percentiles, and merging workers' rows."""

from __future__ import annotations

import random

import pytest

from harness.hooks.decisions import DECISIONS
from harness.hooks.latency import (
    BUCKETS,
    FIRST_MS,
    LatencyAggregate,
    bucket_of,
    summarise,
    upper_bound,
)

PASS, REWRITE, TIMEOUT = (DECISIONS.index(d) for d in ("pass", "rewrite", "timeout"))


def test_buckets_are_log_scale_and_a_value_is_never_above_its_bucket_s_bound():
    assert bucket_of(0) == 0 and bucket_of(FIRST_MS) == 0
    assert bucket_of(10**9) == BUCKETS - 1  # anything slower shares the last bucket
    for ms in (0.011, 0.5, 1, 1.19, 7.3, 250, 4999.9):
        b = bucket_of(ms)
        assert upper_bound(b - 1) < ms <= upper_bound(b) * (1 + 1e-12)
    assert upper_bound(4) == pytest.approx(2 * upper_bound(0))  # four buckets per doubling


def test_percentiles_are_within_one_bucket_of_the_exact_ones_and_never_above_the_max():
    rng = random.Random(15)
    values = [rng.lognormvariate(1.5, 1.0) for _ in range(5000)]
    aggregate = LatencyAggregate()
    for ms in values:
        aggregate.add(PASS, ms)
    ordered = sorted(values)
    for q in (0.5, 0.9, 0.99):
        exact = ordered[int(q * len(ordered)) - 1]
        assert exact <= aggregate.percentile(q) <= exact * 2 ** (1 / 4) * 1.001
    assert aggregate.percentile(1.0) == aggregate.max_ms == max(values)
    assert LatencyAggregate().percentile(0.99) == 0.0


def test_two_workers_rows_merge_into_the_figures_of_all_their_calls():
    one, two, both = LatencyAggregate(), LatencyAggregate(), LatencyAggregate()
    for i in range(300):
        one.add(PASS, 1 + i % 7)
        both.add(PASS, 1 + i % 7)
    for i in range(100):
        two.add(TIMEOUT, 900 + i)
        both.add(TIMEOUT, 900 + i)
    key = ("tool.invoked.pre", "scanner", "jsonrpc")
    rows = [
        one.row(worker="host-a", at=10, since=0, key=key),
        two.row(worker="host-b", at=10, since=0, key=key),
    ]
    [merged] = summarise(rows)
    assert merged.workers == {"host-a", "host-b"}
    assert merged.count("pass") == 300 and merged.count("timeout") == 100
    assert merged.aggregate.calls == 400 and merged.aggregate.max_ms == 999
    for q in (0.5, 0.9, 0.99):
        assert merged.aggregate.percentile(q) == both.percentile(q)
    assert merged.aggregate.total_ms == pytest.approx(both.total_ms)

    again = LatencyAggregate()
    again.merge(one)
    again.merge(two)
    assert again.counts == both.counts and again.buckets == both.buckets


def test_the_summary_puts_the_slowest_p99_first():
    fast, slow = LatencyAggregate(), LatencyAggregate()
    for _ in range(50):
        fast.add(PASS, 0.2)
        slow.add(REWRITE, 40)
    rows = [
        fast.row(worker="w", at=1, since=0, key=("a.pre", "fast", "local")),
        slow.row(worker="w", at=1, since=0, key=("b.pre", "slow", "mcp")),
    ]
    assert [s.key[1] for s in summarise(rows)] == ["slow", "fast"]
