"""Java filters as HBase's Java client sends them (``TGet``/``TScan.filterBytes``).

The bytes are HBase's protobuf ``Filter`` message: the filter's Java class
name and that class's own message, which ``localhbase/hbasepb`` defines and
the protobuf runtime decodes; comparators likewise (``Comparator``). Each
decoded filter becomes the filter of :mod:`localhbase.filters` that a filter
string naming it would give, so one filter means one thing whichever way it
came; the filters and comparators the filter language cannot name are
evaluated there too (FamilyFilter, ColumnRangeFilter, TimestampsFilter...).

A filter or comparator this server does not know is refused as HBase's
server refuses a class it cannot load: :class:`FilterRefused` carries the
message HBase's TIOError has (``java.lang.ClassNotFoundException: <name>``),
or for the few HBase ships that this server does not run, says so;
bytes that are no Filter message give :class:`BadFilterBytes`, the protobuf
error HBase's thrift server answers with.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from google.protobuf.message import DecodeError

from . import filters as fl
from .hbasepb import message

FILTER_PACKAGE = "org.apache.hadoop.hbase.filter."

# HBase's CompareType, by number, as the filter language writes it.
_OPS = {0: "<", 1: "<=", 2: "=", 3: "!=", 4: ">=", 5: ">", 6: "NO_OP"}
_BIT_OPS = {1: "AND", 2: "OR", 3: "XOR"}

# java.util.regex.Pattern flags -> Python's re flags.
_REGEX_FLAGS = {2: "i", 4: "x", 8: "m", 32: "s"}


class FilterRefused(Exception):
    """A filter HBase's server could not load either (an unknown class), or
    one this server does not run; the message is HBase's TIOError text."""


class BadFilterBytes(Exception):
    """Bytes that do not parse as HBase's Filter message."""


def _parse(name: str, data: bytes) -> Any:
    try:
        return message(name).FromString(data)
    except DecodeError as exc:
        raise BadFilterBytes(f"{exc}") from None


def _comparison(op: int, comparator: Any) -> fl.Comparison:
    """A CompareType and a Comparator message as a :class:`Comparison`."""
    name = comparator.name
    kind = name.rsplit(".", 1)[-1]
    data = comparator.serialized_comparator
    if kind in ("BinaryComparator", "BinaryPrefixComparator", "LongComparator"):
        operand = _parse(kind, data).comparable.value
        short = {"BinaryComparator": "binary", "BinaryPrefixComparator": "binaryprefix"}
        return fl.Comparison(_OPS[op], short.get(kind, "long"), operand)
    if kind == "SubstringComparator":
        return fl.Comparison(_OPS[op], "substring", _parse(kind, data).substr.lower().encode())
    if kind == "RegexStringComparator":
        pb = _parse(kind, data)
        if pb.HasField("engine") and pb.engine not in ("JAVA", ""):
            raise FilterRefused(f"The {pb.engine} regex engine is not supported")
        flags = "".join(f for bit, f in _REGEX_FLAGS.items() if pb.pattern_flags & bit)
        pattern = re.compile(f"(?{flags}){pb.pattern}" if flags else pb.pattern)
        charset = pb.charset or "utf-8"
        return fl.Comparison(_OPS[op], "regexstring", b"", pattern, charset=charset)
    if kind == "NullComparator":
        return fl.Comparison(_OPS[op], "null", b"")
    if kind == "BitComparator":
        pb = _parse(kind, data)
        return fl.Comparison(_OPS[op], "bit", pb.comparable.value, bit_op=_BIT_OPS[pb.bitwise_op])
    raise _refused(name)


def _refused(name: str) -> FilterRefused:
    """HBase's refusal of a class it cannot load, or this server's of one
    HBase ships that it does not run (RandomRowFilter, BigDecimalComparator...)."""
    short = name.rsplit(".", 1)[-1]
    if name.startswith(FILTER_PACKAGE) and short in _UNSUPPORTED:
        return FilterRefused(f"{name} is not supported by the local server")
    return FilterRefused(f"java.lang.ClassNotFoundException: {name}")


_UNSUPPORTED = frozenset(
    [
        "RandomRowFilter",
        "FirstKeyValueMatchingQualifiersFilter",
        "FilterWrapper",
        "BigDecimalComparator",
        "BinaryComponentComparator",
    ]
)


def _compare_filter(pb: Any) -> fl.Comparison:
    if not pb.compare_filter.HasField("comparator"):
        raise BadFilterBytes("a CompareFilter without a comparator")
    return _comparison(pb.compare_filter.compare_op, pb.compare_filter.comparator)


def _opt(pb: Any, name: str) -> bytes | None:
    value: bytes | None = getattr(pb, name) if pb.HasField(name) else None
    return value


def _filter_list(pb: Any) -> fl.Filter:
    operands = [decode(f.SerializeToString()) for f in pb.filters]
    if not operands:
        return fl.And([])  # an empty FilterList lets every cell through
    if len(operands) == 1:
        return operands[0]
    return fl.And(operands) if pb.operator == 1 else fl.Or(operands)


def _scvf(pb: Any, cls: type[fl.SingleColumnValueFilter]) -> fl.Filter:
    return cls(
        pb.column_family,
        pb.column_qualifier,
        _comparison(pb.compare_op, pb.comparator),
        pb.filter_if_missing,
        pb.latest_version_only if pb.HasField("latest_version_only") else True,
    )


def _dependent(pb: Any) -> fl.Filter:
    cf = pb.compare_filter
    comparison = _comparison(cf.compare_op, cf.comparator) if cf.HasField("comparator") else None
    return fl.DependentColumnFilter(
        pb.column_family, pb.column_qualifier, pb.drop_dependent_column, comparison
    )


def _pagination(pb: Any) -> fl.Filter:
    if pb.HasField("column_offset"):
        return fl.ColumnPaginationFilter(pb.limit, column_offset=pb.column_offset)
    return fl.ColumnPaginationFilter(pb.limit, pb.offset)


def _ranges(pb: Any) -> fl.Filter:
    return fl.MultiRowRangeFilter(
        [
            fl.RowRange(r.start_row, r.start_row_inclusive, r.stop_row, r.stop_row_inclusive)
            for r in pb.row_range_list
        ]
    )


# Each filter class HBase ships that this server runs: its message, and how
# the decoded message becomes a filter of localhbase.filters.
_FILTERS: dict[str, Callable[[Any], fl.Filter]] = {
    "FilterList": _filter_list,
    "PrefixFilter": lambda pb: fl.PrefixFilter(pb.prefix),
    "RowFilter": lambda pb: fl.RowFilter(_compare_filter(pb)),
    "FamilyFilter": lambda pb: fl.FamilyFilter(_compare_filter(pb)),
    "QualifierFilter": lambda pb: fl.QualifierFilter(_compare_filter(pb)),
    "ValueFilter": lambda pb: fl.ValueFilter(_compare_filter(pb)),
    "SingleColumnValueFilter": lambda pb: _scvf(pb, fl.SingleColumnValueFilter),
    "SingleColumnValueExcludeFilter": lambda pb: _scvf(
        pb.single_column_value_filter, fl.SingleColumnValueExcludeFilter
    ),
    "ColumnPrefixFilter": lambda pb: fl.ColumnPrefixFilter(pb.prefix),
    "MultipleColumnPrefixFilter": lambda pb: fl.MultipleColumnPrefixFilter(
        list(pb.sorted_prefixes)
    ),
    "ColumnRangeFilter": lambda pb: fl.ColumnRangeFilter(
        _opt(pb, "min_column"),
        pb.min_column_inclusive,
        _opt(pb, "max_column"),
        pb.max_column_inclusive,
    ),
    "ColumnPaginationFilter": _pagination,
    "ColumnCountGetFilter": lambda pb: fl.ColumnCountGetFilter(pb.limit),
    "PageFilter": lambda pb: fl.PageFilter(pb.page_size),
    "KeyOnlyFilter": lambda pb: fl.KeyOnlyFilter(pb.len_as_val),
    "FirstKeyOnlyFilter": lambda pb: fl.FirstKeyOnlyFilter(),
    "InclusiveStopFilter": lambda pb: fl.InclusiveStopFilter(pb.stop_row_key),
    "TimestampsFilter": lambda pb: fl.TimestampsFilter(frozenset(pb.timestamps)),
    "WhileMatchFilter": lambda pb: fl.While(decode(pb.filter.SerializeToString())),
    "SkipFilter": lambda pb: fl.Skip(decode(pb.filter.SerializeToString())),
    "DependentColumnFilter": _dependent,
    "MultiRowRangeFilter": _ranges,
    "FuzzyRowFilter": lambda pb: fl.FuzzyRowFilter(
        [(p.first, p.second) for p in pb.fuzzy_keys_data]
    ),
    "FilterAllFilter": lambda pb: fl.FilterAllFilter(),
    "ColumnValueFilter": lambda pb: fl.ColumnValueFilter(
        pb.family, pb.qualifier, _comparison(pb.compare_op, pb.comparator)
    ),
}


def decode(data: bytes) -> fl.Filter:
    """The filter that HBase's serialized ``Filter`` message ``data`` names."""
    pb = _parse("Filter", data)
    name = pb.name
    short = name[len(FILTER_PACKAGE) :] if name.startswith(FILTER_PACKAGE) else None
    build = _FILTERS.get(short) if short is not None else None
    if build is None:
        raise _refused(name)
    return build(_parse(short, pb.serialized_filter))  # type: ignore[arg-type]
