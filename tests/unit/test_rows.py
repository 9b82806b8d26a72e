"""The cell mapping on its own: every column is in its table's schema, and
every row type reads back what was written."""

from __future__ import annotations

import dataclasses
import json
import re
import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from storage import rows
from storage.schema import SCHEMA

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


def test_every_column_is_in_a_family_of_its_table() -> None:
    assert set(rows.COLUMNS) == set(SCHEMA)
    for table, columns in rows.COLUMNS.items():
        for column in columns:
            family, _, qualifier = column.partition(b":")
            assert family.decode() in SCHEMA[table], (table, column)
            assert qualifier, column


def test_no_two_columns_of_one_table_are_named_alike() -> None:
    for table, columns in rows.COLUMNS.items():
        assert len(set(columns)) == len(columns), table


def test_the_console_cell_kinds_name_only_known_columns() -> None:
    known = {c for columns in rows.COLUMNS.values() for c in columns}
    kinds = (
        rows.USERID_CELLS,
        rows.COUNTED_CELLS,
        rows.COUNTER_CELLS,
        rows.MILLIS_CELLS,
        rows.OP_CELLS,
        rows.FLAG_CELLS,
        rows.DURATION_MS_CELLS,
    )
    for kind in kinds:
        assert kind <= known


@given(st.integers(-(2**63), 2**63 - 1))
def test_a_count_is_an_hbase_counter(n: int) -> None:
    # HBase's counters are 8 bytes, big-endian, signed: what counter_inc reads.
    assert rows.encode_count(n) == struct.pack(">q", n)
    assert rows.decode_count(rows.encode_count(n)) == n


def test_an_absent_or_empty_counter_is_zero() -> None:
    assert rows.decode_count(None) == 0
    assert rows.decode_count(b"") == 0
    assert rows.decode_counted(None) == rows.Counted(0, b"", b"")


def test_an_apply_once_cell_is_a_count_then_operation_ids() -> None:
    ops = b"a" * rows.OP_LEN + b"b" * rows.OP_LEN
    cell = rows.encode_counted(rows.Counted(7, ops))
    # As cells were before pending ids: a cell written then reads the same.
    assert cell == (7).to_bytes(8, "big") + ops
    assert rows.decode_count(cell) == 7
    assert rows.decode_counted(cell) == rows.Counted(7, ops, b"")


@given(
    st.integers(-(2**63), 2**63 - 1),
    st.lists(st.binary(min_size=rows.OP_LEN, max_size=rows.OP_LEN), max_size=5),
    st.lists(st.binary(min_size=rows.OP_LEN, max_size=rows.OP_LEN), max_size=5),
)
def test_an_apply_once_cell_with_pending_ids_reads_back(
    count: int, done: list[bytes], pending: list[bytes]
) -> None:
    counted = rows.Counted(count, b"".join(done), b"".join(pending))
    cell = rows.encode_counted(counted)
    assert rows.decode_counted(cell) == counted
    assert rows.decode_count(cell) == count
    for op in pending:
        assert counted.holds(op)[1]
        settled = rows.Counted(count, counted.done, rows.without(counted.pending, op))
        assert not rows.decode_counted(rows.encode_counted(settled)).holds(op)[1]


def test_a_damaged_apply_once_cell_is_refused() -> None:
    cell = rows.encode_counted(rows.Counted(1, b"d" * rows.OP_LEN, b"p" * rows.OP_LEN))
    for damaged in (cell[:-1], cell[:-4] + b"\0\0\0\x09", cell[:-8] + b"x" * 8):
        with pytest.raises(ValueError, match="apply-once"):
            rows.decode_counted(damaged)


@given(text, text, text, st.integers(0, 2**53))
def test_a_twit_reads_back_from_its_row_and_its_stream_rows(
    userid: str, name: str, body: str, created: int
) -> None:
    twit = rows.TwitRow(userid, name, body, created)
    assert rows.decode_twit(rows.encode_twit(twit)) == twit
    assert rows.decode_stream(rows.encode_stream(twit)) == twit


@given(text, text, text, st.integers(0, 2**53), text, text, text)
def test_a_stream_row_is_one_cell_and_a_repost_row_reads_back_as_one(
    userid: str, name: str, body: str, created: int, twit_id: str, by: str, by_name: str
) -> None:
    twit = rows.TwitRow(userid, name, body, created, reply_to=twit_id, reply_userid=by)
    own = rows.encode_stream(twit)
    assert list(own) == [rows.STREAM_TWIT]
    assert not rows.is_repost_row(own) and rows.decode_repost(own) is None
    repost = rows.encode_repost_stream(twit, twit_id, by, by_name)
    assert list(repost) == [rows.STREAM_REPOST]
    assert rows.is_repost_row(repost) and rows.is_repost_row({rows.STREAM_REPOST: b""})
    assert rows.decode_stream(repost) == twit
    assert rows.decode_repost(repost) == (twit_id, by, by_name)
    # What a page decodes each row with: both from one parse.
    assert rows.decode_stream_item(own) == (twit, None)
    assert rows.decode_stream_item(repost) == (twit, (twit_id, by, by_name))
    # The page's fast path: the same fields, no TwitRow (but "edited": a
    # stream row keeps the twit as posted, the hydrate step reads the edit).
    # (A stream row carries the first six: what a twit quotes and its images
    # are read from its twits row by the hydrate step.)
    fields = dataclasses.astuple(twit)[:6]
    assert rows.packed_stream_item(own) == (*fields, None, None, "")
    assert rows.packed_stream_item(repost) == (*fields, twit_id, by, by_name)
    # A row with both cells, which nothing writes, is left to the general path.
    assert rows.packed_stream_item({**own, **repost}) is None


def test_stream_rows_written_before_the_packing_still_read() -> None:
    """A cell per field, as stream and reposts rows were written until the
    twit was packed into one cell: stored rows of older deployments."""
    old = {
        rows.STREAM_USERID: b"alice",
        rows.STREAM_NAME: b"Alice",
        rows.STREAM_TEXT: "h\u00e9llo".encode(),
        rows.STREAM_CREATED: b"1764000000000",
        rows.STREAM_REPLY_TO: b"ab" * 28,
        rows.STREAM_REPLY_USERID: b"bob",
    }
    assert rows.decode_stream(old) == rows.TwitRow(
        "alice", "Alice", "h\u00e9llo", 1764000000000, "ab" * 28, "bob"
    )
    assert rows.decode_repost(old) is None and not rows.is_repost_row(old)
    reposted = {
        **old,
        rows.STREAM_REPOST_OF: b"cd" * 28,
        rows.STREAM_REPOSTED_BY: b"carol",
        rows.STREAM_REPOSTED_BY_NAME: b"Carol",
    }
    assert rows.decode_repost(reposted) == ("cd" * 28, "carol", "Carol")
    assert rows.decode_stream_item(reposted) == (
        rows.decode_stream(old),
        ("cd" * 28, "carol", "Carol"),
    )
    assert rows.is_repost_row({rows.STREAM_REPOST_OF: b""})
    assert rows.packed_stream_item(old) is None
    assert rows.packed_stream_item(reposted) is None


def test_a_row_without_text_is_no_twit() -> None:
    assert rows.decode_twit({rows.progress_column(3): b" "}) is None
    assert rows.decode_stream({}) is None
    assert rows.decode_stream_item({}) is None
    assert rows.packed_stream_item({}) is None


def test_progress_cells_read_back_by_chunk() -> None:
    row = {
        rows.TEXT: b"hi",
        rows.FANOUT: b"x",
        rows.progress_column(0): rows.encode_progress("", "ab"),
        rows.progress_column(12): rows.encode_progress("ab", ""),
    }
    assert rows.decode_progress(row) == {0: ("", "ab"), 12: ("ab", "")}
    assert rows.progress_columns(row) == [rows.progress_column(0), rows.progress_column(12)]


def test_a_lease_reads_back_and_an_old_mark_is_nobodys() -> None:
    assert rows.decode_lease(rows.encode_lease("ab12", 1700, 2, 5)) == ("ab12", 1700, 2, 5)
    assert rows.decode_lease(b"pending") == ("", 0, 0, 0)
    assert rows.decode_lease(b"\xff:1:2:3") == ("", 0, 0, 0)


def test_an_edge_names_its_other_end() -> None:
    op = bytes(range(16))
    cells = rows.encode_edge("bob", "Bob B", 1234, op=op, counted=op)
    assert cells[rows.EDGE_CREATED] == b"1234"
    assert cells[rows.EDGE_OP] == op and cells[rows.EDGE_COUNTED] == op
    assert rows.decode_edge(cells) == ("bob", "Bob B")
    assert rows.EDGE_OP not in rows.encode_edge("bob", "Bob", 1)
    # Edges from before names were kept show the userid.
    assert rows.decode_edge({rows.EDGE_USERID: b"bob"}) == ("bob", "bob")
    assert rows.decode_edge({}) is None


def test_a_user_reads_back_with_flags_and_counts() -> None:
    account = rows.encode_account("alice", "Alice", "a@example.com", "hash", 1700)
    row = {
        **rows.encode_user(account, twits=3, followers=2),
        rows.STAFF: rows.encode_flag(True),
        rows.DISABLED: rows.encode_flag(False),
        rows.AUTHGEN: rows.encode_count(4),
    }
    user = rows.decode_user(row)
    assert user is not None
    assert (user.userid, user.name, user.email, user.password, user.created) == (
        "alice",
        "Alice",
        "a@example.com",
        "hash",
        1700,
    )
    assert (user.staff, user.disabled, user.auth_generation) == (True, False, 4)
    assert (user.twits, user.followers, user.following) == (3, 2, 0)
    assert user.account == account
    assert rows.decode_user({rows.STAFF: b"1"}) is None


def test_a_new_password_keeps_the_rest_of_the_account() -> None:
    account = json.dumps({"userid": "alice", "password": "old", "extra": 1}).encode()
    changed = json.loads(rows.with_password(account, "new"))
    assert changed == {"userid": "alice", "password": "new", "extra": 1}


def test_the_console_reads_any_cell_as_an_account_or_nothing() -> None:
    assert rows.account_userid(rows.encode_account("bob", "B", "b@x.org", "h", 1)) == "bob"
    assert rows.account_userid(b"not json") is None
    assert rows.account_userid(b"[1, 2]") is None
    assert rows.account_userid(b"{}") is None


def test_a_token_keeps_its_generation_as_written() -> None:
    cells = rows.encode_token("alice", 1700, 3, rows.KIND_WEB)
    token = rows.decode_token(cells)
    assert token == rows.TokenRow("alice", rows.encode_generation(3), rows.KIND_WEB, 1700)
    assert rows.decode_token({rows.TOKEN_USERID: b"alice"}) is None


def test_metrics_rows_read_back() -> None:
    assert rows.decode_lag(rows.encode_lag(250)) == 250
    assert rows.decode_worker({**rows.encode_seen(99), rows.TASKS: rows.encode_count(7)}) == (
        99,
        7,
    )
    assert rows.decode_worker({}) == (0, 0)
    long = "x" * (rows.LAST_FAILURE_MAX + 10)
    totals = rows.decode_totals({**rows.encode_failure(long), rows.FANOUTS: rows.encode_count(2)})
    assert totals == rows.Totals(2, 0, 0, "x" * rows.LAST_FAILURE_MAX)


def test_an_audit_entry_reads_back_and_undecodable_bytes_are_replaced() -> None:
    entry = rows.AuditRow("alice", "user.disable", "bob", "d" * (rows.DETAIL_MAX + 1))
    stored = rows.decode_audit(rows.encode_audit(entry))
    assert stored == rows.AuditRow("alice", "user.disable", "bob", "d" * rows.DETAIL_MAX)
    assert rows.decode_audit({rows.AUDIT_ACTION: b"\xff"}) == rows.AuditRow("", "\ufffd", "", "")
    assert rows.decode_audit({rows.AUDIT_ACTOR: b"alice"}) is None


@pytest.mark.parametrize("author", ["alice", ""])
def test_a_pending_entry_and_a_celebrity_name_their_user(author: str) -> None:
    assert rows.encode_pending(author) == {rows.PENDING_AUTHOR: author.encode()}
    assert rows.decode_celebrity(rows.encode_celebrity(author)) == author


_COLUMN_LITERAL = re.compile(rb'b"([a-z]+):[A-Za-z_<>0-9]*"')
_ROOT = Path(__file__).resolve().parents[2]


def _column_literals(folder: str) -> list[tuple[str, bytes]]:
    found = []
    for path in sorted((_ROOT / folder).rglob("*.py")):
        for m in _COLUMN_LITERAL.finditer(path.read_bytes()):
            found.append((str(path.relative_to(_ROOT)), m.group(0)))
    return found


@pytest.mark.parametrize("folder", ["feeds", "worker", "twitbase"])
def test_the_app_names_no_column_but_through_storage_rows(folder: str) -> None:
    assert _column_literals(folder) == []


@pytest.mark.parametrize("folder", ["bench", "devtools"])
def test_tools_name_no_twitbase_column_but_through_storage_rows(folder: str) -> None:
    # A benchmark's own table (bench/storage.py's "cf") may name its cells.
    families = {f.encode() for table in SCHEMA.values() for f in table}
    ours = [
        (path, literal)
        for path, literal in _column_literals(folder)
        if literal[2:].partition(b":")[0] in families
    ]
    assert ours == []


def test_a_follower_list_is_read_only_under_the_version_it_was_made_under() -> None:
    fans = b"".join(bytes([i]) * 16 for i in range(3))
    row = {
        rows.ACCOUNT: (b"{}", 100),
        rows.COUNT_FOLLOWERS: (rows.encode_counted(rows.Counted(3)), 200),
        rows.FOLLOWERS_CHANGED: ((7).to_bytes(8, "big"), 200),
    }
    version = rows.follower_list_version(row)
    packed = rows.encode_follower_list(version, fans)
    assert rows.decode_follower_list(packed, version) == fans
    assert rows.decode_follower_list(rows.encode_follower_list(version, b""), version) == b""
    # A follow or unfollow since, a count rewritten by a bulk load, a new
    # account of the same userid: each is another version.
    for column, cell in [
        (rows.FOLLOWERS_CHANGED, ((8).to_bytes(8, "big"), 200)),
        (rows.COUNT_FOLLOWERS, (rows.encode_counted(rows.Counted(3)), 300)),
        (rows.ACCOUNT, (b"{}", 300)),
    ]:
        assert (
            rows.decode_follower_list(packed, rows.follower_list_version({**row, column: cell}))
            is None
        )
    assert rows.decode_follower_list(None, version) is None
    assert rows.decode_follower_list(packed[:-1], version) is None  # not whole md5s


@given(text, st.lists(st.tuples(text, st.integers(1, 1600), st.integers(1, 1600)), max_size=4))
def test_a_twit_row_keeps_its_images_in_order_and_a_stream_row_none(
    alt: str, sizes: list[tuple[str, int, int]]
) -> None:
    images = tuple(rows.ImageRef(f"{n:056x}", a + alt, w, h) for n, (a, w, h) in enumerate(sizes))
    twit = rows.TwitRow("ana", "Ana", "look", 5, images=images)
    assert rows.decode_twit(rows.encode_twit(twit)) == twit
    assert (rows.TWIT_IMAGES in rows.encode_twit(twit)) == bool(images)
    stream = rows.decode_stream(rows.encode_stream(twit))
    assert stream is not None and stream.images == ()


def test_a_media_row_reads_back_unattached_until_a_twit_claims_it() -> None:
    cells = rows.encode_media("ana", "a cat", 640, 480, b"RIFF....WEBP")
    assert rows.decode_media(cells) == rows.MediaRow("ana", "a cat", 640, 480, None)
    claimed = {**cells, rows.MEDIA_TWIT: b"ab" * 28}
    assert rows.decode_media(claimed) == rows.MediaRow("ana", "a cat", 640, 480, "ab" * 28)
    # Let go by a post that lost a race: unattached again.
    assert rows.decode_media({**cells, rows.MEDIA_TWIT: b""}).twit is None  # type: ignore[union-attr]
    assert rows.decode_media({}) is None
