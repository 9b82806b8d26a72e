"""The reports tables' keys (storage/keys.py): a subject's reports are one
prefix, a user's subjects are two, and the queue sorts newest first or most
reported first."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from storage import keys

MILLIS = st.integers(min_value=0, max_value=2**50)
COUNTS = st.integers(min_value=0, max_value=2**32 - 1)
TWIT = keys.twit_key("alice", 1_700_000_000_000, b"abcd")


def test_subjects_are_as_wide_for_a_twit_as_for_an_account() -> None:
    assert len(keys.twit_subject(TWIT)) == len(keys.user_subject("alice")) == keys.SUBJECT_LEN
    assert keys.user_subject("Alice") == keys.user_subject("alice")
    twits_of, account_of = keys.subject_prefixes("ALICE")
    assert keys.twit_subject(TWIT).startswith(twits_of)
    assert keys.user_subject("alice").startswith(account_of)
    with pytest.raises(keys.BadKey):
        keys.check_subject(b"x" * keys.SUBJECT_LEN)
    with pytest.raises(keys.BadKey):
        keys.twit_subject(b"short")


def test_a_subjects_reports_are_one_prefix_one_row_per_reporter() -> None:
    subject = keys.twit_subject(TWIT)
    bob, again, charlie = (keys.report_key(subject, u) for u in ("bob", "BOB", "charlie"))
    assert bob == again != charlie
    assert all(k.startswith(subject) and len(k) == keys.REPORT_KEY_LEN for k in (bob, charlie))


@given(MILLIS, MILLIS)
def test_the_newest_list_sorts_the_latest_report_first(a: int, b: int) -> None:
    one, other = keys.twit_subject(TWIT), keys.user_subject("bob")
    ka, kb = keys.queue_newest_key(a, one), keys.queue_newest_key(b, other)
    if a != b:
        assert (ka < kb) == (a > b)
    assert keys.subject_from_queue_key(ka) == one
    assert ka.startswith(keys.QUEUE_NEWEST)


@given(COUNTS, COUNTS, MILLIS, MILLIS)
def test_the_most_list_sorts_by_count_then_newest(c1: int, c2: int, m1: int, m2: int) -> None:
    one, other = keys.twit_subject(TWIT), keys.user_subject("bob")
    k1, k2 = keys.queue_most_key(c1, m1, one), keys.queue_most_key(c2, m2, other)
    if c1 != c2:
        assert (k1 < k2) == (c1 > c2)
    elif m1 != m2:
        assert (k1 < k2) == (m1 > m2)
    assert keys.subject_from_queue_key(k2) == other
    assert k1.startswith(keys.QUEUE_MOST)


def test_a_count_out_of_range_is_refused() -> None:
    with pytest.raises(keys.BadKey):
        keys.queue_most_key(-1, 0, keys.user_subject("bob"))
    with pytest.raises(keys.BadKey):
        keys.queue_most_key(2**32, 0, keys.user_subject("bob"))
