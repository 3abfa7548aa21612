"""Prometheus metrics of one server, in a registry of its own (several apps may share a process)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("judgebox_requests_total", "HTTP requests", ["endpoint", "status"],
                                registry=self.registry)
        self.cases = Counter("judgebox_cases_total", "Judged cases and runs", ["language", "verdict"],
                             registry=self.registry)
        self.latency = Histogram("judgebox_request_seconds", "Request latency", ["endpoint", "language"],
                                 buckets=LATENCY_BUCKETS, registry=self.registry)
        self.queue_time = Histogram("judgebox_queue_seconds", "Time waiting for admission",
                                    buckets=LATENCY_BUCKETS, registry=self.registry)
        self.queue_depth = Gauge("judgebox_queue_depth", "Requests waiting for admission", registry=self.registry)
        self.slots = Gauge("judgebox_slots", "Sandbox slots", registry=self.registry)
        self.slots_busy = Gauge("judgebox_slots_busy", "Sandbox slots running a case", registry=self.registry)
        self.cache_hits = Gauge("judgebox_artifact_cache_hits", "Builds served from the artifact cache",
                                registry=self.registry)
        self.cache_misses = Gauge("judgebox_artifact_cache_misses", "Builds that ran a compiler",
                                  registry=self.registry)
        self.reward_samples = Counter("judgebox_reward_samples_total", "Samples of /openrlhf/reward by outcome "
                                      "(scored, no_code, no_reward: the judge failed on it, rewarded 0.0 and "
                                      "flagged)", ["outcome"], registry=self.registry)

    def watch_dedupe(self, judge: Callable[[], Any]) -> None:
        """Show the dedupe counts of the judge ``judge()`` returns (None before the server started)."""
        self.registry.register(_DedupeCollector(judge))


class _DedupeCollector:
    """The judge's result cache counts itself (judgebox.judging.dedupe); each scrape reads its counts as they are."""

    COUNTERS = (("hits", "Submissions answered by a kept result"),
                ("misses", "Submissions judged (no identical one kept or in progress)"),
                ("shared_in_flight", "Submissions that waited for an identical one being judged"))
    GAUGES = (("entries", "Results kept"), ("bytes", "Bytes the kept results retain"))

    def __init__(self, judge: Callable[[], Any]) -> None:
        self.judge = judge

    def collect(self) -> Iterator[Metric]:
        cache = getattr(self.judge(), "dedupe", None)
        if cache is None:  # dedupe off, or the server not started yet: no such series
            return
        stats = cache.stats()
        for name, text in self.COUNTERS:
            yield CounterMetricFamily(f"judgebox_dedupe_{name}", text, value=stats[name])
        for name, text in self.GAUGES:
            yield GaugeMetricFamily(f"judgebox_dedupe_{name}", text, value=stats[name])
