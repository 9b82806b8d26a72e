"""The reader's likes and reposts of a page's twits, kept by each process
under the reader's REACTIONS_CHANGED counter (reactions.FlagsCache): asked
once for each value of it, asked again after every change of them however
long the cache keeps answers, whichever process made the change, and never
kept for a reader given as a userid or whose counter was never raised."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator

import happybase
import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import accounts, blocking, reactions
from feeds.types import User
from storage import ops, rows
from storage.connection import reset_pool


@pytest.fixture
def asked(
    alice: User, bob: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[list[str]]]:
    """bob follows alice; flags kept longer than the test, so only the
    counter renews them. Yields the twit ids each page looked up, in turn."""
    settings.TWITBASE_PAGE_CACHE_S = 600
    settings.TWITBASE_REACTIONS_PER_MINUTE = 1000
    services.follow("bob", "alice")
    calls: list[list[str]] = []
    real = reactions._flags

    def counted(
        pipe: ops.Pipeline, userid: str, twit_ids: list[str]
    ) -> Callable[[], reactions.Flags]:
        calls.append(sorted(twit_ids))
        return real(pipe, userid, twit_ids)

    monkeypatch.setattr(reactions, "_flags", counted)
    yield calls


def _home(userid: str) -> dict[str, tuple[bool | None, bool | None]]:
    """The home page's flags by twit, the profile read afresh as a request reads it."""
    page = services.home_stream(services.get_user(userid)).items
    return {t.id: (t.liked, t.reposted) for t in page}


def test_a_page_asks_once_per_change_of_the_readers_likes_and_reposts(
    asked: list[list[str]],
) -> None:
    first, second = (services.post_twit("alice", f"twit {n}").id for n in range(2))
    # Never liked or reposted anything: the counter is 0, asked every time.
    assert _home("bob") == {first: (False, False), second: (False, False)}
    assert _home("bob") == {first: (False, False), second: (False, False)}
    assert asked == [sorted([first, second])] * 2
    asked.clear()
    services.like("bob", first)
    assert services.get_user("bob").reactions_changed == 1
    assert _home("bob") == {first: (True, False), second: (False, False)}
    assert _home("bob") == {first: (True, False), second: (False, False)}
    # Asked once under the new counter; the second page asked nothing.
    assert asked == [sorted([first, second]), []]
    # A new twit: only it is asked about.
    third = services.post_twit("alice", "twit 2").id
    assert _home("bob")[third] == (False, False)
    assert asked[-1] == [third]
    # Each change shows on the next page: a repost, then both taken back.
    services.repost("bob", second)
    assert _home("bob")[second] == (False, True)
    services.unlike("bob", first)
    services.unrepost("bob", second)
    assert _home("bob") == {t: (False, False) for t in (first, second, third)}
    assert services.get_user("bob").reactions_changed == 4


def test_a_reader_given_as_a_userid_is_asked_every_time(asked: list[list[str]]) -> None:
    """Without the profile there is no counter to keep flags under (the
    home stream reads the profile itself; a timeline takes what it is given)."""
    twit = services.post_twit("alice", "hello").id
    services.like("bob", twit)
    for _ in range(2):
        (seen,) = services.timeline("alice", reader="bob").items
        assert seen.liked is True
    assert asked == [[twit], [twit]]


def test_a_bookmark_does_not_renew_the_flags(asked: list[list[str]]) -> None:
    twit = services.post_twit("alice", "hello").id
    services.like("bob", twit)
    assert _home("bob") == {twit: (True, False)}
    reactions.bookmark("bob", twit)
    assert _home("bob") == {twit: (True, False)}
    assert [ids for ids in asked if ids] == [[twit]]


class Died(Exception):
    """The process stopping where it is raised."""


def _change(userid: str, twit_id: str, like: bool) -> int:
    """In another process: like or unlike, and say the counter it left."""
    reset_pool()  # a forked child must not share its parent's sockets
    if like:
        services.like(userid, twit_id)
    else:
        services.unlike(userid, twit_id)
    return services.get_user(userid).reactions_changed


def test_a_change_in_another_process_shows_on_this_ones_next_page(
    asked: list[list[str]],
) -> None:
    """The cache is per process; the counter is in the reader's row, so a
    like or unlike made by another process (another web worker) renews the
    flags this one keeps."""
    twit = services.post_twit("alice", "hello").id
    services.like("bob", twit)
    assert _home("bob") == {twit: (True, False)}
    assert _home("bob") == {twit: (True, False)}  # kept
    with multiprocessing.get_context("fork").Pool(1) as pool:
        for n in range(3):
            counter = pool.apply(_change, ("bob", twit, False))
            assert _home("bob") == {twit: (False, False)}, n
            assert services.get_user("bob").reactions_changed == counter
            pool.apply(_change, ("bob", twit, True))
            assert _home("bob") == {twit: (True, False)}, n
    # Asked under the first counter, then under each change's.
    assert [ids for ids in asked if ids] == [[twit]] * (1 + 6)


def test_a_like_a_block_takes_away_is_gone_from_the_next_page(
    asked: list[list[str]], charlie: User
) -> None:
    """A block takes the blocked's likes of the blocker's twits away: a
    change of the blocked's flags that they did not make."""
    services.follow("bob", "charlie")
    theirs = services.post_twit("charlie", "charlie's").id
    alices = services.post_twit("alice", "alice's").id
    services.like("bob", theirs)
    services.like("bob", alices)
    assert _home("bob") == {theirs: (True, False), alices: (True, False)}
    blocking.block("alice", "bob")
    # alice's twit is hidden now (she blocks bob), and bob no longer likes it.
    assert _home("bob") == {theirs: (True, False)}
    assert not reactions.reacted(reactions.LIKE, "bob", [alices])
    blocking.unblock("alice", "bob")
    services.follow("bob", "alice")
    assert _home("bob") == {theirs: (True, False), alices: (False, False)}


def test_a_change_cut_off_before_its_raise_raises_it_when_it_is_finished(
    asked: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash between the like's state and the counter's raise: the kept
    flags are stale until the change is finished, by its retry or the
    pair's next change, which raises the counter."""
    twit = services.post_twit("alice", "hello").id
    services.like("bob", twit)
    assert _home("bob") == {twit: (True, False)}
    real = accounts.bump

    def crash(conn: happybase.Connection, userid: str, column: bytes) -> None:
        if column == rows.REACTIONS_CHANGED:
            raise Died
        real(conn, userid, column)

    monkeypatch.setattr(accounts, "bump", crash)
    with pytest.raises(Died):
        services.unlike("bob", twit)
    monkeypatch.setattr(accounts, "bump", real)
    # The unlike's state is written, its raise is not: the kept flag is stale.
    assert _home("bob") == {twit: (True, False)}
    # The retry finishes it (the pair is not marked counted), raising the counter.
    services.unlike("bob", twit)
    assert _home("bob") == {twit: (False, False)}
    assert services.get_twit(twit).likes == 0
