"""Direct messages (feeds/services/messages.py): one conversation per pair,
newest first; inboxes ordered by the latest message; unread counts exact,
also when several processes send into the same conversations at once."""

from __future__ import annotations

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import Forbidden, InvalidInput, NotFound
from feeds.services import blocking, messages
from feeds.types import User, from_millis
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import PASSWORD, ServerAddr, hold_rate_clock, register
from tests.services import hammer as hammers
from tests.services.test_model import all_pages


def texts(reader: str, other: str) -> list[str]:
    return [
        m.text for m in all_pages(lambda c: messages.conversation(reader, other, c, limit=2)[1])
    ]


def inbox(userid: str) -> list[tuple[str, str, int]]:
    return [
        (c.userid, c.text, c.unread)
        for c in all_pages(lambda c: messages.inbox(userid, c, limit=2))
    ]


def test_both_see_one_conversation_newest_first(alice: User, bob: User) -> None:
    messages.send("alice", "bob", "hi bob")
    messages.send("bob", "Alice", "hi alice")
    messages.send("alice", "bob", "how are you?")
    assert texts("alice", "bob") == ["how are you?", "hi alice", "hi bob"]
    assert texts("bob", "alice") == ["how are you?", "hi alice", "hi bob"]
    other, page = messages.conversation("bob", "alice")
    assert other.userid == "alice"
    assert [m.userid for m in page.items] == ["alice", "bob", "alice"]
    with connection() as conn:  # written once, under the pair's key
        found = list(
            conn.table(table_name("messages")).scan(
                row_prefix=keys.conversation_key("bob", "alice")
            )
        )
    assert len(found) == 3


def test_inbox_runs_by_latest_message_and_counts_unread(
    alice: User, bob: User, charlie: User
) -> None:
    messages.send("bob", "alice", "one")
    messages.send("charlie", "alice", "two")
    messages.send("bob", "alice", "three")
    assert inbox("alice") == [("bob", "three", 2), ("charlie", "two", 1)]
    assert messages.unread_total("alice") == 3
    assert inbox("bob") == [("alice", "three", 0)]  # a sender's own are read
    messages.send("alice", "charlie", "back to you")
    assert [c[0] for c in inbox("alice")] == ["charlie", "bob"]
    assert len(inbox("alice")) == 2  # the moved row left its old place
    messages.conversation("alice", "bob")  # opening it reads it
    assert inbox("alice") == [("charlie", "back to you", 1), ("bob", "three", 0)]
    assert messages.unread_total("alice") == 1
    messages.conversation("alice", "charlie", limit=1)
    assert messages.unread_total("alice") == 0


def test_only_the_two_participants_read_a_conversation(
    alice: User, bob: User, charlie: User
) -> None:
    messages.send("alice", "bob", "between us")
    # charlie can only name a partner: his conversation with bob is his own.
    assert texts("charlie", "bob") == []
    assert texts("charlie", "alice") == []
    assert inbox("charlie") == []
    with pytest.raises(NotFound):
        messages.conversation("charlie", "nobody")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "Write something"),
        ("   ", "Write something"),
        ("x" * 281, "at most 280"),
        ("a\x00b", "control"),
    ],
)
def test_bad_text_is_refused_and_nothing_is_sent(
    alice: User, bob: User, text: str, why: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        messages.send("alice", "bob", text)
    assert refused.value.field == "text" and why in refused.value.message
    assert texts("bob", "alice") == [] and messages.unread_total("bob") == 0


def test_blocks_suspension_and_self_stop_new_messages(
    alice: User, bob: User, charlie: User
) -> None:
    messages.send("alice", "bob", "before")
    blocking.block("bob", "alice")
    with pytest.raises(Forbidden, match="@bob has blocked you"):
        messages.send("alice", "bob", "after")
    with pytest.raises(Forbidden, match="You have blocked @alice"):
        messages.send("bob", "alice", "after")
    assert texts("alice", "bob") == ["before"]  # the past stays readable
    blocking.unblock("bob", "alice")
    messages.send("alice", "bob", "again")
    services.set_disabled("charlie")
    with pytest.raises(Forbidden, match="suspended"):
        messages.send("charlie", "alice", "hello")
    with pytest.raises(NotFound):
        messages.send("alice", "charlie", "hello")
    with pytest.raises(InvalidInput):
        messages.send("alice", "ALICE", "me")
    assert texts("alice", "charlie") == []


def test_deleting_an_account_deletes_its_conversations_and_fixes_partners_unread(
    alice: User, bob: User, charlie: User
) -> None:
    messages.send("alice", "bob", "from alice")
    messages.send("alice", "bob", "again")
    messages.send("charlie", "bob", "from charlie")
    messages.send("bob", "alice", "from bob")
    assert messages.unread_total("bob") == 3
    services.delete_account("alice", PASSWORD)
    assert inbox("bob") == [("charlie", "from charlie", 1)]
    assert messages.unread_total("bob") == 1
    digest = keys.user_hash("alice")
    with connection() as conn:
        for table in ("messages", "inbox", "inboxState"):
            left = [k for k, _ in conn.table(table_name(table)).scan() if digest in k]
            assert left == [], table
    # A new alice starts with nothing.
    register("alice")
    assert inbox("alice") == [] and texts("bob", "alice") == []
    messages.send("bob", "alice", "welcome")
    assert inbox("alice") == [("bob", "welcome", 1)]


USERS = ["ana", "ben", "cat"]
PROCESSES = 6
OPS = {"local": 40, "hbase": 25}


def _race(mode: str, ops: int) -> dict[tuple[str, str], list[str]]:
    """Run the message hammers; what they sent, by (sender, recipient)."""
    done = hammers.finish(hammers.start(PROCESSES, f"ops={ops}", mode, *USERS, eager=True), 600)
    assert done == PROCESSES * ops
    sent: dict[tuple[str, str], list[str]] = {}
    for seed in range(PROCESSES):
        for a, b, text in hammers.message_plan(seed, ops, USERS, mode == "--messages-read"):
            if text is not None:
                sent.setdefault((a, b), []).append(text)
    return sent


def _check_each_message_once(sent: dict[tuple[str, str], list[str]]) -> None:
    for a in USERS:
        for b in USERS:
            if a < b:
                found = [
                    m.text
                    for m in all_pages(
                        lambda c, a=a, b=b: messages.conversation(a, b, c, limit=50)[1]
                    )
                ]
                assert sorted(found) == sorted(sent.get((a, b), []) + sent.get((b, a), []))


def _check_inboxes() -> None:
    """One inbox row per conversation, at its latest message; the total is
    the sum of the conversations' counts."""
    for userid in USERS:
        rows = messages.inbox(userid, limit=10).items
        assert len({c.userid for c in rows}) == len(rows) == len(USERS) - 1
        assert messages.unread_total(userid) == sum(c.unread for c in rows)
        for c in rows:
            with connection() as conn:
                newest = next(
                    conn.table(table_name("messages")).scan(
                        row_prefix=keys.conversation_key(userid, c.userid), limit=1
                    )
                )
            assert c.updated == from_millis(keys.message_millis(newest[0]))


def test_racing_senders_leave_every_message_once_and_exact_unread(
    twitbase: ServerAddr,
) -> None:
    for userid in USERS:
        register(userid)
    ops = OPS[twitbase.kind]
    sent = _race("--messages", ops)
    _check_inboxes()
    for a in USERS:  # nobody has opened anything: unread is all that came
        for c in messages.inbox(a, limit=10).items:
            assert c.unread == len(sent.get((c.userid, a), []))
    _check_each_message_once(sent)  # opens the conversations of the first of each pair
    # Now openings race the sends too.
    more = _race("--messages-read", ops)
    _check_inboxes()
    for pair, texts_sent in more.items():
        sent.setdefault(pair, []).extend(texts_sent)
    _check_each_message_once(sent)
    for a in USERS:
        for b in USERS:
            if a != b:
                messages.conversation(a, b, limit=1)
        assert messages.unread_total(a) == 0  # what the counts took off, exactly


def test_a_block_that_lands_during_a_send_takes_the_message_back(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = []
    refuse = messages.blocks.refuse_blocked

    def block_after_the_first_check(*args: object) -> None:
        refuse(*args)  # type: ignore[arg-type]
        if not checked:
            checked.append(True)
            blocking.block("bob", "alice")  # lands between the check and the write

    monkeypatch.setattr(messages.blocks, "refuse_blocked", block_after_the_first_check)
    with pytest.raises(Forbidden, match="@bob has blocked you"):
        messages.send("alice", "bob", "in flight")
    monkeypatch.undo()
    assert texts("bob", "alice") == [] and inbox("bob") == [] and inbox("alice") == []
    assert messages.unread_total("bob") == 0


def test_sending_is_limited_per_minute_and_a_refusal_writes_nothing(
    alice: User, bob: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold_rate_clock(monkeypatch)
    settings.TWITBASE_MESSAGES_PER_MINUTE = 2
    messages.send("alice", "bob", "one")
    messages.send("alice", "bob", "two")
    with pytest.raises(services.RateLimited) as refused:
        messages.send("alice", "bob", "three")
    assert refused.value.status == 429 and 0 < (refused.value.retry_after or 0) <= 60
    assert "You can send 2 messages a minute" in refused.value.message
    assert texts("bob", "alice") == ["two", "one"]
    assert messages.unread_total("bob") == 0  # bob has read them now
    messages.send("bob", "alice", "bob has his own")
