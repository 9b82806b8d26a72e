"""An account deletion run by a real Celery worker through a real Redis: the
request returns with the account suspended and its credentials ended, and
the worker takes the rest, its followers' streams included."""

from __future__ import annotations

from devtools.processes import CeleryWorkerProcess
from feeds import services
from tests.services.test_account import _mentions
from tests.waiting import eventually

PASSWORD = "password-123"


def test_a_deletion_runs_in_the_worker_and_leaves_nothing(stack: CeleryWorkerProcess) -> None:
    for name in ("alice", "bob", "carol"):
        services.register(name, name.title(), f"{name}@example.com", PASSWORD)
    services.follow("bob", "alice")
    services.follow("alice", "carol")
    twit = services.post_twit("alice", "fanned out to bob")
    eventually(lambda: twit.id in {t.id for t in services.home_stream("bob").items}, what="fan-out")
    token, _ = services.issue_token("alice", PASSWORD) or ("", None)
    services.delete_account("alice", PASSWORD)
    assert services.token_user(token) is None  # at once, before the worker
    eventually(lambda: services.find_user("alice") is None, what="deletion by the worker")
    assert "worker.tasks.delete_account" in stack.log.read_text()
    assert _mentions("alice") == []
    assert services.home_stream("bob").items == ()
    assert services.get_user("carol").followers == 0
