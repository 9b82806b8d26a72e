"""/metrics through Django's test client, in this process (no multiprocess
directory): the request histogram, HBase errors, the fan-out and worker
gauges, the broker's queue, and who may read any of it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families
from pytest_django.fixtures import Settings

from devtools.processes import RedisProcess
from feeds import services
from feeds.services import console, fanout, metrics
from feeds.types import User
from tests.jobqueue import jobs_recorded
from tests.outage import storage_down
from twitbase.env import env_networks

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: Client | None = None, **headers: str) -> Samples:
    """Every sample of a /metrics answer, by name and labels."""
    response = (client or Client()).get("/metrics", headers=headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(response.content.decode())
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def requests_of(samples: Samples, route: str, status: str = "2xx") -> float:
    found = value(
        samples,
        "twitbase_http_request_duration_seconds_count",
        route=route,
        method="GET",
        status=status,
    )
    return found or 0.0


# -- requests --------------------------------------------------------------------


def test_a_request_is_counted_under_its_route_not_its_path(alice: User, bob: User) -> None:
    before = scrape()
    assert Client().get("/u/alice").status_code == 200
    assert Client().get("/u/bob").status_code == 200
    after = scrape()
    # Both pages are one route: a label per user would grow without bound.
    assert requests_of(after, "/u/<str:userid>") == requests_of(before, "/u/<str:userid>") + 2
    assert not any("alice" in str(labels) for _, labels in after)
    # The scrape before this one is counted too, under its own route.
    assert requests_of(after, "/metrics") >= 1
    # A bucket is a cumulative count, so +Inf holds every request of the route.
    inf = value(
        after,
        "twitbase_http_request_duration_seconds_bucket",
        route="/u/<str:userid>",
        method="GET",
        status="2xx",
        le="+Inf",
    )
    assert inf == requests_of(after, "/u/<str:userid>")


def test_a_missing_page_counts_as_unmatched_with_its_status_class(web: object) -> None:
    before = scrape()
    assert Client().get("/no/such/page/at/all").status_code == 404
    after = scrape()
    assert requests_of(after, "unmatched", "4xx") == requests_of(before, "unmatched", "4xx") + 1


# -- HBase errors and outages ------------------------------------------------------


def test_storage_errors_are_counted_and_the_scrape_still_answers_while_hbase_is_down(
    alice: User, settings: Settings
) -> None:
    before = scrape()
    assert value(before, "twitbase_scrape_source_up", source="hbase") == 1
    refused = value(before, "twitbase_hbase_errors_total", kind="refused")
    assert refused is not None
    with storage_down(settings):
        assert Client().get("/u/alice").status_code == 503
        during = scrape()
    # The page's failed call, and the scrape's own read of the fan-out figures.
    assert value(during, "twitbase_hbase_errors_total", kind="refused") >= refused + 2
    assert value(during, "twitbase_scrape_source_up", source="hbase") == 0
    assert value(during, "twitbase_fanout_pending") is None  # absent, not a made-up 0
    assert requests_of(during, "/u/<str:userid>", "5xx") >= 1
    # Back again: the fan-out figures return.
    after = scrape()
    assert value(after, "twitbase_scrape_source_up", source="hbase") == 1
    assert value(after, "twitbase_fanout_pending") == 0


@pytest.fixture
def slow_overview(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> Iterator[threading.Event]:
    """console.fanout_overview hangs until the event is set (HBase stalled)."""
    # A read an earlier test's scrape gave up on (a loaded server) is waited
    # for again by the next scrape, in place of the stalled one: a scrape
    # given all the time it needs lets it finish first.
    settings.TWITBASE_METRICS_TIMEOUT_MS = 30_000
    assert value(scrape(), "twitbase_scrape_source_up", source="hbase") == 1
    release = threading.Event()
    real = console.fanout_overview

    def stalled() -> console.FanoutOverview:
        release.wait(30)
        return real()

    monkeypatch.setattr(console, "fanout_overview", stalled)
    yield release
    release.set()


def test_a_stalled_hbase_costs_a_scrape_its_timeout_not_a_failure(
    alice: User, settings: Settings, slow_overview: threading.Event
) -> None:
    settings.TWITBASE_METRICS_TIMEOUT_MS = 300
    started = time.monotonic()
    first = scrape()
    second = scrape()
    took = time.monotonic() - started
    # Each scrape gives up on the stalled read at its timeout: the two take
    # about 0.6 s on a quiet machine. Bounded by the stall (30 s), not by a
    # quiet machine's pace: with two test runs at once they took 2.4 s.
    assert took < 10, took
    for samples in (first, second):
        assert value(samples, "twitbase_scrape_source_up", source="hbase") == 0
        assert value(samples, "twitbase_fanout_pending") is None
        waited = value(samples, "twitbase_scrape_source_duration_seconds", source="hbase")
        assert waited is not None and waited >= 0.3, waited  # the timeout, waited for
    slow_overview.set()
    # The read the first scrape started finishes, and the next scrape uses a fresh one.
    deadline = time.monotonic() + 10
    while value(scrape(), "twitbase_scrape_source_up", source="hbase") != 1:
        assert time.monotonic() < deadline, "the HBase figures never came back"


# -- fan-out, workers, broker ------------------------------------------------------


def test_a_pending_fan_out_shows_in_the_gauges_until_it_is_done(
    alice: User, bob: User, settings: Settings
) -> None:
    services.follow("bob", "alice")
    before = scrape()
    assert value(before, "twitbase_fanout_pending") == 0
    done_before = value(before, "twitbase_fanouts_total")
    assert done_before is not None
    with jobs_recorded():  # never queued: as if the broker lost it
        twit = services.post_twit("alice", "stuck in the pipes")
    pending = scrape()
    assert value(pending, "twitbase_fanout_pending") == 1
    assert value(pending, "twitbase_fanout_pending_more") == 0
    assert value(pending, "twitbase_fanout_stuck") == 0  # its lease is fresh
    assert value(pending, "twitbase_fanout_oldest_pending_seconds") >= 0
    # Once the lease has expired, the sweep would queue it again: "stuck".
    settings.TWITBASE_SWEEP_AFTER_S = 0
    assert value(scrape(), "twitbase_fanout_stuck") == 1
    # Queued again (run in the caller here), it finishes.
    assert fanout.requeue(twit.id)
    done = scrape()
    assert value(done, "twitbase_fanout_pending") == 0
    assert value(done, "twitbase_fanout_stuck") == 0
    assert value(done, "twitbase_fanouts_total") == done_before + 1
    assert value(done, "twitbase_fanout_lag_samples") >= 1
    assert value(done, "twitbase_fanout_lag_seconds", quantile="0.5") >= 0


def test_a_worker_heartbeat_shows_as_its_last_seen_time(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(metrics._unreported, "last", 0.0)  # due now
    metrics.heartbeat()
    samples = scrape()
    seen = {
        dict(labels)["worker"]: v
        for (name, labels), v in samples.items()
        if name == "twitbase_worker_last_seen_timestamp_seconds"
    }
    assert len(seen) == 1
    assert abs(next(iter(seen.values())) - time.time()) < 60
    assert value(samples, "twitbase_workers_alive") == 1
    assert value(samples, "twitbase_worker_newest_heartbeat_age_seconds") < 60


def test_the_queue_length_comes_from_the_broker(
    alice: User, redis_broker: RedisProcess, settings: Settings
) -> None:
    settings.CELERY_BROKER_URL = redis_broker.url
    import redis

    queue = redis.Redis.from_url(redis_broker.url)
    queue.delete("celery")
    assert value(scrape(), "twitbase_celery_queue_length", queue="celery") == 0
    queue.lpush("celery", b"{}", b"{}")
    try:
        samples = scrape()
    finally:
        queue.delete("celery")
    assert value(samples, "twitbase_scrape_source_up", source="broker") == 1
    assert value(samples, "twitbase_celery_queue_length", queue="celery") == 2


def test_a_broker_that_does_not_answer_is_a_source_down(alice: User, settings: Settings) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    samples = scrape()
    assert value(samples, "twitbase_scrape_source_up", source="broker") == 0
    assert value(samples, "twitbase_celery_queue_length", queue="celery") is None


# -- who may read it ---------------------------------------------------------------


@pytest.mark.parametrize(
    "address", ["127.0.0.1", "::1", "10.1.2.3", "172.20.0.5", "192.168.1.9", "::ffff:10.0.0.7"]
)
def test_loopback_and_private_addresses_may_read_the_metrics(web: object, address: str) -> None:
    assert Client(REMOTE_ADDR=address).get("/metrics").status_code == 200


@pytest.mark.parametrize("address", ["203.0.113.7", "8.8.8.8", "2001:db8::1", "172.32.0.1", ""])
def test_a_public_address_is_refused(web: object, address: str) -> None:
    response = Client(REMOTE_ADDR=address).get("/metrics")
    assert response.status_code == 403
    assert b"twitbase_" not in response.content


def test_a_request_through_a_proxy_is_refused_though_the_proxy_is_private(web: object) -> None:
    for header in ("X-Forwarded-For", "X-Real-IP", "Forwarded"):
        response = Client(REMOTE_ADDR="10.0.0.2").get("/metrics", headers={header: "203.0.113.7"})
        assert response.status_code == 403, header


def test_the_bearer_token_lets_any_address_in(web: object, settings: Settings) -> None:
    settings.TWITBASE_METRICS_TOKEN = "s3cret-token"
    public = Client(REMOTE_ADDR="203.0.113.7")
    assert public.get("/metrics").status_code == 403
    wrong = {"Authorization": "Bearer not-the-token"}
    assert public.get("/metrics", headers=wrong).status_code == 403
    right = {"Authorization": "Bearer s3cret-token", "X-Forwarded-For": "198.51.100.1"}
    assert value(scrape(public, **right), "twitbase_scrape_source_up", source="hbase") == 1


def test_without_a_token_no_bearer_is_accepted(web: object, settings: Settings) -> None:
    settings.TWITBASE_METRICS_TOKEN = ""
    public = Client(REMOTE_ADDR="203.0.113.7")
    assert public.get("/metrics", headers={"Authorization": "Bearer "}).status_code == 403


def test_with_no_networks_only_the_token_is_accepted(web: object, settings: Settings) -> None:
    settings.TWITBASE_METRICS_NETWORKS = []
    assert Client().get("/metrics").status_code == 403


def test_metrics_networks_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TWITBASE_METRICS_NETWORKS", "10.0.0.0/8, 192.0.2.1")
    assert [str(n) for n in env_networks("TWITBASE_METRICS_NETWORKS", [])] == [
        "10.0.0.0/8",
        "192.0.2.1/32",
    ]
    monkeypatch.setenv("TWITBASE_METRICS_NETWORKS", "none")
    assert env_networks("TWITBASE_METRICS_NETWORKS", ["10.0.0.0/8"]) == []
    monkeypatch.setenv("TWITBASE_METRICS_NETWORKS", "10.0.0.0/8,intranet")
    with pytest.raises(ImproperlyConfigured, match=r"TWITBASE_METRICS_NETWORKS.*'intranet'"):
        env_networks("TWITBASE_METRICS_NETWORKS", [])
