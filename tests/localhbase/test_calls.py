"""The parts both Thrift handlers share (localhbase/calls.py), on their own."""

from __future__ import annotations

from typing import Any

import pytest

from localhbase.calls import Scanner, Scanners, selected_columns
from localhbase.filters import parse_filter
from localhbase.store import Cell


def rows(n: int, cells_each: int) -> list[tuple[bytes, list[Cell]]]:
    return [
        (b"r%d" % r, [(b"f", b"q%d" % c, 1, b"v") for c in range(cells_each)]) for r in range(n)
    ]


def test_a_family_after_its_column_widens_the_read_to_the_whole_family() -> None:
    assert selected_columns([(b"f", b"a"), (b"f", None)]) == {b"f": None}
    assert selected_columns([(b"f", None), (b"f", b"a"), (b"g", b"b")]) == {
        b"f": frozenset({b"a"}),
        b"g": frozenset({b"b"}),
    }
    assert selected_columns([]) is None


def test_a_scanner_cuts_rows_into_batches_and_counts_its_limit_in_rows() -> None:
    def result(row: bytes, cells: list[Cell], partial: bool) -> Any:
        return row, len(cells), partial

    scanner = Scanner(iter(rows(3, 5)), None, batch=2, limit=2, result=result)
    assert scanner.fetch(4) == [
        (b"r0", 2, True),
        (b"r0", 2, True),
        (b"r0", 1, False),
        (b"r1", 2, True),
    ]
    assert scanner.fetch(10) == [(b"r1", 2, True), (b"r1", 1, False)]
    assert scanner.fetch(10) == []


def test_a_scanner_without_filter_batch_or_result_hands_rows_on_as_they_come() -> None:
    source = rows(3, 1)
    scanner = Scanner(iter(source), None)
    assert scanner.fetch(2) == source[:2]
    assert scanner.fetch(2) == source[2:]


def test_a_scanner_asks_its_filter() -> None:
    scanner = Scanner(iter(rows(3, 1)), parse_filter(b"PrefixFilter('r1')"))
    assert [row for row, _ in scanner.fetch(10)] == [b"r1"]


@pytest.mark.parametrize("expire_on_use", [False, True])
def test_an_idle_scanner_is_dropped_when_another_opens(expire_on_use: bool) -> None:
    scanners: Scanners[Scanner] = Scanners(1, 60, expire_on_use)
    idle = scanners.add(Scanner(iter(()), None))
    assert idle == 1
    scanners.get(idle).last_used -= 61  # type: ignore[union-attr]
    if expire_on_use:
        assert scanners.get(idle) is None
    else:
        assert scanners.get(idle) is not None  # using it marks it used
        scanners.get(idle).last_used -= 61  # type: ignore[union-attr]
    assert scanners.add(Scanner(iter(()), None)) == 2
    assert scanners.get(idle) is None
    assert scanners.pop(2) is not None and scanners.pop(2) is None
