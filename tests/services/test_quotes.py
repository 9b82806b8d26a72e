"""Quote posts: a twit that embeds another, shown as a card through the
hydrate step; the quoted twit lists its quotes (newest first) and counts
them exactly, however quotes, their deletes and the quoted twit's delete
interleave."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from feeds import services
from feeds.errors import Forbidden, NotFound
from feeds.services import blocking, twits
from feeds.types import Twit, User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import PASSWORD, ServerAddr, register
from tests.services import hammer as hammers
from tests.services.test_concurrency import PROCESSES, USERS
from tests.services.test_model import all_pages
from tests.waiting import eventually


def quotes_of(twit_id: str, reader: str | None = None) -> list[Twit]:
    return all_pages(lambda c: services.quotes(twit_id, c, limit=2, reader=reader))


def card(twit_id: str, reader: str | None = None) -> tuple[str, str]:
    """The card of ``twit_id`` (a quote) in its author's timeline as ``reader`` sees it."""
    twit = services.get_twit(twit_id)
    page = services.timeline(twit.userid, reader=reader)
    shown = next(t for t in page.items if t.id == twit_id)
    assert shown.quoted is not None
    return shown.quoted.state, shown.quoted.text


def quote_rows(twit_id: str) -> list[bytes]:
    with connection() as conn:
        table = conn.table(table_name("quotes"))
        return [k for k, _ in table.scan(row_prefix=keys.twit_key_from_id(twit_id))]


def test_quotes_are_listed_newest_first_counted_and_carry_their_card(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("charlie", "bob")
    quoted = services.post_twit("alice", "the original")
    first = services.post_twit("bob", "so true", quote_of=quoted.id)
    second = services.post_twit("charlie", "hm", quote_of=quoted.id)
    assert [t.text for t in quotes_of(quoted.id)] == ["hm", "so true"]
    assert services.get_twit(quoted.id).quotes == 2
    assert first.quote_of == quoted.id
    assert card(first.id) == ("shown", "the original")
    listed = quotes_of(quoted.id)
    assert listed[0].id == second.id and listed[0].quoted is not None
    assert listed[0].quoted.userid == "alice" and listed[0].quoted.name == alice.name
    # In the quoter's followers' streams too: a stream row does not carry
    # what it quotes, the hydrate step reads it with the counts.
    streamed = {t.id: t for t in services.home_stream("charlie").items}
    shown = streamed[first.id].quoted
    assert shown is not None and (shown.state, shown.text) == ("shown", "the original")
    assert streamed[second.id].quoted is not None


def test_a_quote_of_no_twit_or_across_a_block_is_refused_and_stores_nothing(
    alice: User, bob: User
) -> None:
    quoted = services.post_twit("alice", "quote me not")
    with pytest.raises(NotFound, match="does not exist"):
        services.post_twit("bob", "x", quote_of="ab" * 28)
    with pytest.raises(NotFound):
        services.post_twit("bob", "x", quote_of="not-an-id")
    blocking.block("alice", "bob")
    with pytest.raises(Forbidden, match="blocked you"):
        services.post_twit("bob", "x", quote_of=quoted.id)
    assert services.get_user("bob").twits == 0
    assert quote_rows(quoted.id) == []
    assert services.get_twit(quoted.id).quotes == 0


def test_deleting_a_quote_takes_it_out_once_and_deleting_the_quoted_shows_deleted(
    alice: User, bob: User
) -> None:
    quoted = services.post_twit("alice", "soon gone")
    quote = services.post_twit("bob", "look", quote_of=quoted.id)
    gone = services.post_twit("bob", "look again", quote_of=quoted.id)
    services.delete_twit("bob", gone.id)
    with pytest.raises(NotFound):
        services.delete_twit("bob", gone.id)
    assert services.get_twit(quoted.id).quotes == 1
    assert [t.id for t in quotes_of(quoted.id)] == [quote.id]
    services.delete_twit("alice", quoted.id)
    assert card(quote.id) == ("deleted", "")
    assert quote_rows(quoted.id) == []
    # The quote itself can still go, and lowers no count of a deleted twit.
    services.delete_twit("bob", quote.id)
    with connection() as conn:
        assert conn.table(table_name("twits")).row(keys.twit_key_from_id(quoted.id)) == {}


def test_a_twit_deleted_between_a_quotes_check_and_its_write_keeps_no_row_or_count(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interleaving the processes test can only hope to hit: the quoted
    twit is checked, then deleted whole, then the quote writes its row and +1."""
    quoted = services.post_twit("alice", "checked, then gone")
    found = twits._quoted

    def deleted_right_after(quote_of: object) -> Twit:
        twit = found(quote_of)
        services.delete_twit("alice", quoted.id)
        return twit

    monkeypatch.setattr(twits, "_quoted", deleted_right_after)
    quote = services.post_twit("bob", "too late", quote_of=quoted.id)
    assert quote_rows(quoted.id) == []
    with connection() as conn:
        assert conn.table(table_name("twits")).row(keys.twit_key_from_id(quoted.id)) == {}
    assert card(quote.id) == ("deleted", "")
    services.delete_twit("bob", quote.id)  # and it still deletes cleanly
    assert services.get_user("bob").twits == 0


def test_the_card_is_unavailable_when_its_author_is_suspended_blocks_or_is_muted(
    alice: User, bob: User, charlie: User
) -> None:
    quoted = services.post_twit("alice", "secret")
    quote = services.post_twit("bob", "see this", quote_of=quoted.id)
    assert card(quote.id, reader="charlie") == ("shown", "secret")
    blocking.mute("charlie", "alice")
    assert card(quote.id, reader="charlie") == ("unavailable", "")
    assert card(quote.id, reader="bob") == ("shown", "secret")
    blocking.block("alice", "bob")  # after the quote: bob may no longer read it
    assert card(quote.id, reader="bob") == ("unavailable", "")
    services.set_disabled("alice")
    assert card(quote.id) == ("unavailable", "")
    services.set_disabled("alice", False)
    assert card(quote.id) == ("shown", "secret")


def test_the_quoted_author_is_notified_once_and_not_across_a_block(
    alice: User, bob: User, charlie: User
) -> None:
    quoted = services.post_twit("alice", "notable")
    services.post_twit("alice", "myself", quote_of=quoted.id)
    quote = services.post_twit("bob", "noted", quote_of=quoted.id)
    blocking.block("charlie", "alice")
    with pytest.raises(Forbidden):
        services.post_twit("charlie", "no", quote_of=quoted.id)
    found = services.notifications("alice").items
    assert [(n.type, n.twit_id) for n in found] == [("quote", quote.id)]
    services.delete_twit("bob", quote.id)
    assert services.notifications("alice").items == ()


def test_a_deleted_account_leaves_no_quote_row(alice: User, bob: User) -> None:
    quoted = services.post_twit("alice", "kept")
    services.post_twit("bob", "mine", quote_of=quoted.id)
    own = services.post_twit("bob", "quote me")
    services.post_twit("alice", "quoting bob", quote_of=own.id)
    services.delete_account("bob", PASSWORD)
    assert quote_rows(quoted.id) == []
    assert services.get_twit(quoted.id).quotes == 0
    with connection() as conn:
        assert list(conn.table(table_name("quotes")).scan()) == []
    mine = services.timeline("alice").items
    assert [t.quoted.state for t in mine if t.quoted is not None] == ["deleted"]


def test_quote_count_equals_quotes_after_concurrent_quotes_and_deletes(
    twitbase: ServerAddr,
) -> None:
    for userid in USERS:
        register(userid)
    quoted = services.post_twit("ana", "quote me, all at once")
    procs = hammers.start(PROCESSES, "ops=40", "--quotes", quoted.id, *USERS, eager=True)
    assert hammers.finish(procs, timeout=600) == PROCESSES * 40
    listed = quotes_of(quoted.id)
    assert len(listed) > 0
    assert services.get_twit(quoted.id).quotes == len(listed) == len(quote_rows(quoted.id))
    alive = [t for u in USERS for t in all_pages(lambda c, u=u: services.timeline(u, c, limit=100))]
    assert sorted(t.id for t in alive if t.quote_of == quoted.id) == sorted(t.id for t in listed)


def test_quotes_racing_the_quoted_twits_delete_leave_no_ghost(twitbase: ServerAddr) -> None:
    for userid in USERS:
        register(userid)
    quoted = services.post_twit("ana", "going, going")
    procs = hammers.start(PROCESSES, "s=4", "--quotes", quoted.id, *USERS, eager=True)
    # Deleted once the quoting is under way: the first quote is in. (A fixed
    # 1.5 s was shorter than the processes' start on a loaded machine.)
    eventually(lambda: bool(quote_rows(quoted.id)), 120, "a first quote", every=0.05)
    services.delete_twit("ana", quoted.id)
    hammers.finish(procs, timeout=600)
    assert quote_rows(quoted.id) == []
    with connection() as conn:
        # No count, no pending id, nothing: the deleted twit's row is gone whole.
        assert conn.table(table_name("twits")).row(keys.twit_key_from_id(quoted.id)) == {}
    quotes = [
        t
        for u in USERS
        for t in all_pages(lambda c, u=u: services.timeline(u, c, limit=100))
        if t.quote_of == quoted.id
    ]
    assert quotes, "no quote was posted before the delete"
    assert {t.quoted.state for t in quotes if t.quoted is not None} == {"deleted"}
    assert all(t.quoted is not None for t in quotes)


@pytest.mark.fresh_tables  # the demo's twits are from the days before it
def test_loaddemo_writes_quotes_that_read_and_delete_as_posted_ones(
    twitbase: ServerAddr,
) -> None:
    call_command("loaddemo", users=40, twits=400, stdout=io.StringIO(), stderr=io.StringIO())
    users = all_pages(lambda c: services.list_users(c, limit=100))
    every = [t for u in users for t in all_pages(lambda c, u=u: services.timeline(u.userid, c))]
    quotes = [t for t in every if t.quote_of is not None]
    assert quotes, "the demo has quote posts"
    assert all(t.quoted is not None and t.quoted.state == "shown" for t in quotes)
    by_id = {t.id: t for t in every}
    for quoted_id in {t.quote_of for t in quotes if t.quote_of}:
        listed = quotes_of(quoted_id)
        assert by_id[quoted_id].quotes == len(listed)
        assert sorted(t.id for t in listed) == sorted(
            t.id for t in quotes if t.quote_of == quoted_id
        )
    # A demo quote deletes as a posted one does: out of the list, counted down once.
    one = quotes[0]
    assert one.quote_of is not None
    before = services.get_twit(one.quote_of).quotes
    services.delete_twit(one.userid, one.id)
    assert services.get_twit(one.quote_of).quotes == before - 1
    assert one.id not in {t.id for t in quotes_of(one.quote_of)}
