"""Prometheus metrics, every name prefixed ``threadwise_``, in a registry of their own
(one per service instance, so that tests can build several).

Label values come only from the service's own vocabulary (operations, codes, engines,
reasons) and from organizations a token was authorized for, and those at most
``MAX_ORGANIZATION_LABELS``: nothing a caller sends can grow the exposition without bound.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector

from threadwise.work_queue import Priority, SchedulerObserver

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# From a cached answer (milliseconds) to a long summary in a queue (minutes).
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300)

# Distinct organizations labelled by name; the requests of any further one count as "other".
MAX_ORGANIZATION_LABELS = 100
OTHER_ORGANIZATIONS = "(other)"


class BoundedLabel:
    """Label values as given, up to ``limit`` distinct ones; every later one is ``other``."""

    def __init__(self, limit: int, other: str) -> None:
        self.limit = limit
        self.other = other
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, value: str) -> str:
        with self._lock:
            if value in self._seen:
                return value
            if len(self._seen) < self.limit:
                self._seen.add(value)
                return value
            return self.other


class Metrics(SchedulerObserver):
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "threadwise_requests",
            "Superpower requests answered, by operation, code (OK or the error code), "
            f"organization (empty before one was authorized; the first {MAX_ORGANIZATION_LABELS} "
            f"by name, then {OTHER_ORGANIZATIONS!r}) and transport.",
            ["operation", "code", "organization", "transport"],
            registry=r,
        )
        self._organization = BoundedLabel(MAX_ORGANIZATION_LABELS, OTHER_ORGANIZATIONS)
        self.refusals = Counter(
            "threadwise_refusals",
            "Requests refused before any work (or given up by their client), by operation "
            "and reason.",
            ["operation", "reason"],
            registry=r,
        )
        self.latency = Histogram(
            "threadwise_request_duration_seconds",
            "Time to answer a superpower request, by operation and engine.",
            ["operation", "engine"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.queue_wait = Histogram(
            "threadwise_queue_wait_seconds",
            "Time a job waited in an engine's queue before it started.",
            ["queue", "priority"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.queue_run = Histogram(
            "threadwise_queue_run_seconds",
            "Time a job held an engine.",
            ["queue", "priority"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.queue_depth = Gauge(
            "threadwise_queue_depth",
            "Jobs waiting for or holding an engine: scale on this.",
            ["queue"],
            registry=r,
        )
        self.queue_running = Gauge(
            "threadwise_queue_running",
            "Jobs holding an engine now (part of the depth).",
            ["queue"],
            registry=r,
        )
        self.queue_capacity = Gauge(
            "threadwise_queue_capacity",
            "Jobs of one priority an engine's queue admits.",
            ["queue"],
            registry=r,
        )
        self.model_tokens = Counter(
            "threadwise_model_tokens",
            "Tokens the language model processed (prompt) and generated (completion).",
            ["kind"],
            registry=r,
        )
        self.model_tokens_per_second = Gauge(
            "threadwise_model_generation_tokens_per_second",
            "Generation speed of the language model's last call.",
            registry=r,
        )
        self.model_calls = Histogram(
            "threadwise_model_call_seconds",
            "Duration of one call of the language model.",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.cache = Counter(
            "threadwise_cache_lookups",
            "Cache lookups by cache (result, thread, prefix, idempotency) and outcome.",
            ["cache", "outcome"],
            registry=r,
        )
        self.in_flight = Gauge(
            "threadwise_requests_in_flight",
            "Superpower requests being worked on.",
            registry=r,
        )
        self.ready = Gauge(
            "threadwise_ready", "1 when the service takes traffic (see /readyz).", registry=r
        )
        self.jobs_queued = Gauge(
            "threadwise_jobs_queued",
            "Asynchronous jobs waiting for a worker, on every replica: scale on this too.",
            registry=r,
        )
        self.jobs_oldest_queued = Gauge(
            "threadwise_jobs_oldest_queued_seconds",
            "How long the oldest queued job has waited.",
            registry=r,
        )
        self.jobs_ended = Counter(
            "threadwise_jobs_ended",
            "Asynchronous jobs this replica ended, by operation and status.",
            ["operation", "status"],
            registry=r,
        )
        self.webhook_attempts = Counter(
            "threadwise_webhook_attempts",
            "Webhook deliveries attempted, by outcome (delivered, retried, failed).",
            ["outcome"],
            registry=r,
        )

    def count_request(
        self, operation: str, code: str, organization: str | None, transport: str
    ) -> None:
        """One answered request; ``organization`` only once the caller was authorized for it."""
        label = self._organization(organization) if organization else ""
        self.requests.labels(operation, code, label, transport).inc()

    def watch_queue(
        self,
        name: str,
        depth: Callable[[], float],
        capacity: int,
        running: Callable[[], float] | None = None,
    ) -> None:
        self.queue_depth.labels(name).set_function(depth)
        if running is not None:
            self.queue_running.labels(name).set_function(running)
        self.queue_capacity.labels(name).set(capacity)

    def exposition(self, *others: str) -> bytes:
        """The metrics in the Prometheus text format; with ``others`` (expositions of the same
        metrics by other processes of this replica: its job worker), their samples added."""
        own = generate_latest(self.registry)
        return merged(own.decode(), *others) if others else own

    # --- SchedulerObserver ------------------------------------------------------------------

    def waited(self, queue: str, priority: Priority, seconds: float) -> None:
        self.queue_wait.labels(queue, priority.name.lower()).observe(seconds)

    def ran(self, queue: str, priority: Priority, seconds: float) -> None:
        self.queue_run.labels(queue, priority.name.lower()).observe(seconds)

    def refused(self, queue: str, priority: Priority) -> None:
        """Counted with the request's operation by the request record."""

    # --- the language model -----------------------------------------------------------------

    def model_call(
        self, prompt_tokens: int, completion_tokens: int, seconds: float, generation: float
    ) -> None:
        """One model call: ``generation`` is the part of ``seconds`` spent generating."""
        self.model_tokens.labels("prompt").inc(prompt_tokens)
        self.model_tokens.labels("completion").inc(completion_tokens)
        self.model_calls.observe(seconds)
        if completion_tokens > 1 and generation > 0:
            self.model_tokens_per_second.set(completion_tokens / generation)


def merged(*expositions: str) -> bytes:
    """Expositions of the same metrics by several processes as one: each sample's values
    added (counters, gauges, histograms' buckets), the earliest of a ``_created``."""
    families: dict[str, Metric] = {}
    for text in expositions:
        for family in text_string_to_metric_families(text):
            kept = families.setdefault(
                family.name, Metric(family.name, family.documentation, family.type, family.unit)
            )
            kept.samples.extend(family.samples)

    class Collected(Collector):
        def collect(self) -> Iterator[Metric]:
            for family in families.values():
                values: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
                for sample in family.samples:
                    key = (sample.name, tuple(sorted(sample.labels.items())))
                    if key not in values:
                        values[key] = sample.value
                    elif sample.name.endswith("_created"):
                        values[key] = min(values[key], sample.value)
                    else:
                        values[key] += sample.value
                metric = Metric(family.name, family.documentation, family.type, family.unit)
                for (name, labels), value in values.items():
                    metric.add_sample(name, dict(labels), value)
                yield metric

    registry = CollectorRegistry(auto_describe=False)
    registry.register(Collected())
    return generate_latest(registry)
