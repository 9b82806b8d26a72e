"""Every API list of twits shows the same twit with the same counts and the
caller's flags (one hydrate step behind them all), hides a suspended
author's twits, and answers 503 when storage fails under it."""

from __future__ import annotations

from typing import Any

import happybase
import pytest
from thriftpy2.transport import TTransportException

from feeds import services
from feeds.types import User
from storage import ops
from storage.connection import table_name

from .helpers import Api

FIELDS = ("replies", "likes", "reposts", "liked", "reposted")


def _items(api: Api, path: str) -> list[dict[str, Any]]:
    """Every page of the list at ``path``."""
    items: list[dict[str, Any]] = []
    query: dict[str, str] = {}
    while True:
        response = api.get(path, **query)
        assert response.status_code == 200, (path, response.content)
        body = response.json()
        items += body["items"]
        if not body.get("next_cursor"):
            return items
        query = {"cursor": body["next_cursor"]}


def test_every_list_shows_a_twit_with_the_same_counts_and_the_callers_flags(
    as_bob: Api, alice: User, charlie: User
) -> None:
    as_bob.put("/api/follows/alice")
    twit = services.post_twit("alice", "a pot of #tea")
    reply = services.post_twit("charlie", "#tea for me too", reply_to=twit.id)
    assert as_bob.put(f"/api/twits/{twit.id}/like").status_code == 200
    assert as_bob.put(f"/api/twits/{twit.id}/repost").status_code == 200
    services.like("charlie", twit.id)
    lists = {
        path: [t for t in _items(as_bob, path) if t["id"] == twit.id]
        for path in (
            "/api/stream",
            "/api/users/alice/twits",
            "/api/tags/tea",
            "/api/users/bob/likes",
            "/api/users/charlie/likes",
        )
    }
    lists["/api/twits/{id}"] = [as_bob.get(f"/api/twits/{twit.id}").json()]
    (listed,) = _items(as_bob, f"/api/twits/{twit.id}/replies")
    assert {path: [{f: t[f] for f in FIELDS} for t in found] for path, found in lists.items()} == {
        path: [{"replies": 1, "likes": 2, "reposts": 1, "liked": True, "reposted": True}]
        for path in lists
    }
    assert (listed["id"], *(listed[f] for f in FIELDS)) == (reply.id, 0, 0, 0, False, False)


def test_a_suspended_authors_twit_is_absent_from_a_likes_list(
    api: Api, alice: User, bob: User
) -> None:
    twit = services.post_twit("alice", "liked, then suspended")
    services.like("bob", twit.id)
    assert [t["id"] for t in _items(api, "/api/users/bob/likes")] == [twit.id]
    services.set_disabled("alice", True)
    assert _items(api, "/api/users/bob/likes") == []
    services.set_disabled("alice", False)
    assert [t["id"] for t in _items(api, "/api/users/bob/likes")] == [twit.id]


@pytest.mark.parametrize("path", ["/api/users/bob/likes", "/api/tags/tea", "/api/stream"])
def test_a_list_whose_twit_rows_cannot_be_read_answers_503_not_an_empty_page(
    as_bob: Api, alice: User, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """The list's own rows read, then the twits table unreachable (its
    region's server gone): the page fails as a whole, with the 503 every
    outage gets, and does not pass off the failure as a list with nothing in it."""
    as_bob.put("/api/follows/alice")
    twit = services.post_twit("alice", "#tea, liked")
    services.like("bob", twit.id)
    real_row, real_rows = happybase.Table.row, happybase.Table.rows

    def down(table: happybase.Table) -> None:
        if table.name == table_name("twits").encode():
            raise TTransportException(TTransportException.END_OF_FILE, "TSocket read 0 bytes")

    def row(table: happybase.Table, *args: Any, **kwargs: Any) -> Any:
        down(table)
        return real_row(table, *args, **kwargs)

    def rows(table: happybase.Table, *args: Any, **kwargs: Any) -> Any:
        down(table)
        return real_rows(table, *args, **kwargs)

    def pipelined_rows(pipe: ops.Pipeline, table: str, *args: Any, **kwargs: Any) -> Any:
        # A page's lookups are multi-gets in one pipeline (services/hydration.py).
        if table == table_name("twits"):
            raise TTransportException(TTransportException.END_OF_FILE, "TSocket read 0 bytes")
        return real_pipelined_rows(pipe, table, *args, **kwargs)

    real_pipelined_rows = ops.Pipeline.rows
    monkeypatch.setattr(happybase.Table, "row", row)
    monkeypatch.setattr(happybase.Table, "rows", rows)
    monkeypatch.setattr(ops.Pipeline, "rows", pipelined_rows)
    response = as_bob.get(path)
    assert response.status_code == 503, response.content
    assert int(response["Retry-After"]) > 0
