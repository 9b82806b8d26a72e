"""The console's actions (fan-out, moderation), each recorded in the audit log."""

from __future__ import annotations

import re
import time

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import _clock, console, metrics
from feeds.types import Twit, User
from storage.connection import connection, table_name
from tests.helpers import ServerAddr
from tests.jobqueue import jobs_recorded

from .helpers import assert_answers, audit_actions, text_of

# What the confirmation page's form adds to a disable or a delete.
CONFIRM = {"confirm": "yes"}

# -- fan-out ------------------------------------------------------------------------------


@pytest.fixture
def stuck(alice: User, bob: User) -> Twit:
    """A twit by alice (bob follows her) whose fan-out was never queued: the
    broker was down when it was posted, and no sweep has run since."""
    services.follow("bob", "alice")
    with jobs_recorded():
        return services.post_twit("alice", "stuck in the pipes")


def test_fanout_panel_shows_a_pending_fan_out(staff_client: Client, stuck: Twit) -> None:
    pending = console.pending_fanouts()
    assert [p.twit_id for p in pending.items] == [stuck.id]
    assert pending.items[0].userid == "alice" and not pending.more
    page = text_of(staff_client.get("/console/fanout"))
    assert "stuck in the pipes" in page and stuck.id in page
    assert "in progress" in page  # younger than the sweep's delay


def test_fanout_panel_refreshes_itself_only_while_a_fan_out_is_pending(
    staff_client: Client, stuck: Twit
) -> None:
    html = staff_client.get("/console/fanout").content.decode()
    assert re.search(r'<meta http-equiv="refresh" content="\d+">', html)
    page = text_of(staff_client.get("/console/fanout"))
    assert "this page refreshes itself" in page
    # Without script or meta refresh, a person can still refresh by hand.
    assert '<a href="/console/fanout">Refresh now</a>' in html
    # Only the fan-out panel reloads itself: not the overview, with the same tiles.
    assert 'http-equiv="refresh"' not in staff_client.get("/console/").content.decode()

    staff_client.post("/console/fanout/requeue", {"twit_id": stuck.id})
    html = staff_client.get("/console/fanout").content.decode()
    assert 'http-equiv="refresh"' not in html
    assert "does not refresh itself" in text_of(staff_client.get("/console/fanout"))
    assert '<a href="/console/fanout">Refresh now</a>' in html


def test_requeue_a_stuck_fan_out_delivers_it(
    staff_client: Client, stuck: Twit, settings: Settings
) -> None:
    settings.TWITBASE_SWEEP_AFTER_S = 0
    time.sleep(0.002)
    assert 'flag-bad">stuck<' in staff_client.get("/console/fanout").content.decode()
    assert [t.text for t in services.home_stream("bob").items] == []
    response = staff_client.post("/console/fanout/requeue", {"twit_id": stuck.id})
    assert response.status_code == 302 and response["Location"] == "/console/fanout"
    assert [t.text for t in services.home_stream("bob").items] == ["stuck in the pipes"]
    assert console.pending_fanouts().items == ()
    assert audit_actions() == [("sam", "fanout.requeue", stuck.id)]
    page = text_of(staff_client.get("/console/fanout"))
    assert "The fan-out of @alice's twit is queued again." in page
    assert "No fan-out is pending" in page


def test_requeue_a_finished_fan_out_is_refused(staff_client: Client, alice: User) -> None:
    twit = services.post_twit("alice", "delivered")
    response = staff_client.post("/console/fanout/requeue", {"twit_id": twit.id})
    assert response.status_code == 409
    assert "finished: there is nothing to queue" in text_of(response)
    assert audit_actions() == []


@pytest.mark.parametrize(
    ("twit_id", "status", "message"),
    [("", 400, "Give a twit's id"), ("0" * 56, 404, "No twit"), ("nope", 400, "56 hex digits")],
)
def test_requeue_bad_ids(
    staff_client: Client, sam: User, twit_id: str, status: int, message: str
) -> None:
    response = staff_client.post("/console/fanout/requeue", {"twit_id": twit_id})
    assert_answers(response, status, message)


def test_sweep_queues_every_stuck_fan_out(
    staff_client: Client, stuck: Twit, settings: Settings
) -> None:
    settings.TWITBASE_SWEEP_AFTER_S = 0
    time.sleep(0.002)  # the mark must be older than "now - 0 s"
    response = staff_client.post("/console/fanout/sweep")
    assert response.status_code == 302
    assert "1 stuck fan-out queued again." in text_of(staff_client.get("/console/fanout"))
    assert [t.text for t in services.home_stream("bob").items] == ["stuck in the pipes"]
    assert audit_actions() == [("sam", "fanout.sweep", "1 twit")]


def test_fanout_panel_shows_lag_failures_and_workers(staff_client: Client, alice: User) -> None:
    services.post_twit("alice", "measured")
    metrics.record_failure("fan_out_twit", "RuntimeError: boom")
    now = int(time.time() * 1000)
    with connection() as conn:
        t = conn.table(table_name("metrics"))
        t.put(b"worker:box:1", {b"m:seen": str(now - 1000).encode()})
        t.counter_inc(b"worker:box:1", b"m:tasks", 7)
        t.put(b"worker:box:2", {b"m:seen": str(now - 600_000).encode()})
    overview = console.fanout_overview()
    assert overview.stats.fanouts == 1 and overview.stats.failures == 1
    # (Eager tasks in this process may have written a heartbeat of their own.)
    assert [(w.name, w.tasks, w.quiet) for w in overview.workers if w.name.startswith("box:")] == [
        ("box:1", 7, False),
        ("box:2", 0, True),
    ]
    page = text_of(staff_client.get("/console/fanout"))
    assert "Last failure: fan_out_twit: RuntimeError: boom" in page
    assert "box:1" in page and "alive" in page and "quiet" in page
    assert "lag p50" in page


# -- moderation --------------------------------------------------------------------------


def test_find_a_user_in_any_case(staff_client: Client, alice: User) -> None:
    for query in ("alice", "ALICE", "@alice"):
        response = staff_client.get("/console/users", {"q": query})
        assert response["Location"] == "/console/users/alice", query


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ("nobody", 404, "No userid or name starts with “nobody”."),
        ("x" * 51, 400, "A search is at most 50 characters"),
    ],
)
def test_find_an_unknown_or_impossible_user(
    staff_client: Client, query: str, status: int, message: str
) -> None:
    response = staff_client.get("/console/users", {"q": query})
    assert_answers(response, status, message)


def test_find_users_by_the_start_of_a_userid_or_name_suspended_too(
    staff_client: Client, alice: User, bob: User
) -> None:
    services.update_profile("bob", name="Alistair Bob")
    services.set_disabled("alice", True)
    page = text_of(staff_client.get("/console/users", {"q": "ali"}))
    assert "Userids and names starting with “ali”" in page
    assert "@alice" in page and "@bob" in page  # alice suspended; bob by his name
    assert "@sam" not in page


def test_users_list_and_a_users_follows(
    staff_client: Client, alice: User, bob: User, charlie: User
) -> None:
    services.follow("alice", "bob")
    services.follow("charlie", "alice")
    page = text_of(staff_client.get("/console/users"))
    for userid in ("sam", "alice", "bob", "charlie"):
        assert f"@{userid}" in page
    assert "staff" in page
    following = text_of(staff_client.get("/console/users/alice?tab=following"))
    assert "@bob" in following and "@charlie" not in following
    followers = text_of(staff_client.get("/console/users/alice?tab=followers"))
    assert "@charlie" in followers and "@bob" not in followers
    assert staff_client.get("/console/users/Alice")["Location"] == "/console/users/alice"
    assert staff_client.get("/console/users/alice?tab=likes").status_code == 400
    assert staff_client.get("/console/users/nobody").status_code == 404


def test_disable_and_enable_an_account(
    staff_client: Client, alice_client: Client, alice: User
) -> None:
    response = staff_client.post("/console/users/alice/disable", CONFIRM)
    assert response.status_code == 302 and response["Location"] == "/console/users/alice"
    assert services.get_user("alice").disabled
    page = text_of(staff_client.get("/console/users/alice"))
    assert "@alice's account is disabled." in page and "Enable account" in page
    # Her session ends on its next request, and she cannot log in again.
    assert "Log in" in text_of(alice_client.get("/"))
    assert services.authenticate("alice", "password-123") is None

    staff_client.post("/console/users/alice/enable")
    assert not services.get_user("alice").disabled
    assert services.authenticate("alice", "password-123") is not None
    assert audit_actions() == [
        ("sam", "user.enable", "alice"),
        ("sam", "user.disable", "alice"),
    ]


def test_staff_cannot_disable_themselves(staff_client: Client) -> None:
    response = staff_client.post("/console/users/sam/disable")
    assert response.status_code == 400
    assert "You cannot disable your own account." in text_of(response)
    assert not services.get_user("sam").disabled
    assert audit_actions() == []


def test_disable_an_unknown_user_is_404(staff_client: Client) -> None:
    response = staff_client.post("/console/users/nobody/disable")
    assert response.status_code == 404
    assert "No user 'nobody'." in text_of(response)


def test_delete_a_twit_removes_it_from_every_stream(
    staff_client: Client, alice: User, bob: User, charlie: User
) -> None:
    services.follow("bob", "alice")
    services.follow("charlie", "alice")
    twit = services.post_twit("alice", "against the rules")
    for reader in ("alice", "bob", "charlie"):
        assert [t.text for t in services.home_stream(reader).items] == ["against the rules"]
    response = staff_client.post(
        "/console/twits/delete",
        {"twit_id": twit.id, "next": "/console/users/alice", **CONFIRM},
    )
    assert response.status_code == 302 and response["Location"] == "/console/users/alice"
    for reader in ("alice", "bob", "charlie"):
        assert services.home_stream(reader).items == ()
    assert services.timeline("alice").items == ()
    assert services.get_user("alice").twits == 0
    assert Client().get(f"/u/alice/t/{twit.id}").status_code == 404
    assert audit_actions() == [("sam", "twit.delete", twit.id)]
    entry = console.audit_log().items[0]
    assert entry.detail == "by @alice: against the rules"


def test_delete_a_twit_by_its_permalink(staff_client: Client, alice: User) -> None:
    twit = services.post_twit("alice", "linked")
    staff_client.post(
        "/console/twits/delete", {"twit_id": f"http://x/u/alice/t/{twit.id}", **CONFIRM}
    )
    assert services.timeline("alice").items == ()


@pytest.mark.parametrize(
    ("twit_id", "status", "message"),
    [("", 400, "Give a twit's id"), ("f" * 56, 404, "No twit")],
)
def test_delete_a_bad_or_unknown_twit(
    staff_client: Client, twit_id: str, status: int, message: str
) -> None:
    response = staff_client.post("/console/twits/delete", {"twit_id": twit_id})
    assert_answers(response, status, message)


# -- audit log ----------------------------------------------------------------------------


def test_audit_log_lists_actions_newest_first_a_page_at_a_time(
    staff_client: Client, alice: User
) -> None:
    for _ in range(3):
        staff_client.post("/console/users/alice/disable", CONFIRM)
        staff_client.post("/console/users/alice/enable")
    page = text_of(staff_client.get("/console/audit"))
    assert page.index("user.enable") < page.index("user.disable")
    first = console.audit_log(limit=4)
    assert [e.action for e in first.items] == ["user.enable", "user.disable"] * 2
    assert first.next_cursor is not None
    rest = console.audit_log(first.next_cursor, limit=4)
    assert [e.action for e in rest.items] == ["user.enable", "user.disable"]
    assert rest.next_cursor is None
    assert all(e.when <= f.when for e, f in zip(first.items[1:], first.items, strict=False))


def test_overview_shows_recent_actions(staff_client: Client, alice: User) -> None:
    staff_client.post("/console/users/alice/disable", CONFIRM)
    page = text_of(staff_client.get("/console/"))
    assert "Recent actions" in page and "user.disable" in page and "@sam" in page


# -- confirmation of a disable or a delete -----------------------------------------------


def test_disable_asks_for_confirmation_first(staff_client: Client, alice: User) -> None:
    response = staff_client.post("/console/users/alice/disable")
    assert response.status_code == 200
    page = text_of(response)
    assert "Disable @alice?" in page and "Cancel" in page
    assert "Their sessions and API tokens end at once and for good" in page
    html = response.content.decode()
    assert 'name="confirm" value="yes"' in html
    assert 'action="/console/users/alice/disable"' in html
    assert not services.get_user("alice").disabled
    assert audit_actions() == []

    response = staff_client.post("/console/users/alice/disable", CONFIRM)
    assert response.status_code == 302
    assert services.get_user("alice").disabled


def test_delete_asks_for_confirmation_showing_the_twit(staff_client: Client, alice: User) -> None:
    twit = services.post_twit("alice", "maybe against the rules")
    response = staff_client.post(
        "/console/twits/delete", {"twit_id": f"/u/alice/t/{twit.id}", "next": "/console/users"}
    )
    assert response.status_code == 200
    page = text_of(response)
    assert "Delete this twit of @alice?" in page and "maybe against the rules" in page
    html = response.content.decode()
    # The confirmation posts the twit's id, and keeps where to go back to.
    assert f'name="twit_id" value="{twit.id}"' in html
    assert 'name="next" value="/console/users"' in html
    assert [t.id for t in services.timeline("alice").items] == [twit.id]
    assert audit_actions() == []

    response = staff_client.post(
        "/console/twits/delete", {"twit_id": twit.id, "next": "/console/users", **CONFIRM}
    )
    assert response.status_code == 302 and response["Location"] == "/console/users"
    assert services.timeline("alice").items == ()


def test_a_confirmation_is_refused_where_the_action_would_be(
    staff_client: Client, alice: User
) -> None:
    # Errors come before the question, not after it is answered.
    assert staff_client.post("/console/users/sam/disable").status_code == 400
    assert staff_client.post("/console/users/nobody/disable").status_code == 404
    assert staff_client.post("/console/twits/delete", {"twit_id": ""}).status_code == 400
    assert audit_actions() == []


def test_audit_entries_of_one_millisecond_keep_their_order(
    web: ServerAddr, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI run listed a disable before the enable that followed it: both
    fell in one millisecond and the random suffixes ordered them. Here the
    process's clock stands still, so every entry falls in the same millisecond."""
    standing = 1_790_000_000.0
    monkeypatch.setattr(time, "time", lambda: standing)
    monkeypatch.setattr(_clock, "now_millis", _clock.MonotonicMillis(lambda: standing))
    done = [console.record("sam", f"action.{i}", "alice") for i in range(40)]
    listed = console.audit_log(limit=100).items
    assert [e.action for e in listed] == [f"action.{i}" for i in reversed(range(40))]
    assert [e.when for e in listed] == [e.when for e in reversed(done)]
