"""The console's read-only panels: tables, the row browser, key design."""

from __future__ import annotations

import dataclasses
import re

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import console, metrics, tablestats
from feeds.types import User
from storage import keys
from storage.connection import connection
from storage.schema import SCHEMA
from tests.helpers import register
from tests.web.helpers import post_in_order

from .helpers import audit_actions, text_of

# -- tables --------------------------------------------------------------------------


def test_tables_lists_every_table_with_families_and_rows(
    staff_client: Client, alice: User, bob: User
) -> None:
    page = text_of(staff_client.get("/console/tables"))
    for name in SCHEMA:
        assert name in page
    assert "md5(author) + rts + suffix" in page
    assert "versions 1" in page
    assert "TTL 30 days" in page  # tokens
    assert "TTL forever" in page
    assert "KeyOnlyFilter() AND FirstKeyOnlyFilter()" in page
    users = next(t for t in console.tables() if t.name == "users")
    # Pre-split on md5 boundaries (storage/admin.py); audit's key is not hashed.
    assert users.regions == 16
    assert next(t for t in console.tables() if t.name == "audit").regions == 1
    assert [f.name for f in users.families] == ["c", "info"]
    assert all(f.as_declared for t in console.tables() for f in t.families)


def _rows_cell(page: str, table: str) -> str:
    """The Rows cell of ``table``'s line on the tables page, as text."""
    found = re.search(
        rf"{table}\s+\S*{table}\s.*?(not counted yet|\S+ counted [^,]+, in [\d,]+ ms)", page
    )
    assert found, f"no row for {table}"
    return found.group(1)


def test_row_counts_come_from_the_background_job_not_the_page_view(
    staff_client: Client, sam: User, alice: User, bob: User
) -> None:
    # Never counted: the page says so, and scans nothing to find out.
    assert next(t for t in console.tables() if t.name == "users").count is None
    assert _rows_cell(text_of(staff_client.get("/console/tables")), "users") == "not counted yet"
    assert console.refresh_stats() == len(SCHEMA)
    users = next(t for t in console.tables() if t.name == "users")
    assert users.count is not None and (users.count.rows, users.count.capped) == (3, False)
    assert _rows_cell(text_of(staff_client.get("/console/tables")), "users").startswith(
        "3 counted just now, in "  # not "0 minutes ago"
    )
    # Rows written since are not seen by the page until the next count.
    register("dave")
    assert _rows_cell(text_of(staff_client.get("/console/tables")), "users").startswith("3 counted")
    # "Count now" queues the job (run here, eagerly, in these tests) and is audited.
    response = staff_client.post("/console/tables/count", {"table": "users"}, follow=True)
    assert "users is being counted" in text_of(response)
    assert _rows_cell(text_of(response), "users").startswith("4 counted")
    assert ("sam", "tables.count", "users") in audit_actions()
    assert staff_client.post("/console/tables/count", {"table": "nope"}).status_code == 404


def test_the_periodic_job_counts_a_table_again_only_when_due(
    sam: User, alice: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert console.refresh_stats(due_only=True) == len(SCHEMA)  # never counted: all due
    assert console.refresh_stats(due_only=True) == 0  # TWITBASE_TABLE_STATS_EVERY_S: 10 min
    assert console.refresh_stats() == len(SCHEMA)  # asked for: counted whatever their age
    settings.TWITBASE_TABLE_STATS_EVERY_S = 0
    # Still not due: a table waits RECOUNT_AFTER_TIMES the time its count took.
    monkeypatch.setattr(console.stats, "RECOUNT_AFTER_TIMES", 1_000_000)
    instant = sum(1 for c in tablestats.counts().values() if c.took_ms == 0)
    assert console.refresh_stats(due_only=True) == instant
    monkeypatch.setattr(console.stats, "RECOUNT_AFTER_TIMES", 0)
    assert console.refresh_stats(due_only=True) == len(SCHEMA)


def test_a_count_over_the_cap_reads_at_least(
    staff_client: Client, alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console.stats, "COUNT_CAP", 2)
    staff_client.post("/console/tables/count", {"table": "users"})
    users = next(t for t in console.tables() if t.name == "users")
    assert users.count is not None and (users.count.rows, users.count.capped) == (2, True)
    assert _rows_cell(text_of(staff_client.get("/console/tables")), "users").startswith(
        "≥2 counted"
    )


# -- the row browser -----------------------------------------------------------------


def rows_page(client: Client, **query: str) -> tuple[int, str]:
    response = client.get("/console/rows", query)
    return response.status_code, text_of(response)


def test_a_userid_prefix_is_hashed_and_the_cells_decoded(staff_client: Client, alice: User) -> None:
    status, page = rows_page(staff_client, table="users", by="userid", prefix="Alice")
    assert status == 200
    md5 = keys.user_hash("alice")
    assert f"with prefix {md5.hex()} = md5('alice')" in page
    assert "1 row of users" in page
    assert "user @alice" in page  # the key part, decoded
    # Raw, as HBase's HFile dump prints a cell; bytes outside ASCII as \xHH.
    shown = console.string_binary(md5)
    assert re.search(rf"K: {re.escape(shown)}/info:account/\d{{13}}/Put/vlen=\d+ V: \{{", page)
    assert "userid alice · name Alice · email alice@example.com" in page


def test_counters_and_durations_show_grouped_by_thousands(
    staff_client: Client, alice: User
) -> None:
    with connection() as conn:
        metrics.record_rows(conn, 1234567)
        metrics.record_fanout_done(conn, 4321)
    status, page = rows_page(staff_client, table="metrics", by="hex", prefix="")
    assert status == 200
    assert "1,234,567" in page
    assert "4,321 ms" in page


def test_password_hashes_are_never_shown(staff_client: Client, alice: User) -> None:
    status, page = rows_page(staff_client, table="users", by="hex", prefix="")
    assert status == 200
    assert '"password":"(hidden)"' in page
    assert "md5$" not in page  # the tests' password hasher


def test_twit_and_stream_keys_decode_to_users_and_times(
    staff_client: Client, alice: User, bob: User
) -> None:
    services.follow("bob", "alice")
    twit = services.post_twit("alice", "hello, rows")
    when = twit.created.strftime("%Y-%m-%d %H:%M:%S.") + f"{twit.created.microsecond // 1000:03d}"

    status, page = rows_page(staff_client, table="twits", by="userid", prefix="alice")
    assert status == 200
    assert "author @alice" in page
    assert f"time {when} UTC" in page
    assert "t:text" in page and "hello, rows" in page

    status, page = rows_page(staff_client, table="streams", by="userid", prefix="bob")
    assert "reader @bob" in page and "author @alice" in page
    assert f"time {when} UTC" in page

    status, page = rows_page(
        staff_client, table="followedBy", by="hex", prefix=keys.user_hash("alice").hex()
    )
    assert "followed @alice" in page and "follower @bob" in page


def test_rows_page_by_row_key(staff_client: Client, alice: User) -> None:
    post_in_order("alice", [f"twit {i}" for i in range(23)])
    response = staff_client.get("/console/rows?table=twits&by=userid&prefix=alice")
    assert text_of(response).count("/t:text/") == 20
    found = re.search(r'rel="next" href="\?([^"]+)"', response.content.decode())
    assert found
    second = staff_client.get("/console/rows?" + found.group(1).replace("&amp;", "&"))
    page = text_of(second)
    assert page.count("/t:text/") == 3
    assert "twit 0" in page and "twit 3" not in page
    assert 'rel="next"' not in second.content.decode()


def test_text_prefix_finds_metrics_rows(staff_client: Client, alice: User) -> None:
    services.post_twit("alice", "counted")
    status, page = rows_page(staff_client, table="metrics", by="text", prefix="totals")
    assert status == 200
    assert "m:fanouts" in page and "m:stream_rows" in page


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ({"table": "twits", "by": "hex", "prefix": "zz"}, 400, "'zz' is not hex"),
        ({"table": "twits", "by": "hex", "prefix": "abc"}, 400, "is not hex"),
        ({"table": "nope", "by": "hex", "prefix": ""}, 404, "No table 'nope'. The tables are"),
        ({"table": "twits", "by": "userid", "prefix": "nobody"}, 404, "No user 'nobody'"),
        ({"table": "twits", "by": "userid", "prefix": "no!"}, 400, "A userid is 3 to 20"),
        ({"table": "metrics", "by": "userid", "prefix": "alice"}, 400, "not keyed by user"),
        ({"table": "twits", "by": "sql", "prefix": ""}, 400, "one of: userid, hex, text"),
        ({"table": "twits", "by": "hex", "prefix": "", "cursor": "!!"}, 400, "invalid cursor"),
    ],
)
def test_bad_row_queries_say_what_is_wrong(
    staff_client: Client, alice: User, query: dict[str, str], status: int, message: str
) -> None:
    got, page = rows_page(staff_client, **query)
    assert got == status
    assert message in page
    assert "Row browser" in page  # the form stays, to correct the query


def test_an_unknown_user_prefix_offers_the_hash(staff_client: Client, alice: User) -> None:
    _, page = rows_page(staff_client, table="twits", by="userid", prefix="nobody")
    assert keys.user_hash("nobody").hex() in page


def test_row_queries_are_audited(staff_client: Client, alice: User) -> None:
    rows_page(staff_client, table="users", by="userid", prefix="alice")
    rows_page(staff_client, table="users", by="hex", prefix="zz")  # refused: not recorded
    assert audit_actions() == [
        ("sam", "rows.browse", f"users md5('alice') {keys.user_hash('alice').hex()}")
    ]


# -- key design ------------------------------------------------------------------------


def test_key_design_draws_each_table_and_its_sequential_alternative(
    staff_client: Client, alice: User, bob: User, charlie: User
) -> None:
    services.post_twit("alice", "spread me")
    response = staff_client.get("/console/keys?table=all")
    assert response.status_code == 200
    body = response.content.decode()
    assert body.count("<svg") == len(SCHEMA) + len(keys.SEQUENTIAL_LAYOUTS)
    assert body.count('class="chart chart-alternative"') == len(keys.SEQUENTIAL_LAYOUTS)
    assert "<script" not in body and "http://" not in body.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )
    page = text_of(response)
    assert "Keyed by time first, every twit falls in bucket 0x00" in page
    # Without a table: users alone.
    users = staff_client.get("/console/keys").content.decode()
    assert users.count("<svg") == 2 and 'id="spread-users"' in users


def test_users_keyed_by_userid_crowd_into_letter_buckets(
    sam: User, alice: User, bob: User, charlie: User
) -> None:
    spread = console.key_spread("users")
    assert spread.keys == 4 and spread.per_bucket is None
    assert spread.actual.counts == tuple(
        sum(1 for u in ("sam", "alice", "bob", "charlie") if keys.user_hash(u)[0] == b)
        for b in range(256)
    )
    assert spread.alternative is not None
    assert {b for b, n in enumerate(spread.alternative.counts) if n} == {
        ord("s"),
        ord("a"),
        ord("b"),
        ord("c"),
    }


def test_twits_keyed_by_time_all_land_in_one_bucket(alice: User, bob: User) -> None:
    for userid in ("alice", "bob"):
        for i in range(3):
            services.post_twit(userid, f"{userid} {i}")
    spread = console.key_spread("twits")
    assert spread.actual.total == 6
    assert spread.alternative is not None
    assert spread.alternative.counts[0] == 6 and spread.alternative.used == 1


def test_a_large_table_is_sampled_under_every_first_byte(
    alice: User, bob: User, charlie: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console.keyspread, "SAMPLE_CAP", 2)
    spread = console.key_spread("users")
    assert spread.per_bucket == 1
    first_bytes = {keys.user_hash(u)[0] for u in ("alice", "bob", "charlie")}
    assert spread.keys == len(first_bytes) == spread.actual.used == spread.full_buckets
    assert spread.alternative is not None and spread.alternative.total == spread.keys


def test_key_design_lists_the_regions_and_marks_their_boundaries(
    staff_client: Client, sam: User, alice: User, bob: User, charlie: User
) -> None:
    spread = console.key_spread("users")
    starts = [r.start for r in spread.regions]
    assert starts == [b""] + [bytes([i * 16]) for i in range(1, 16)]
    assert spread.servers == 1
    # Every key read is in exactly the region its first byte says.
    for region in spread.regions:
        assert region.keys == sum(
            1
            for u in ("sam", "alice", "bob", "charlie")
            if region.start <= keys.user_hash(u)
            and (not region.end or keys.user_hash(u) < region.end)
        )
    assert sum(r.keys for r in spread.regions) == 4
    body = staff_client.get("/console/keys?table=users").content.decode()
    assert body.count('class="chart-region"') == 15  # one line per boundary
    page = text_of(staff_client.get("/console/keys?table=users"))
    assert "16 regions on 1 server" in page
    assert "(start) 10 localhost:16020" in page and "f0 (end) localhost:16020" in page
    # audit is one region: nothing to mark.
    audit = staff_client.get("/console/keys?table=audit").content.decode()
    assert 'class="chart-region"' not in audit


def test_key_design_shows_the_spread_kept_by_the_background_job(
    staff_client: Client, alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Never sampled: the first view samples, and keeps it.
    page = text_of(staff_client.get("/console/keys?table=users"))
    assert "2 keys, every one · sampled now" in page
    kept = console.kept_key_spreads(["users"])[0]
    assert kept.at is not None and kept == dataclasses.replace(
        console.key_spread("users"), at=kept.at, ms=kept.ms
    )
    # Later views read what was kept: a new user is not sampled again...
    register("dave")
    monkeypatch.setattr(
        console.keyspread, "key_spread", lambda table: pytest.fail("sampled on a page view")
    )
    page = text_of(staff_client.get("/console/keys?table=users"))
    assert "2 keys, every one · sampled" in page and "ago" in page
    monkeypatch.undo()
    # ...until the job samples it again, here on request.
    response = staff_client.post(
        "/console/tables/count",
        {"table": "users", "next": "/console/keys?table=users"},
        follow=True,
    )
    assert "3 keys, every one · sampled" in text_of(response)


def test_key_design_for_one_table_and_an_unknown_one(staff_client: Client, alice: User) -> None:
    one = staff_client.get("/console/keys?table=users")
    assert one.content.decode().count("<svg") == 2
    response = staff_client.get("/console/keys?table=nope")
    assert response.status_code == 404
    assert "No table 'nope'" in text_of(response)


def test_reply_keys_decode_to_the_parent_and_the_reply(
    staff_client: Client, alice: User, bob: User
) -> None:
    parent = services.post_twit("alice", "the parent")
    reply = services.post_twit("bob", "the reply", reply_to=parent.id)
    when = reply.created.strftime("%Y-%m-%d %H:%M:%S.") + f"{reply.created.microsecond // 1000:03d}"
    status, page = rows_page(staff_client, table="replies", by="userid", prefix="alice")
    assert status == 200
    assert "parent author @alice" in page and "author @bob" in page
    assert f"time {when} UTC" in page
    assert "r:text" in page and "the reply" in page
    status, page = rows_page(staff_client, table="twits", by="userid", prefix="bob")
    assert "t:reply_to" in page and parent.id in page
    spread = text_of(staff_client.get("/console/keys?table=replies"))
    assert "A reply sits under its parent's key" in spread


@pytest.mark.parametrize("by", ["userid", "hex", "text"])
def test_an_empty_prefix_starts_at_the_beginning_of_the_table(
    staff_client: Client, alice: User, bob: User, by: str
) -> None:
    # The form's default is "userid": an empty prefix must not ask for one.
    status, page = rows_page(staff_client, table="users", by=by, prefix="  ")
    assert status == 200
    # sam (staff), alice and bob: every row, in key order.
    assert "3 rows of users" in page and "from the start of the table" in page
    hexes = sorted(keys.user_key(u).hex() for u in ("sam", "alice", "bob"))
    assert [page.index(h) for h in hexes] == sorted(page.index(h) for h in hexes)
