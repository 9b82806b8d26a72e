"""Search of twits by their words (services.search.search_twits, the
``twitWords`` index that tagindex writes with each twit). On both servers."""

from __future__ import annotations

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import InvalidInput
from feeds.services import blocking, search
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import PASSWORD
from tests.services.test_model import all_pages


def found(q: str, reader: str | None = None, limit: int = 20) -> list[str]:
    return [
        t.text for t in all_pages(lambda c: search.search_twits(q, c, limit=limit, reader=reader))
    ]


def test_words_find_twits_newest_first_in_any_case_and_form(alice: User, bob: User) -> None:
    services.post_twit("alice", "HBase row keys are sorted")
    services.post_twit("bob", "Row keys: design them for your reads #HBase")
    services.post_twit("alice", "nothing to see, see https://example.com/hbase")
    assert found("hbase") == [
        "Row keys: design them for your reads #HBase",
        "HBase row keys are sorted",
    ]
    assert found("ROW   keys") == found("keys row") == found("hbase")
    assert found("sorted hbase") == ["HBase row keys are sorted"]
    assert found("alice") == []  # a userid is no word of the twit
    assert found("example") == []  # nor is a link's text
    assert found("zebra") == []


def test_a_deleted_or_hidden_twit_is_gone_from_the_results(
    alice: User, bob: User, charlie: User
) -> None:
    gone = services.post_twit("alice", "ephemeral words here")
    services.post_twit("bob", "ephemeral words by bob")
    services.delete_twit("alice", gone.id)
    assert found("ephemeral") == ["ephemeral words by bob"]
    with connection() as conn:
        left = list(conn.table(table_name("twitWords")).scan(row_prefix=keys.word_hash("here")))
    assert left == []
    services.set_disabled("bob", True)
    assert found("ephemeral") == []
    services.set_disabled("bob", False)
    blocking.block("bob", "charlie")
    assert found("ephemeral", reader="charlie") == []
    assert found("ephemeral", reader="alice") == ["ephemeral words by bob"]


def test_pages_go_on_by_cursor_without_repeats(alice: User, settings: Settings) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    texts = [f"paged twit {n}" + (" rare" if n % 5 == 0 else "") for n in range(23)]
    for text in texts:
        services.post_twit("alice", text)
    assert found("paged", limit=4) == texts[::-1]
    assert found("paged rare", limit=2) == [t for t in texts[::-1] if t.endswith("rare")]


def test_a_scan_is_bounded_and_a_short_page_says_where_to_go_on(
    alice: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    monkeypatch.setattr(search, "SCAN_MAX", 5)
    services.post_twit("alice", "pin common")
    for n in range(8):
        services.post_twit("alice", f"common filler {n}")
    first = search.search_twits("common pin", limit=3)
    assert first.items == () and first.next_cursor is not None
    assert found("common pin", limit=3) == ["pin common"]


@pytest.mark.parametrize("q", ["", "   ", "a", "!!", "x" * 51, "one two three four five six", 7])
def test_a_search_that_cannot_run_says_why(alice: User, q: object) -> None:
    with pytest.raises(InvalidInput) as caught:
        search.search_twits(q)  # type: ignore[arg-type]
    assert caught.value.field == "q"


def test_deleting_an_account_leaves_no_word_rows(alice: User, bob: User) -> None:
    services.post_twit("alice", "words of alice only")
    services.post_twit("bob", "words of bob")
    services.delete_account("alice", PASSWORD)
    with connection() as conn:
        rows = list(conn.table(table_name("twitWords")).scan())
    assert len(rows) == 3  # words, of, bob
    assert found("words") == ["words of bob"]
