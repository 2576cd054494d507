"""Serve's live recall check (search/embedded/live_recall.py): attached to an embedded index
when `search.recall_sample_rate` > 0, exported on `/metrics` and `/readyz`."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from playscout.config import SearchSettings
from playscout.search.backend_api import SearchBackend
from playscout.search.embedded import EmbeddedBackend
from playscout.search.embedded.live_recall import RecallSampler
from playscout.search.embedded.query_log import QueryLog
from playscout.serving.metrics import NAMESPACE


def attach_sampler(backend: SearchBackend, search: SearchSettings) -> RecallSampler | None:
    """A sampler observing the backend's dense clip searches, or None (off, or not an
    embedded index, or one that already has an observer: a backend shared between apps)."""
    if search.recall_sample_rate <= 0 or not isinstance(backend, EmbeddedBackend):
        return None
    if backend.on_dense_clips is not None:
        return None
    qlog = QueryLog(search.query_log, search.query_log_bytes) if search.query_log else None
    sampler = RecallSampler(
        search.recall_sample_rate,
        backend.target_recall,
        window=search.recall_window,
        query_log=qlog,
        ks=backend.recall_k,
    )
    backend.on_dense_clips = sampler.offer
    return sampler


def detach_sampler(backend: SearchBackend, sampler: RecallSampler) -> None:
    """Stop observing (app shutdown) and let the running check finish on its own."""
    if isinstance(backend, EmbeddedBackend) and backend.on_dense_clips == sampler.offer:
        backend.on_dense_clips = None
    sampler.close()


class RecallCollector(Collector):
    """The sampler's estimates as Prometheus series, labelled by sport and channel."""

    def __init__(self, sampler: RecallSampler) -> None:
        self.sampler = sampler

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        labels = ["sport", "channel"]
        checked = CounterMetricFamily(
            f"{NAMESPACE}_live_recall_checks",
            "Served dense clip searches checked against an exact search.",
            labels=labels,
        )
        dropped = CounterMetricFamily(
            f"{NAMESPACE}_live_recall_dropped",
            "Sampled searches not checked because a check was already running.",
            labels=labels,
        )
        mean = GaugeMetricFamily(
            f"{NAMESPACE}_live_recall_mean",
            "Mean recall@k of served dense clip searches against exact, over every check.",
            labels=labels,
        )
        recent = GaugeMetricFamily(
            f"{NAMESPACE}_live_recall_recent",
            "Mean recall@k over the most recent checks (search.recall_window).",
            labels=labels,
        )
        target = GaugeMetricFamily(
            f"{NAMESPACE}_live_recall_target",
            "The recall the build tuned the channel to reach.",
            labels=labels,
        )
        for sport, channels in self.sampler.snapshot().items():
            for channel, est in channels.items():
                key = [sport, channel]
                checked.add_metric(key, est["checked"])
                dropped.add_metric(key, est["dropped"])
                if est["recall_mean"] is not None:
                    mean.add_metric(key, est["recall_mean"])
                    recent.add_metric(key, est["recall_recent"])
                if est["target_recall"] is not None:
                    target.add_metric(key, est["target_recall"])
        yield from (checked, dropped, mean, recent, target)
