"""HBase's serialized Java filters, built as its Java client builds them.

A Java ``Filter`` goes over Thrift2 as ``ProtobufUtil.toFilter(filter)``: a
``hbase.pb.Filter`` message holding the class name and the bytes of the
class's own message (``toByteArray()``), each field set as that class's
``toByteArray`` sets it. These helpers build the same messages from
``localhbase/hbasepb``'s definitions, one per Java constructor used in the
tests.
"""

from __future__ import annotations

from typing import Any

from localhbase.hbasepb import enum_value, message

PKG = "org.apache.hadoop.hbase.filter."


def _filter(cls: str, **fields: Any) -> bytes:
    inner = message(cls)(**fields).SerializeToString()
    out: bytes = message("Filter")(name=PKG + cls, serialized_filter=inner).SerializeToString()
    return out


def _comparator(cls: str, **fields: Any) -> Any:
    inner = message(cls)(**fields).SerializeToString()
    return message("Comparator")(name=PKG + cls, serialized_comparator=inner)


def binary(value: bytes) -> Any:
    return _comparator("BinaryComparator", comparable={"value": value})


def binary_prefix(value: bytes) -> Any:
    return _comparator("BinaryPrefixComparator", comparable={"value": value})


def substring(value: str) -> Any:
    # SubstringComparator keeps its string lower-cased.
    return _comparator("SubstringComparator", substr=value.lower())


def regex(pattern: str, flags: int = 32) -> Any:
    # Java's default: Pattern.DOTALL, UTF-8, the JAVA engine.
    return _comparator(
        "RegexStringComparator",
        pattern=pattern,
        pattern_flags=flags,
        charset="UTF-8",
        engine="JAVA",
    )


def null() -> Any:
    return _comparator("NullComparator")


def long(value: int) -> Any:
    return _comparator(
        "LongComparator", comparable={"value": value.to_bytes(8, "big", signed=True)}
    )


def bits(value: bytes, op: str) -> Any:
    return _comparator(
        "BitComparator",
        comparable={"value": value},
        bitwise_op=enum_value("BitComparator.BitwiseOp", op),
    )


def op(name: str) -> int:
    return enum_value("CompareType", name)


def compare_filter(cls: str, compare: str, comparator: Any) -> bytes:
    return _filter(cls, compare_filter={"compare_op": op(compare), "comparator": comparator})


def filter_list(operator: str, *filters: bytes) -> bytes:
    parsed = [message("Filter").FromString(f) for f in filters]
    return _filter(
        "FilterList",
        operator=enum_value("FilterList.Operator", operator),
        filters=parsed,
    )


def prefix(p: bytes) -> bytes:
    return _filter("PrefixFilter", prefix=p)


def column_prefix(p: bytes) -> bytes:
    return _filter("ColumnPrefixFilter", prefix=p)


def multiple_column_prefix(*prefixes: bytes) -> bytes:
    return _filter("MultipleColumnPrefixFilter", sorted_prefixes=sorted(prefixes))


def column_range(low: bytes | None, low_in: bool, high: bytes | None, high_in: bool) -> bytes:
    fields: dict[str, Any] = {"min_column_inclusive": low_in, "max_column_inclusive": high_in}
    if low is not None:
        fields["min_column"] = low
    if high is not None:
        fields["max_column"] = high
    return _filter("ColumnRangeFilter", **fields)


def column_pagination(limit: int, offset: int) -> bytes:
    return _filter("ColumnPaginationFilter", limit=limit, offset=offset)


def column_pagination_from(limit: int, column_offset: bytes) -> bytes:
    return _filter("ColumnPaginationFilter", limit=limit, column_offset=column_offset)


def column_count_get(limit: int) -> bytes:
    return _filter("ColumnCountGetFilter", limit=limit)


def page(size: int) -> bytes:
    return _filter("PageFilter", page_size=size)


def key_only(len_as_val: bool = False) -> bytes:
    return _filter("KeyOnlyFilter", len_as_val=len_as_val)


def first_key_only() -> bytes:
    return _filter("FirstKeyOnlyFilter")


def inclusive_stop(row: bytes) -> bytes:
    return _filter("InclusiveStopFilter", stop_row_key=row)


def timestamps(*stamps: int) -> bytes:
    return _filter("TimestampsFilter", timestamps=sorted(stamps), can_hint=True)


def while_match(inner: bytes) -> bytes:
    return _filter("WhileMatchFilter", filter=message("Filter").FromString(inner))


def skip(inner: bytes) -> bytes:
    return _filter("SkipFilter", filter=message("Filter").FromString(inner))


def single_column_value(
    family: bytes,
    qualifier: bytes,
    compare: str,
    comparator: Any,
    if_missing: bool = False,
    latest_only: bool = True,
) -> dict[str, Any]:
    return {
        "column_family": family,
        "column_qualifier": qualifier,
        "compare_op": op(compare),
        "comparator": comparator,
        "filter_if_missing": if_missing,
        "latest_version_only": latest_only,
    }


def scvf(*args: Any, **kwargs: Any) -> bytes:
    return _filter("SingleColumnValueFilter", **single_column_value(*args, **kwargs))


def scv_exclude(*args: Any, **kwargs: Any) -> bytes:
    return _filter(
        "SingleColumnValueExcludeFilter",
        single_column_value_filter=single_column_value(*args, **kwargs),
    )


def dependent(family: bytes, qualifier: bytes, drop: bool, compare: str, comparator: Any) -> bytes:
    return _filter(
        "DependentColumnFilter",
        compare_filter={"compare_op": op(compare), "comparator": comparator},
        column_family=family,
        column_qualifier=qualifier,
        drop_dependent_column=drop,
    )


def row_ranges(*ranges: tuple[bytes, bool, bytes, bool]) -> bytes:
    return _filter(
        "MultiRowRangeFilter",
        row_range_list=[
            {
                "start_row": a,
                "start_row_inclusive": ai,
                "stop_row": b,
                "stop_row_inclusive": bi,
            }
            for a, ai, b, bi in ranges
        ],
    )


def fuzzy(*keys: tuple[bytes, bytes]) -> bytes:
    """FuzzyRowFilter of (key, mask) pairs, mask 0 fixed and 1 free, as the
    Java constructor takes them: it sends the key with its free bytes zeroed
    and the mask processed (fixed -1, free 2: HBase 2.6's mask v2)."""
    pairs = []
    for key, mask in keys:
        pairs.append(
            {
                "first": bytes(0 if m else k for k, m in zip(key, mask, strict=True)),
                "second": bytes(2 if m else 0xFF for m in mask),
            }
        )
    return _filter("FuzzyRowFilter", fuzzy_keys_data=pairs, is_mask_v2=True)


def raw(name: str, serialized: bytes = b"") -> bytes:
    out: bytes = message("Filter")(name=name, serialized_filter=serialized).SerializeToString()
    return out
