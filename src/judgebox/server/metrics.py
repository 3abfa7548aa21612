"""Prometheus metrics of one server, in a registry of its own (several apps may share a process)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

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
