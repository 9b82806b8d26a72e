"""Key design on its own: widths, order, round trips and prefix ranges."""

from __future__ import annotations

import hashlib

import pytest
from happybase.util import bytes_increment
from hypothesis import given
from hypothesis import strategies as st

from storage import keys

millis = st.integers(0, 2**53)
suffix = st.binary(min_size=4, max_size=4)


def test_user_keys_are_md5_of_the_case_folded_userid() -> None:
    assert keys.user_key("Alice") == hashlib.md5(b"alice").digest()
    assert keys.user_key("ALICE") == keys.user_key("alice")
    assert len(keys.user_key("bob")) == 16


def test_relation_keys_put_the_owner_first() -> None:
    a, b = keys.user_hash("alice"), keys.user_hash("bob")
    assert keys.follows_key("alice", "bob") == a + b
    assert keys.followed_by_key("bob", "alice") == b + a


@given(millis, millis, suffix, suffix)
def test_twits_of_a_user_sort_newest_first(t1: int, t2: int, s1: bytes, s2: bytes) -> None:
    k1 = keys.twit_key("alice", t1, s1)
    k2 = keys.twit_key("alice", t2, s2)
    assert len(k1) == len(k2) == keys.TWIT_KEY_LEN
    if t1 > t2:
        assert k1 < k2


@given(millis, suffix)
def test_twit_key_round_trip(t: int, s: bytes) -> None:
    key = keys.twit_key("alice", t, s)
    parts = keys.split_twit_key(key)
    assert (parts.author_hash, parts.millis, parts.suffix) == (keys.user_hash("alice"), t, s)
    assert keys.twit_key_from_id(keys.twit_id(key)) == key


@given(millis, suffix)
def test_stream_key_round_trip_and_order(t: int, s: bytes) -> None:
    twit = keys.twit_key("bob", t, s)
    row = keys.stream_key("alice", twit)
    assert len(row) == keys.STREAM_KEY_LEN
    assert row.startswith(keys.user_hash("alice"))
    assert keys.twit_key_from_stream_key(row) == twit
    assert keys.stream_twit_id(row) == keys.twit_id(twit)
    older = keys.stream_key("alice", keys.twit_key("carol", max(t - 1, 0), s))
    if t > 0:
        assert row < older


@pytest.mark.parametrize("length", [0, keys.STREAM_KEY_LEN - 1, keys.STREAM_KEY_LEN + 1])
def test_a_stream_key_of_another_length_has_no_twit(length: int) -> None:
    with pytest.raises(keys.BadKey):
        keys.twit_key_from_stream_key(b"k" * length)
    with pytest.raises(keys.BadKey):
        keys.stream_twit_id(b"k" * length)


def test_same_millisecond_twits_stay_distinct() -> None:
    a = keys.twit_key("alice", 1000, keys.new_suffix())
    b = keys.twit_key("alice", 1000, keys.new_suffix())
    assert a != b


@given(st.binary(max_size=6), st.binary(max_size=8))
def test_prefix_stop_bounds_exactly_the_prefixed_keys(prefix: bytes, key: bytes) -> None:
    stop = keys.prefix_stop(prefix)
    in_range = key >= prefix and (stop is None or key < stop)
    assert in_range == key.startswith(prefix)


def test_prefix_stop_with_0xff_last_bytes() -> None:
    assert keys.prefix_stop(b"\x01\xff") == b"\x02"
    assert keys.prefix_stop(b"\x01\xfe\xff\xff") == b"\x01\xff"
    assert keys.prefix_stop(b"\xff\xff") is None
    # The original TwitBase's "last byte + 1" would give b"\x01\x00" here,
    # which sorts *below* b"\x01\xff\x05" and so loses it.
    assert keys.prefix_stop(b"\x01\xff") > b"\x01\xff\x05"  # type: ignore[operator]


def test_reversed_timestamp_bounds() -> None:
    assert keys.millis_from_rts(keys.reverse_ts(0)) == 0
    with pytest.raises(keys.BadKey):
        keys.reverse_ts(-1)


def test_cursor_round_trip_and_rejection() -> None:
    key = keys.twit_key("alice", 5, b"abcd")
    prefix = keys.user_hash("alice")
    cursor = keys.encode_cursor(key)
    assert keys.decode_cursor(cursor, prefix, keys.TWIT_KEY_LEN) == key
    for bad in ("!!!", "", keys.encode_cursor(b"short"), keys.encode_cursor(b"x" * 28)):
        with pytest.raises(keys.BadKey):
            keys.decode_cursor(bad, prefix, keys.TWIT_KEY_LEN)


def test_bad_ids_are_rejected() -> None:
    good = keys.twit_id(keys.twit_key("alice", 5, b"abcd"))
    for bad in ("zz", "ab" * 27, "ab" * 29, "é", good.upper(), good[:10] + " " + good[11:]):
        with pytest.raises(keys.BadKey):
            keys.twit_key_from_id(bad)


def test_a_cursor_without_a_length_checks_only_the_prefix() -> None:
    prefix = b"lag:"
    assert keys.decode_cursor(keys.encode_cursor(b"lag:xyz"), prefix, None) == b"lag:xyz"
    with pytest.raises(keys.BadKey):
        keys.decode_cursor(keys.encode_cursor(b"worker:1"), prefix, None)


@given(millis, millis, suffix, suffix)
def test_audit_entries_sort_newest_first(t1: int, t2: int, s1: bytes, s2: bytes) -> None:
    k1, k2 = keys.audit_key(t1, s1), keys.audit_key(t2, s2)
    assert len(k1) == keys.AUDIT_KEY_LEN
    assert keys.millis_from_rts(k1[: keys.RTS_LEN]) == t1
    if t1 > t2:
        assert k1 < k2


def test_layouts_match_the_key_builders() -> None:
    twit = keys.twit_key("alice", 5, b"abcd")
    builders = {
        "users": keys.user_key("alice"),
        "twits": twit,
        "follows": keys.follows_key("alice", "bob"),
        "followedBy": keys.followed_by_key("bob", "alice"),
        "streams": keys.stream_key("bob", twit),
        "audit": keys.audit_key(5, b"abcd"),
    }
    for table, key in builders.items():
        parts = keys.split_key(table, key)
        assert b"".join(p.raw for p in parts) == key, table
        assert parts[0].kind != "text", table
    names = [(p.name, p.raw) for p in keys.split_key("streams", keys.stream_key("bob", twit))]
    assert names == [
        ("reader", keys.user_hash("bob")),
        ("time", keys.reverse_ts(5)),
        ("author", keys.user_hash("alice")),
        ("suffix", b"abcd"),
    ]
    assert keys.split_key("twits", b"short") == (keys.KeyPart("key", "text", b"short"),)
    assert keys.split_key("metrics", b"totals") == (keys.KeyPart("key", "text", b"totals"),)
    lag = keys.metrics_lag_key(5, b"abcd")
    assert [(p.kind, p.raw) for p in keys.split_key("metrics", lag)] == [
        ("text", b"lag:"),
        ("rts", keys.reverse_ts(5)),
        ("suffix", b"abcd"),
    ]
    assert keys.layout_text("streams") == "md5(reader) + rts + md5(author) + suffix"


def test_sequential_alternatives() -> None:
    twit = keys.twit_key("alice", 1_700_000_000_000, b"abcd")
    assert keys.sequential_head("users", keys.user_key("Alice"), "Alice") == b"alice"
    assert keys.sequential_head("users", keys.user_key("alice"), None) is None
    assert keys.sequential_head("twits", twit, None) == (1_700_000_000_000).to_bytes(8, "big")
    assert keys.sequential_head("streams", keys.stream_key("bob", twit), None)[0] == 0  # type: ignore[index]
    assert keys.sequential_head("tokens", bytes(32), None) is None
    assert keys.keyed_by_user("followedBy") and not keys.keyed_by_user("audit")


def test_a_pending_fan_out_is_keyed_by_its_twit() -> None:
    twit = keys.twit_key("alice", 5, b"abcd")
    assert keys.pending_fanout_key(twit) == twit
    assert keys.twit_key_from_pending_key(keys.pending_fanout_key(twit)) == twit
    assert [p.name for p in keys.split_key("pendingFanouts", twit)] == ["author", "time", "suffix"]
    with pytest.raises(keys.BadKey):
        keys.pending_fanout_key(b"short")


@given(st.binary(max_size=8))
def test_happybase_row_prefix_stops_where_prefix_stop_does(prefix: bytes) -> None:
    # Services scan a whole prefix with happybase's row_prefix=, which ends the
    # scan at bytes_increment(prefix); a cursor page ends at prefix_stop. The
    # two must agree, 0xFF edge included, or a page would see other rows.
    assert bytes_increment(prefix) == keys.prefix_stop(prefix)


def test_reply_keys_sort_oldest_first_under_their_parent_and_give_back_the_reply() -> None:
    # A parent whose key ends in 0xFF bytes: its replies must still fall inside
    # the prefix range the permalink scans.
    parent = keys.user_hash("alice") + keys.reverse_ts(1000) + b"\xff" * keys.SUFFIX_LEN
    replies = [
        keys.twit_key(who, ms, b"\x00\x00\x00\x01")
        for who, ms in [("bob", 2000), ("carol", 1500), ("bob", 1700), ("dan", 10**12)]
    ]
    rows = [keys.reply_key(parent, r) for r in replies]
    assert all(len(k) == keys.REPLY_KEY_LEN and k.startswith(parent) for k in rows)
    by_time = sorted(range(len(replies)), key=lambda i: keys.split_twit_key(replies[i]).millis)
    assert sorted(rows) == [rows[i] for i in by_time]
    stop = keys.prefix_stop(parent)
    assert stop is not None and all(k < stop for k in rows)
    assert [keys.twit_key_from_reply_key(k) for k in rows] == replies
    assert keys.layout_text("replies").startswith("md5(parent author) + rts")


def test_repost_keys_fit_their_layouts_and_a_repost_sorts_by_its_own_time() -> None:
    twit = keys.twit_key("alice", 5, b"abcd")
    for table, key in {
        "reposters": keys.reposter_key(twit, "bob"),
        "reposts": keys.repost_key("bob", 9, twit),
    }.items():
        parts = keys.split_key(table, key)
        assert b"".join(p.raw for p in parts) == key and parts[0].kind != "text", table
    assert keys.twit_key_from_repost_key(keys.repost_key("bob", 9, twit)) == twit
    # A repost's stream row is as wide as a twit's, so one cursor pages both,
    # and sorts at the repost's time (9), before the twit's own row (5).
    repost_row = keys.repost_stream_key("carol", 9, "bob", twit)
    assert len(repost_row) == keys.STREAM_KEY_LEN
    assert repost_row < keys.stream_key("carol", twit)
    assert repost_row[: keys.MD5_LEN] == keys.user_hash("carol")
    # The reposter where a twit's author sits: an unfollow of bob finds it.
    assert keys.twit_key_from_stream_key(repost_row)[: keys.MD5_LEN] == keys.user_hash("bob")
    other = keys.twit_key("alice", 5, b"abce")
    assert keys.repost_stream_key("carol", 9, "bob", other) != repost_row
    assert keys.repost_stream_key("CAROL", 9, "Bob", twit) == repost_row


# -- hashtags, trending and search ------------------------------------------------------

tag_text = st.from_regex(r"\w{1,40}", fullmatch=True)


@given(tag_text, millis, millis, suffix, suffix)
def test_a_tags_rows_sort_newest_first_and_give_the_twit_back(
    tag: str, t1: int, t2: int, s1: bytes, s2: bytes
) -> None:
    k1 = keys.tag_key(tag, keys.twit_key("alice", t1, s1))
    k2 = keys.tag_key(tag, keys.twit_key("bob", t2, s2))
    assert len(k1) == len(k2) == keys.TAG_KEY_LEN
    assert k1.startswith(keys.tag_hash(tag)) and k2.startswith(keys.tag_hash(tag))
    assert keys.twit_key_from_tag_key(k1) == keys.twit_key("alice", t1, s1)
    if t1 > t2:
        assert k1 < k2


@given(tag_text, st.integers(0, 2**40))
def test_a_trend_key_names_its_bucket_and_tag_within_its_salt_range(tag: str, bucket: int) -> None:
    key = keys.trend_key(tag, bucket)
    assert keys.split_trend_key(key) == (bucket, tag)
    salt = keys.trend_salt(tag)
    assert 0 <= salt < keys.TREND_SALTS
    assert (
        keys.trend_bucket_prefix(salt, bucket) <= key < keys.trend_bucket_prefix(salt, bucket + 1)
    )


@given(st.text(min_size=1, max_size=80), st.text(min_size=1, max_size=20))
def test_a_search_key_starts_with_every_prefix_of_its_value(value: str, more: str) -> None:
    """A query that is a prefix of a value (within the index's 120 bytes) finds it."""
    key = keys.search_key(value + more, "alice", keys.SEARCH_NAME)
    if len(value.encode()) <= keys.SEARCH_VALUE_MAX:
        assert key.startswith(keys.search_value(value))
    stored, user, kind = keys.split_search_key(key)
    assert (user, kind) == (keys.user_hash("alice"), keys.SEARCH_NAME)
    assert len(stored) <= keys.SEARCH_VALUE_MAX
    stored.decode("utf-8")  # cut on a character boundary


def test_a_shorter_value_sorts_before_its_extensions_and_kinds_stay_apart() -> None:
    short = keys.search_key("al", "zed", keys.SEARCH_NAME)
    longer = keys.search_key("ala", "aaa", keys.SEARCH_NAME)
    assert short < longer
    assert keys.search_key("bob", "bob", keys.SEARCH_USERID) != keys.search_key(
        "bob", "bob", keys.SEARCH_NAME
    )
    with pytest.raises(keys.BadKey):
        keys.search_key("bob", "bob", b"x")


# -- notifications ----------------------------------------------------------------------


def test_notification_keys_sort_newest_first_under_the_recipient_and_split_back() -> None:
    twit = keys.twit_key("bob", 1_000, b"\x00\x00\x00\x01")
    me = keys.user_hash("alice")
    older = keys.notification_key(me, 1_000, keys.NOTIFY_MENTION, twit)
    newer = keys.notification_key(me, 2_000, keys.NOTIFY_LIKE, twit)
    assert len(older) == len(newer) == keys.NOTIFY_KEY_LEN
    assert newer < older and older.startswith(me) and newer.startswith(me)
    assert keys.split_notification_key(older) == (1_000, keys.NOTIFY_MENTION, twit)
    # The same cause gives the same key: a retried write is the same row.
    assert keys.notification_key(me, 1_000, keys.NOTIFY_MENTION, twit) == older
    follow = keys.follow_subject("Bob", 5)
    assert follow == keys.follow_subject("bob", 5) and len(follow) == keys.TWIT_KEY_LEN
    assert keys.notify_group_key(twit, keys.NOTIFY_LIKE) == twit + b"l"


def test_notification_keys_refuse_bad_parts() -> None:
    twit = keys.twit_key("bob", 1_000, b"\x00\x00\x00\x01")
    me = keys.user_hash("alice")
    with pytest.raises(keys.BadKey):
        keys.notification_key(me, 1, b"x", twit)
    with pytest.raises(keys.BadKey):
        keys.notification_key(me[:5], 1, keys.NOTIFY_LIKE, twit)
    with pytest.raises(keys.BadKey):
        keys.notification_key(me, 1, keys.NOTIFY_LIKE, twit[:5])
    with pytest.raises(keys.BadKey):
        keys.notify_group_key(twit, keys.NOTIFY_MENTION)
    with pytest.raises(keys.BadKey):
        keys.split_notification_key(b"short")


@given(st.text(min_size=1, max_size=30), st.integers(0, 2**50), st.binary(min_size=4, max_size=4))
def test_a_media_key_gives_back_its_uploader_prefix_and_time_through_its_id(
    userid: str, millis: int, suffix: bytes
) -> None:
    key = keys.media_key(userid, millis, suffix)
    assert key.startswith(keys.user_hash(userid))
    assert keys.media_millis(key) == millis
    assert keys.media_key_from_id(keys.media_id(key)) == key
    later = keys.media_key(userid, millis + 1, suffix)
    assert later < key  # a user's images list newest first


def test_a_media_id_must_be_exactly_what_media_id_gives() -> None:
    good = keys.media_id(keys.media_key("ana", 1, b"abcd"))
    for bad in (good.upper(), good[:-2], good + "00", "../etc", 5):
        with pytest.raises(keys.BadKey):
            keys.media_key_from_id(bad)  # type: ignore[arg-type]
