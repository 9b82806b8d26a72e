"""The local server's RocksDB key layout sorts exactly as HBase sorts cells."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from localhbase import encoding as enc

part = st.binary(max_size=12)


@given(part, part)
def test_escaping_preserves_byte_order(a: bytes, b: bytes) -> None:
    assert (enc.esc(a) < enc.esc(b)) == (a < b)
    assert enc.unesc(enc.esc(a)[:-2]) == a


@given(
    st.tuples(part, part, part, st.integers(0, 2**62)),
    st.tuples(part, part, part, st.integers(0, 2**62)),
)
def test_cell_keys_sort_by_row_family_qualifier_then_newest_first(
    x: tuple[bytes, bytes, bytes, int], y: tuple[bytes, bytes, bytes, int]
) -> None:
    def key(c: tuple[bytes, bytes, bytes, int]) -> bytes:
        return enc.cell_key(enc.row_prefix(7, c[0]), c[1], c[2], c[3], enc.TYPE_PUT)

    def hbase_order(c: tuple[bytes, bytes, bytes, int]) -> tuple[bytes, bytes, bytes, int]:
        return (c[0], c[1], c[2], -c[3])

    assert (key(x) < key(y)) == (hbase_order(x) < hbase_order(y))
    fam, qual, ts, kind = enc.split_column(key(x), len(enc.row_prefix(7, x[0])))
    assert (fam, qual, ts, kind) == (x[1], x[2], x[3], enc.TYPE_PUT)


@given(part, part, part)
def test_row_upper_bounds_exactly_the_rows_cells(row: bytes, other: bytes, fam: bytes) -> None:
    pre = enc.row_prefix(1, row)
    upper = enc.row_upper(pre)
    assert pre + enc.esc(fam) < upper
    other_key = enc.row_prefix(1, other)
    if other > row:
        assert other_key >= upper
    elif other < row:
        assert other_key < pre


def test_markers_sort_before_puts_of_the_same_timestamp() -> None:
    pre = enc.row_prefix(1, b"r")
    put = enc.cell_key(pre, b"cf", b"q", 5, enc.TYPE_PUT)
    column_delete = enc.cell_key(pre, b"cf", b"q", 5, enc.TYPE_DELETE_COLUMN)
    family_delete = enc.cell_key(pre, b"cf", b"", 5, enc.TYPE_DELETE_FAMILY)
    assert family_delete < column_delete < put
