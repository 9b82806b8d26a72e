"""Who is suspended, kept by each process under the one counter every
suspension and reinstatement raises (accounts.SuspendedCache): a page asks
only about the accounts the process does not know, and a suspension made
anywhere shows on the next page read after it returns."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator

import happybase
import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import accounts
from feeds.types import User
from storage import ops, rows
from storage.connection import reset_pool


@pytest.fixture
def asked(
    alice: User, bob: User, charlie: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[list[str]]]:
    """dave follows alice and charlie; answers kept longer than the test, so
    only the counter renews them. Yields the accounts each lookup asked the
    users rows about, in turn."""
    settings.TWITBASE_PAGE_CACHE_S = 600
    services.register("dave", "Dave", "dave@example.com", "a long password 1")
    services.follow("dave", "alice")
    services.follow("dave", "charlie")
    accounts.SUSPENDED.clear()
    calls: list[list[str]] = []
    real = accounts._ask_disabled

    def counted(pipe: ops.Pipeline, wanted: list[str]) -> Callable[[], dict[str, bool]]:
        calls.append(sorted(wanted))
        return real(pipe, wanted)

    monkeypatch.setattr(accounts, "_ask_disabled", counted)
    yield calls


def _authors(reader: str = "dave") -> list[str]:
    return [t.userid for t in services.home_stream(reader).items]


def test_a_page_asks_only_about_accounts_the_process_does_not_know(
    asked: list[list[str]],
) -> None:
    services.post_twit("alice", "one")
    assert _authors() == ["alice"]
    assert _authors() == ["alice"]
    services.post_twit("charlie", "two")
    assert _authors() == ["charlie", "alice"]
    assert [ids for ids in asked if ids] == [["alice"], ["charlie"]]


def test_a_suspension_shows_on_the_next_page_and_asks_the_kept_again(
    asked: list[list[str]],
) -> None:
    services.post_twit("alice", "one")
    services.post_twit("charlie", "two")
    assert _authors() == ["charlie", "alice"]
    services.set_disabled("charlie", True)
    # The counter moved: what was kept is asked again, in a round trip of its own.
    assert _authors() == ["alice"]
    assert [ids for ids in asked if ids] == [["alice", "charlie"], ["alice", "charlie"]]
    services.set_disabled("charlie", False)
    assert _authors() == ["charlie", "alice"]


def _suspend(userid: str, disabled: bool) -> None:
    """In another process (another web worker, the console's)."""
    reset_pool()  # a forked child must not share its parent's sockets
    services.set_disabled(userid, disabled)


def test_a_suspension_made_in_another_process_shows_on_this_ones_next_page(
    asked: list[list[str]],
) -> None:
    services.post_twit("alice", "one")
    services.post_twit("charlie", "two")
    assert _authors() == ["charlie", "alice"]
    with multiprocessing.get_context("fork").Pool(1) as pool:
        for n in range(3):
            pool.apply(_suspend, ("alice", True))
            assert _authors() == ["charlie"], n
            assert _authors() == ["charlie"], n
            pool.apply(_suspend, ("alice", False))
            assert _authors() == ["charlie", "alice"], n


class Died(Exception):
    """The process stopping where it is raised."""


def test_a_suspension_cut_off_before_its_raise_shows_once_it_is_made_again(
    asked: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash between the flag and the counter: kept answers stay as they
    were (for the seconds at most); suspending again raises the counter."""
    services.post_twit("alice", "one")
    assert _authors() == ["alice"]
    real = happybase.Table.counter_inc

    def crash(table: happybase.Table, row: bytes, column: bytes, value: int = 1) -> int:
        if column == rows.SUSPENSIONS_CHANGED:
            raise Died
        return real(table, row, column, value)

    monkeypatch.setattr(happybase.Table, "counter_inc", crash)
    with pytest.raises(Died):
        services.set_disabled("alice", True)
    monkeypatch.setattr(happybase.Table, "counter_inc", real)
    assert _authors() == ["alice"]  # kept: the counter did not move
    services.set_disabled("alice", True)
    assert _authors() == []


def test_with_no_seconds_to_keep_every_page_asks(
    asked: list[list[str]], settings: Settings
) -> None:
    settings.TWITBASE_PAGE_CACHE_S = 0
    services.post_twit("alice", "one")
    assert _authors() == ["alice"]
    assert _authors() == ["alice"]
    assert [ids for ids in asked if ids] == [["alice"], ["alice"]]
