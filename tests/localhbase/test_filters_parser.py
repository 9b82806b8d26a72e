"""The filter-string parser on its own: what it accepts and how it says no."""

from __future__ import annotations

import pytest

from localhbase.filters import (
    And,
    FilterError,
    Or,
    PrefixFilter,
    Skip,
    ValueFilter,
    apply_filter,
    parse_filter,
)

CELLS = [(b"cf", b"a", 1, b"Hello"), (b"cf", b"b", 1, b"world")]


def test_and_binds_tighter_than_or() -> None:
    flt = parse_filter("PrefixFilter('a') OR PrefixFilter('b') AND KeyOnlyFilter()")
    assert isinstance(flt, Or)
    assert isinstance(flt.operands[1], And)


def test_parentheses_and_skip() -> None:
    flt = parse_filter("SKIP (ValueFilter(=, 'binary:Hello'))")
    assert isinstance(flt, Skip)
    assert apply_filter(flt, b"r", CELLS) is None
    assert apply_filter(parse_filter("ValueFilter(=, 'binary:Hello')"), b"r", CELLS) == [CELLS[0]]


def test_quoted_argument_with_doubled_quote() -> None:
    flt = parse_filter(b"PrefixFilter('it''s')")
    assert flt == PrefixFilter(b"it's")


def test_binary_bytes_survive_parsing() -> None:
    flt = parse_filter(b"ValueFilter(=, 'binary:\xff\x00')")
    assert isinstance(flt, ValueFilter)
    assert flt.comparison.operand == b"\xff\x00"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Empty filter string"),
        ("Nope()", "Filter Name Nope not supported"),
        ("PrefixFilter(", "expected"),
        ("PrefixFilter('a') AND", "ends early"),
        ("PrefixFilter(a)", "expected a quoted argument"),
        ("PageFilter('x')", "expected a number"),
        ("PageFilter(1, 2)", "takes 1 arguments, got 2"),
        ("ValueFilter(=, 'bitwise:x')", "Comparator 'bitwise' is not supported"),
        ("ValueFilter(<, 'substring:x')", "can only be used with = or !="),
        ("ValueFilter(=, 'regexstring:(')", "Bad regular expression"),
        ("PrefixFilter('a') PrefixFilter('b')", "unexpected"),
        ("PrefixFilter('a') $", "cannot read"),
    ],
)
def test_bad_filters_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(FilterError, match=message.replace("(", r"\(")):
        parse_filter(text)


def test_a_stateless_filter_is_parsed_once_and_a_stateful_one_for_each_scan() -> None:
    keys_only = "KeyOnlyFilter() AND FirstKeyOnlyFilter()"
    assert parse_filter(keys_only) is parse_filter(keys_only.encode())
    rows = (b"a1", b"a2", b"b1")
    for stateful in (
        "PageFilter(2)",
        "KeyOnlyFilter() AND PageFilter(2)",
        "PageFilter(1) OR PrefixFilter('z')",
        "WHILE PrefixFilter('a')",
        "SKIP (WHILE PrefixFilter('a'))",
    ):
        first, second = parse_filter(stateful), parse_filter(stateful)
        # One scan's rows do not count against the next's.
        seen = [apply_filter(first, row, CELLS) is not None for row in rows]
        assert seen == [apply_filter(second, row, CELLS) is not None for row in rows], stateful
        assert seen[0] and not seen[2], stateful
