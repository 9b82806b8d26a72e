"""Reports and the staff's queue, on both servers: a subject's count is
exact (the same user twice counts once, two users twice), the queue lists
open subjects newest first and most reported first, a close takes a
subject off the queue and a new report opens it again, a retry finishes
what a crash left, and an account's deletion takes its reports along."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from feeds import services
from feeds.errors import InvalidInput, NotFound
from feeds.services import console, deletion, reports
from feeds.services.console import reports as console_reports
from feeds.types import User
from storage import keys, rows
from storage.connection import connection, table_name


def _ids(order: str = "newest") -> list[tuple[str, int]]:
    page = reports.queue(order, limit=100)
    return [(s.userid if s.kind == "user" else s.text, s.count) for s in page.items]


def test_the_same_user_reporting_twice_counts_once(alice: User, bob: User) -> None:
    twit = services.post_twit("alice", "buy my stuff")
    first = reports.report(bob, twit_id=twit.id, reason="spam", text="ads")
    again = reports.report(bob, twit_id=twit.id, reason="abuse")
    assert again.reason == "spam" and again.text == "ads"  # the first report stands
    assert first.open and first.kind == "twit" and first.userid == "alice"
    [subject] = reports.queue().items
    assert (subject.count, subject.twit_id, subject.text) == (1, twit.id, "buy my stuff")
    assert [r.reason for r in subject.reasons] == ["spam"]


def test_two_users_reporting_count_two_newest_reason_first(
    alice: User, bob: User, charlie: User
) -> None:
    reports.report(bob, userid="alice", reason="spam")
    reports.report(charlie, userid="ALICE", reason="other", text="  rude  ")
    [subject] = reports.queue().items
    assert (subject.kind, subject.userid, subject.count) == ("user", "alice", 2)
    assert [(r.reason, r.text) for r in subject.reasons] == [("other", "rude"), ("spam", "")]
    assert [r.reporter for r in reports.subject_reports(subject.id)] == ["charlie", "bob"]


def test_the_queue_lists_newest_first_and_most_reported_first(
    alice: User, bob: User, charlie: User
) -> None:
    dan = services.register("dan", "Dan", "dan@example.com", "correct horse battery")
    a = services.post_twit("alice", "first")
    b = services.post_twit("alice", "second")
    reports.report(bob, twit_id=a.id, reason="spam")
    reports.report(charlie, twit_id=a.id, reason="spam")
    reports.report(bob, twit_id=b.id, reason="abuse")
    reports.report(dan, userid="bob", reason="other")
    assert _ids("newest") == [("bob", 1), ("second", 1), ("first", 2)]
    assert _ids("most") == [("first", 2), ("bob", 1), ("second", 1)]
    # A new report moves its subject up both lists; its old rows are gone.
    reports.report(dan, twit_id=b.id, reason="spam")
    reports.report(charlie, twit_id=b.id, reason="spam")
    assert _ids("newest") == [("second", 3), ("bob", 1), ("first", 2)]
    assert _ids("most") == [("second", 3), ("first", 2), ("bob", 1)]
    with connection() as conn:
        assert len(list(conn.table(table_name("reportQueue")).scan())) == 6
    # Pages of one.
    seen, cursor = [], None
    while True:
        page = reports.queue("most", cursor, limit=1)
        seen += [s.count for s in page.items]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == [3, 2, 1]


def test_a_close_takes_the_subject_off_the_queue_and_a_new_report_reopens_it(
    alice: User, bob: User, charlie: User
) -> None:
    twit = services.post_twit("alice", "hmm")
    reports.report(bob, twit_id=twit.id, reason="spam")
    reports.report(charlie, twit_id=twit.id, reason="spam")
    [subject] = reports.queue().items
    closed = reports.close(subject.id)
    assert closed.count == 2
    assert reports.queue().items == () and reports.queue("most").items == ()
    with pytest.raises(NotFound):
        reports.close(subject.id)
    assert not any(r.open for r in reports.subject_reports(subject.id))
    # bob reports it again: a new round, counted from 1.
    again = reports.report(bob, twit_id=twit.id, reason="abuse")
    assert again.open and again.reason == "abuse"
    [reopened] = reports.queue().items
    assert (reopened.count, [r.reason for r in reopened.reasons]) == (1, ["abuse"])


def test_a_retry_after_a_crash_counts_once_and_queues_the_subject(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first try dies after counting, before it marks the report counted.
    real = reports.ops.check_and_put

    def dies_at_the_mark(*args: object) -> bool:
        if args[5] == rows.REPORT_STATE and bytes(args[6]).endswith(b":1"):  # type: ignore[arg-type]
            raise RuntimeError("killed")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(reports.ops, "check_and_put", dies_at_the_mark)
    with pytest.raises(RuntimeError):
        reports.report(bob, userid="alice", reason="spam")
    monkeypatch.undo()
    assert reports.queue().items == ()
    reports.report(bob, userid="alice", reason="abuse")
    reports.report(bob, userid="alice", reason="abuse")
    [subject] = reports.queue().items
    assert subject.count == 1
    assert [r.reason for r in subject.reasons] == ["spam"]


def test_reports_of_oneself_missing_things_and_bad_reasons_are_refused(
    alice: User, bob: User
) -> None:
    mine = services.post_twit("alice", "mine")
    with pytest.raises(InvalidInput, match="your own twit"):
        reports.report(alice, twit_id=mine.id, reason="spam")
    with pytest.raises(InvalidInput, match="yourself"):
        reports.report(alice, userid="ALICE", reason="spam")
    with pytest.raises(NotFound):
        reports.report(alice, twit_id="0" * 56, reason="spam")
    with pytest.raises(NotFound):
        reports.report(alice, twit_id="nope", reason="spam")
    with pytest.raises(NotFound):
        reports.report(alice, userid="nobody_here", reason="spam")
    with pytest.raises(InvalidInput) as bad:
        reports.report(bob, twit_id=mine.id, reason="boring")
    assert bad.value.field == "reason"
    with pytest.raises(InvalidInput) as long:
        reports.report(bob, twit_id=mine.id, reason="other", text="x" * 281)
    assert long.value.field == "text"
    with pytest.raises(InvalidInput):
        reports.report(bob, twit_id=mine.id, userid="alice", reason="spam")
    reports.report(bob, twit_id=mine.id, reason="other", text="x" * 280)
    assert reports.queue().items[0].count == 1


def test_a_deleted_twit_cannot_be_reported(alice: User, bob: User) -> None:
    twit = services.post_twit("alice", "soon gone")
    services.delete_twit("alice", twit.id)
    with pytest.raises(NotFound):
        reports.report(bob, twit_id=twit.id, reason="spam")


def test_forget_user_takes_reports_of_and_by_the_user(
    alice: User, bob: User, charlie: User
) -> None:
    twit = services.post_twit("alice", "reported")
    reports.report(bob, twit_id=twit.id, reason="spam")
    reports.report(bob, userid="alice", reason="spam")
    reports.report(alice, userid="charlie", reason="abuse")
    assert reports.forget_user("alice") == 3
    [left] = reports.queue().items
    assert (left.userid, left.count) == ("charlie", 1)
    assert reports.subject_reports(left.id) == ()
    alice_md5 = keys.user_hash("alice")
    with connection() as conn:
        for table in ("reportsBySubject", "reportSubjects", "reportQueue"):
            for key, row in conn.table(table_name(table)).scan():
                assert alice_md5 not in key, table
                assert b"alice" not in b"".join(row.values()), table
    assert rows.decode_subject_state(None).queued == ()


def test_an_account_deletion_leaves_nothing_of_the_user_in_the_reports(
    alice: User, bob: User, charlie: User
) -> None:
    twit = services.post_twit("alice", "reported")
    reports.report(bob, twit_id=twit.id, reason="spam")
    reports.report(alice, userid="charlie", reason="abuse")
    assert deletion.erase_account("alice", round(alice.created.timestamp() * 1000))
    [left] = reports.queue().items
    assert left.userid == "charlie"
    alice_md5 = keys.user_hash("alice")
    with connection() as conn:
        for table in ("reportsBySubject", "reportSubjects", "reportQueue"):
            for key, _ in conn.table(table_name(table)).scan():
                assert alice_md5 not in key, table


def test_reports_racing_on_one_subject_count_each_reporter_once(alice: User) -> None:
    twit = services.post_twit("alice", "contested")
    reporters = [
        services.register(f"racer{i}", f"Racer {i}", f"racer{i}@example.com", "a long passphrase")
        for i in range(6)
    ]
    with ThreadPoolExecutor(max_workers=8) as pool:
        done = list(
            pool.map(lambda u: reports.report(u, twit_id=twit.id, reason="spam"), reporters * 3)
        )
    assert len(done) == 18
    [subject] = reports.queue().items
    assert subject.count == 6
    assert [s.count for s in reports.queue("most").items] == [6]
    assert len(reports.subject_reports(subject.id)) == 6


def test_staff_actions_close_the_reports_and_are_audited(
    alice: User, bob: User, charlie: User
) -> None:
    dismissed = services.post_twit("alice", "meh")
    deleted = services.post_twit("alice", "awful")
    reports.report(bob, twit_id=dismissed.id, reason="other")
    reports.report(bob, twit_id=deleted.id, reason="abuse")
    reports.report(charlie, userid="bob", reason="spam")
    ids = {s.twit_id or s.userid: s.id for s in reports.queue().items}
    console_reports.act("charlie", ids[dismissed.id], "dismiss")
    console_reports.act("charlie", ids[deleted.id], "delete")
    with pytest.raises(InvalidInput):
        console_reports.act("charlie", ids["bob"], "delete")  # an account is no twit
    console_reports.act("charlie", ids["bob"], "suspend")
    assert reports.queue().items == ()
    assert services.get_twit(dismissed.id).text == "meh"
    with pytest.raises(NotFound):
        services.get_twit(deleted.id)
    assert services.get_user("bob").disabled
    actions = [(e.action, e.target) for e in console.audit_log(limit=10).items]
    assert actions == [
        ("reports.suspend", "@bob"),
        ("user.disable", "bob"),
        ("reports.delete", deleted.id),
        ("twit.delete", deleted.id),
        ("reports.dismiss", dismissed.id),
    ]
    with pytest.raises(NotFound):
        console_reports.act("charlie", ids[dismissed.id], "dismiss")
