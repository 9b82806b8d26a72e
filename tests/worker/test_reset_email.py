"""The password reset email goes from a real Celery worker, not from the
request (issue 36): with a mail server that takes a second over each
message, asking for a reset answers as fast for a userid that has an
account as for one that has not, and the email still arrives."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from devtools.processes import CeleryWorkerProcess, RedisProcess
from feeds import services
from tests.helpers import ServerAddr
from tests.smtp import Inbox, body, smtp_server
from tests.waiting import eventually
from tests.worker.helpers import broker_idle, worker_stack

SMTP_DELAY_S = 1.0
ASKS = 5  # for each userid, taking turns


@pytest.fixture
def slow_smtp() -> Iterator[Inbox]:
    with smtp_server(delay_s=SMTP_DELAY_S) as inbox:
        yield inbox


@pytest.fixture
def mailing_stack(
    local_hbase: ServerAddr,
    redis_broker: RedisProcess,
    settings: Settings,
    tmp_path: Path,
    slow_smtp: Inbox,
) -> Iterator[CeleryWorkerProcess]:
    """Fresh tables, a worker that sends email to ``slow_smtp``, and reset
    limits that let the test ask often."""
    worker_env = {
        "DJANGO_EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "DJANGO_EMAIL_HOST": slow_smtp.host,
        "DJANGO_EMAIL_PORT": str(slow_smtp.port),
    }
    with worker_stack(
        local_hbase,
        redis_broker,
        settings,
        tmp_path,
        worker_env=worker_env,
        TWITBASE_PASSWORD_RESETS_PER_MINUTE="100",
        TWITBASE_PASSWORD_RESETS_PER_ADDRESS="100",
    ) as worker:
        yield worker


def _answer_s(client: Client, userid: str) -> float:
    started = time.perf_counter()
    response = client.post("/password/reset", {"userid": userid})
    elapsed = time.perf_counter() - started
    assert response.status_code == 200 and "Check your email" in response.content.decode()
    return elapsed


def test_a_known_userid_answers_as_fast_as_an_unknown_one_and_the_email_arrives(
    mailing_stack: CeleryWorkerProcess, slow_smtp: Inbox, redis_broker: RedisProcess
) -> None:
    services.register("alice", "Alice", "alice@example.com", "password-123")
    client = Client()
    _answer_s(client, "nobody")  # the first request sets up what every later one reuses
    known, unknown = [], []
    for _ in range(ASKS):
        known.append(_answer_s(client, "alice"))
        unknown.append(_answer_s(client, "nobody"))
    known_s, unknown_s = statistics.median(known), statistics.median(unknown)
    assert known_s < SMTP_DELAY_S / 4, (known, unknown)
    assert abs(known_s - unknown_s) < 0.1, (known, unknown)

    messages = slow_smtp.wait_for(ASKS, timeout_s=60)
    assert all(m["To"] == "alice@example.com" for m in messages)
    assert "/password/reset/" in body(messages[0])
    assert "worker.tasks.send_password_reset" in mailing_stack.log.read_text()
    # Every task run and acknowledged (acks_late: after its mail is sent):
    # a mail for the unknown userid would have been sent by now.
    eventually(lambda: broker_idle(redis_broker), what="every reset task done")
    assert len(slow_smtp.messages) == ASKS  # none for the unknown userid


def test_an_address_with_an_account_answers_as_fast_as_one_without(
    mailing_stack: CeleryWorkerProcess, slow_smtp: Inbox
) -> None:
    services.register("alice", "Alice", "alice@example.com", "password-123")
    client = Client()
    _answer_s(client, "nobody@example.com")
    known, unknown = [], []
    for _ in range(ASKS):
        known.append(_answer_s(client, "alice@example.com"))
        unknown.append(_answer_s(client, "nobody@example.com"))
    known_s, unknown_s = statistics.median(known), statistics.median(unknown)
    assert known_s < SMTP_DELAY_S / 4, (known, unknown)
    assert abs(known_s - unknown_s) < 0.1, (known, unknown)
    messages = slow_smtp.wait_for(ASKS, timeout_s=60)
    assert all(m["To"] == "alice@example.com" and "@alice" in body(m) for m in messages)
    assert "worker.tasks.send_password_resets_to" in mailing_stack.log.read_text()
