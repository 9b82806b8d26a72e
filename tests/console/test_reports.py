"""The console's reports queue: staff only, newest first or most reported
first, and its actions (dismiss, delete the twit, suspend the account), each
recorded in the audit log."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.services import reports
from feeds.types import Twit, User

from .helpers import audit_actions, text_of

CONFIRM = {"confirm": "yes"}


def _queue(client: Client, tab: str = "newest") -> str:
    response = client.get("/console/reports", {"tab": tab})
    assert response.status_code == 200
    return text_of(response)


def _reported(alice: User, bob: User, charlie: User) -> tuple[Twit, Twit]:
    """Two twits of alice: "once" reported by bob, then "twice" by bob and
    charlie; so "twice" is both the newest and the most reported."""
    once = services.post_twit("alice", "reported once")
    twice = services.post_twit("alice", "reported twice")
    reports.report(bob, twit_id=once.id, reason="spam", text="ads everywhere")
    reports.report(bob, twit_id=twice.id, reason="abuse")
    reports.report(charlie, twit_id=twice.id, reason="other", text="mean")
    return once, twice


def test_the_queue_is_for_staff_only(alice_client: Client, alice: User) -> None:
    assert alice_client.get("/console/reports").status_code == 403
    assert alice_client.post("/console/reports/act", {"action": "dismiss"}).status_code == 403
    anonymous = Client().get("/console/reports")
    assert anonymous.status_code == 302 and "/login" in anonymous["Location"]


def test_the_queue_lists_newest_first_or_most_reported_first(
    staff_client: Client, alice: User, bob: User, charlie: User
) -> None:
    _reported(alice, bob, charlie)
    reports.report(charlie, userid="bob", reason="spam")
    newest = _queue(staff_client)
    assert newest.index("@bob") < newest.index("reported twice") < newest.index("reported once")
    assert "ads everywhere" in newest and "mean" in newest
    most = _queue(staff_client, "most")
    assert most.index("reported twice") < most.index("@bob")
    assert most.index("reported twice") < most.index("reported once")
    assert staff_client.get("/console/reports", {"tab": "loudest"}).status_code == 400
    assert "Reports" in text_of(staff_client.get("/console/"))  # in the console's menu


def test_dismiss_closes_the_reports_and_is_audited(
    staff_client: Client, alice: User, bob: User, charlie: User
) -> None:
    _, twice = _reported(alice, bob, charlie)
    [subject] = [s for s in reports.queue().items if s.twit_id == twice.id]
    page = text_of(staff_client.get(f"/console/reports/{subject.id}"))
    assert "@bob" in page and "@charlie" in page and "2 open reports" in page
    response = staff_client.post(
        "/console/reports/act", {"subject": subject.id, "action": "dismiss"}
    )
    assert response.status_code == 302
    assert "reported twice" not in _queue(staff_client)
    assert "reported once" in _queue(staff_client)
    assert audit_actions()[0] == ("sam", "reports.dismiss", twice.id)
    assert services.get_twit(twice.id).text == "reported twice"  # still there
    again = staff_client.post("/console/reports/act", {"subject": subject.id, "action": "dismiss"})
    assert again.status_code == 404


def test_delete_twit_asks_first_then_deletes_and_is_audited(
    staff_client: Client, alice: User, bob: User, charlie: User
) -> None:
    _, twice = _reported(alice, bob, charlie)
    [subject] = [s for s in reports.queue().items if s.twit_id == twice.id]
    form = {"subject": subject.id, "action": "delete"}
    asked = staff_client.post("/console/reports/act", form)
    assert asked.status_code == 200 and "Delete this twit of @alice?" in text_of(asked)
    assert services.get_twit(twice.id)  # nothing changed yet
    done = staff_client.post("/console/reports/act", {**form, **CONFIRM})
    assert done.status_code == 302
    assert "reported twice" not in _queue(staff_client)
    assert [t.id for t in services.timeline("alice").items if t.id == twice.id] == []
    actions = audit_actions()
    assert actions[0] == ("sam", "reports.delete", twice.id)
    assert actions[1] == ("sam", "twit.delete", twice.id)


def test_suspend_asks_first_then_suspends_the_author_and_is_audited(
    staff_client: Client, alice: User, bob: User, charlie: User
) -> None:
    once, _ = _reported(alice, bob, charlie)
    [subject] = [s for s in reports.queue().items if s.twit_id == once.id]
    form = {"subject": subject.id, "action": "suspend"}
    asked = staff_client.post("/console/reports/act", form)
    assert "Suspend @alice?" in text_of(asked)
    assert not services.get_user("alice").disabled
    assert staff_client.post("/console/reports/act", {**form, **CONFIRM}).status_code == 302
    assert services.get_user("alice").disabled
    assert "reported once" not in _queue(staff_client)
    actions = audit_actions()
    assert actions[0] == ("sam", "reports.suspend", once.id)
    assert actions[1] == ("sam", "user.disable", "alice")


def test_an_account_cannot_be_deleted_as_a_twit(
    staff_client: Client, alice: User, bob: User
) -> None:
    reports.report(bob, userid="alice", reason="spam")
    [subject] = reports.queue().items
    response = staff_client.post(
        "/console/reports/act", {"subject": subject.id, "action": "delete", **CONFIRM}
    )
    assert response.status_code == 400
    assert staff_client.get("/console/reports/zz").status_code == 404
