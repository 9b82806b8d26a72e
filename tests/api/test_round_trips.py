"""How many Thrift calls a request costs: the hot paths must not re-read rows.

Each call to the HBase Thrift server is counted where it is sent, with the
table it names: thriftpy2's ``TClient._send`` for those happybase makes,
and ``storage.ops._write`` for the requests compiled code writes whole (a
page's fetch, a batch of puts). Before issue 10,
``POST /api/twits`` read the user row twice after the token's own read, and
``GET /api/stream`` read the user row twice and scanned the celebrities table
on every request. The figures here are today's; a change that adds a read
shows up as a failing count.
"""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Iterator
from typing import Any

import happybase
import pytest
from thriftpy2.thrift import TClient

from feeds import services
from feeds.services import blocking, posting, streams
from feeds.types import User
from storage import ops

from .helpers import Api

# The token, the user (once), the rate limit, the pending index, the twit, the
# author's stream row, the twit counter (read, then a checkAndPut), and the
# twit's t:counted mark (so a post cut off before its count is counted later,
# by its fan-out or its delete: issue 9). Before this redesign: 9, without
# the mark. 10 since issue 12: the twit row is read before it is counted, so a
# delete that raced the post and counted it already is not counted again.
# 11 since the counts became exact however late a twin (storage.ops.MarkedChange):
# that read comes after the counter's, and the count's id is settled after
# the mark (one more checkAndPut). 12 with the twit's words (twitWords,
# the search of twits), written with it.
POST_TWIT_CALLS = 12
# The token, the user (once), and the stream's scan (open, rows, close); the
# first request of a TTL also scans the celebrities table. Before: 9 and 9.
STREAM_CALLS = (8, 5)
# The follower (by the bearer auth), the followee, and the two counters' own
# reads before their checkAndPuts. Before: 5 (the follower read again).
# Notifications: + the followee's unread count's read before its checkAndPut.
FOLLOW_USER_READS = 5


class Calls:
    def __init__(self) -> None:
        self.made: list[tuple[str, str]] = []

    def by_table(self) -> Counter[str]:
        """Calls per table (its name without the test's prefix); scanner steps count."""
        return Counter(table.rsplit("_", 1)[-1] for _, table in self.made)

    def reads_of(self, table: str) -> int:
        reads = {
            "getRowWithColumns",
            "getRowsWithColumns",
            "getRow",
            "getRows",
            "scannerOpenWithScan",
        }
        return sum(1 for api, t in self.made if api in reads and t.endswith(table))


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    counted = Calls()
    send = TClient._send
    write = ops._write

    def sending(self: TClient, api: str, **kwargs: Any) -> None:
        name = kwargs.get("tableName") or b""
        counted.made.append((api, name.decode("ascii", "replace")))
        send(self, api, **kwargs)

    def writing(conn: happybase.Connection, request: bytes) -> None:
        if not pipelined:
            counted.made.append(_call_of(request))
        write(conn, request)

    # A pipeline's calls go in one request: each is counted by its name and
    # table, as the pipeline made it, and the request it sends is not.
    pipelined: list[bool] = []
    pipeline_send = ops.Pipeline.send

    def sending_pipeline(self: ops.Pipeline) -> list[Any]:
        counted.made.extend(
            (api, table) for (api, _), table in zip(self._calls, self.tables, strict=True)
        )
        pipelined.append(True)
        try:
            return pipeline_send(self)
        finally:
            pipelined.pop()

    monkeypatch.setattr(TClient, "_send", sending)
    monkeypatch.setattr(ops, "_write", writing)
    monkeypatch.setattr(ops.Pipeline, "send", sending_pipeline)
    # The test settings run jobs in-process; in production a worker runs them,
    # so the request's own calls are those made before the job is handed off.
    monkeypatch.setattr(posting, "dispatch", lambda job: None)
    yield counted


def _call_of(request: bytes) -> tuple[str, str]:
    """The call a request written whole makes (strict binary protocol), and
    the table it names when its first field is one (a string)."""
    (size,) = struct.unpack_from(">i", request, 4)
    api = request[8 : 8 + size].decode()
    at = 8 + size + 4  # past the name and the seqid
    if request[at] != 11 or struct.unpack_from(">h", request, at + 1) != (1,):
        return api, ""
    (size,) = struct.unpack_from(">i", request, at + 3)
    return api, request[at + 7 : at + 7 + size].decode("ascii", "replace")


def _fresh_cache() -> None:
    streams.CELEBRITIES.clear()


def test_post_twit_reads_the_token_and_the_user_once(as_alice: Api, calls: Calls) -> None:
    response = as_alice.post("/api/twits", {"text": "counted"})
    assert response.status_code == 201
    assert calls.reads_of("tokens") == 1
    # The profile once (by the bearer auth); then the twit counter's own read
    # before its checkAndPut (storage.ops.apply_once).
    assert calls.reads_of("users") == 2
    assert len(calls.made) == POST_TWIT_CALLS


def test_stream_reads_the_user_once_and_celebrities_once_per_ttl(
    as_alice: Api, bob: User, calls: Calls
) -> None:
    assert as_alice.put("/api/follows/bob").status_code == 200
    _fresh_cache()
    calls.made.clear()
    assert as_alice.get("/api/stream").status_code == 200
    assert calls.reads_of("users") == 1
    assert calls.reads_of("celebrities") == 1
    first = len(calls.made)
    calls.made.clear()
    assert as_alice.get("/api/stream").status_code == 200
    assert calls.reads_of("celebrities") == 0
    assert (first, len(calls.made)) == STREAM_CALLS


def test_follow_reads_the_follower_once(as_alice: Api, bob: User, calls: Calls) -> None:
    assert as_alice.put("/api/follows/bob").status_code == 200
    assert calls.reads_of("users") == FOLLOW_USER_READS


# A list of twits that shows bob's, as (its URL, bob's twit's id: what it
# shows of it), each read through the hydrate step.
LISTS_WITH_BOBS_TWIT = {
    "tag": lambda bobs, charlies: "/api/tags/tea",
    "search": lambda bobs, charlies: "/api/search/twits?q=hello",
    "replies": lambda bobs, charlies: f"/api/twits/{charlies}/replies",
    "likes": lambda bobs, charlies: "/api/users/charlie/likes",
    "timeline": lambda bobs, charlies: "/api/users/bob/twits",
    "twit": lambda bobs, charlies: f"/api/twits/{bobs}",
}


@pytest.mark.parametrize("listing", LISTS_WITH_BOBS_TWIT)
def test_a_list_looks_up_blocks_only_for_a_reader_who_has_some(
    listing: str, as_alice: Api, bob: User, charlie: User, calls: Calls
) -> None:
    """The reader's profile, marks and all (User.shields), reaches the
    hydrate step and the block check of every list, as the home stream's
    does: a reader who never blocked, was blocked or muted costs a page no
    lookup of blocks (two rows for each author, and one for the owner)."""
    charlies = services.post_twit("charlie", "charlie asks")
    bobs = services.post_twit("bob", "hello #tea", reply_to=charlies.id)
    services.like("charlie", bobs.id)
    url = LISTS_WITH_BOBS_TWIT[listing](bobs.id, charlies.id)
    calls.made.clear()
    shown = as_alice.get(url)
    assert shown.status_code == 200, shown.json()
    assert bobs.id in shown.text
    assert calls.reads_of("blocks") == 0
    # Blocked by bob: both are marked, the page looks, and hides his twit
    # (a list of bob's own, or his twit itself, is refused whole).
    blocking.block("bob", "alice")
    calls.made.clear()
    hidden = as_alice.get(url)
    assert hidden.status_code in (200, 403) and bobs.id not in hidden.text
    assert calls.reads_of("blocks") >= 1
