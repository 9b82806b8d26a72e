"""HBase's filter language (``TScan.filterString``) for the local server.

Grammar, as HBase's ``ParseFilter`` reads it::

    expr   := term ("OR" term)*
    term   := unary ("AND" unary)*
    unary  := ("SKIP" | "WHILE") unary | "(" expr ")" | Name "(" args ")"
    args   := [arg ("," arg)*]      arg: 'quoted' ('' escapes a quote),
                                         number, true/false, < <= = != > >=

Supported filters: PrefixFilter, KeyOnlyFilter, FirstKeyOnlyFilter,
ColumnPrefixFilter, PageFilter, SingleColumnValueFilter, ValueFilter,
QualifierFilter and RowFilter, with the comparators ``binary``,
``binaryprefix``, ``substring`` and ``regexstring``. Anything else raises
:class:`FilterError` naming what is not supported: a filter is never ignored.

A filter sees one row at a time, with the cells the scan selected, and
answers which of them to keep (or that the row is out). AND keeps what every
operand keeps, OR what any keeps, which is how HBase's FilterList combines
filters for these types.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from .store import Cell


class FilterError(ValueError):
    """The filter string is malformed or names something unsupported."""


# -- comparators ---------------------------------------------------------------

_OPS: dict[str, Callable[[int], bool]] = {
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    "=": lambda c: c == 0,
    "!=": lambda c: c != 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
}


def _cmp(a: bytes, b: bytes) -> int:
    return (a > b) - (a < b)


@dataclass(frozen=True)
class Comparison:
    """``data OP operand`` under one of HBase's comparators.

    ``op`` is one of ``< <= = != > >=``, or ``NO_OP`` (nothing matches, as
    HBase's CompareFilter has it). ``kind`` names the comparator: the filter
    language's ``binary``, ``binaryprefix``, ``substring``, ``regexstring``,
    and the ones only a serialized Java filter can name: ``null``, ``long``
    and ``bit`` (``bit_op`` AND, OR or XOR).
    """

    op: str
    kind: str
    operand: bytes
    _regex: re.Pattern[bytes] | re.Pattern[str] | None = field(default=None, compare=False)
    charset: str = "utf-8"
    bit_op: str = ""

    @classmethod
    def parse(cls, op: str, text: bytes) -> Comparison:
        kind, sep, operand = text.partition(b":")
        if not sep:
            raise FilterError(f"Incorrect comparator: {text.decode('latin-1')!r}")
        name = kind.decode("latin-1")
        if name not in ("binary", "binaryprefix", "substring", "regexstring"):
            raise FilterError(f"Comparator {name!r} is not supported")
        if name in ("substring", "regexstring") and op not in ("=", "!="):
            raise FilterError(f"A {name} comparator can only be used with = or !=")
        regex = None
        if name == "regexstring":
            try:
                regex = re.compile(operand, re.DOTALL)
            except re.error as exc:
                raise FilterError(f"Bad regular expression: {exc}") from None
        if name == "substring":
            operand = operand.lower()
        return cls(op, name, operand, regex)

    def _java_compare(self, data: bytes) -> int:
        """What the comparator's Java ``compareTo(data)`` answers: the operand
        against the data, so negative where the data sorts after it."""
        if self.kind == "binary":
            return _cmp(self.operand, data)
        if self.kind == "binaryprefix":
            return _cmp(self.operand, data[: len(self.operand)])
        if self.kind == "substring":
            return 0 if self.operand in data.lower() else 1
        if self.kind == "regexstring":
            regex = self._regex
            assert regex is not None
            if isinstance(regex.pattern, str):
                text = data.decode(self.charset, "replace")
                return 0 if regex.search(text) else 1
            return 0 if regex.search(data) else 1
        if self.kind == "null":
            return 1  # a cell's value is never Java's null
        if self.kind == "long":
            if len(data) != 8:
                raise FilterError(
                    f"offset (0) + length (8) exceed the capacity of the array: {len(data)}"
                )
            mine = int.from_bytes(self.operand, "big", signed=True)
            theirs = int.from_bytes(data, "big", signed=True)
            return (mine > theirs) - (mine < theirs)
        if self.kind == "bit":
            if len(data) != len(self.operand):
                return 1
            combine = {"AND": int.__and__, "OR": int.__or__, "XOR": int.__xor__}[self.bit_op]
            hit = any(combine(a, b) for a, b in zip(self.operand, data, strict=True))
            return 0 if hit else 1
        raise FilterError(f"Comparator {self.kind!r} is not supported")

    def matches(self, data: bytes) -> bool:
        if self.op == "NO_OP":
            return False
        return _OPS[self.op](-self._java_compare(data))


# -- filters -------------------------------------------------------------------


class Filter:
    """Decides, per row, which cells survive.

    ``apply`` returns the indices of ``cells`` kept, or None when the row is
    filtered out. ``strips_values`` says that kept cells lose their values
    (KeyOnlyFilter). ``exhausted`` turns true when no later row can pass
    (PageFilter), so the scanner can stop. ``stateful``: it remembers the
    rows it has seen (PageFilter, WHILE), so each scan needs its own.
    """

    strips_values = False
    counts_rows = False
    stateful = False

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        raise NotImplementedError

    @property
    def exhausted(self) -> bool:
        return False


def _all(cells: Sequence[Cell]) -> list[int]:
    return list(range(len(cells)))


@dataclass
class PrefixFilter(Filter):
    prefix: bytes

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return _all(cells) if row.startswith(self.prefix) else None


@dataclass
class RowFilter(Filter):
    comparison: Comparison

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return _all(cells) if self.comparison.matches(row) else None


@dataclass
class KeyOnlyFilter(Filter):
    """Cells without their values; with ``len_as_val`` (only a serialized
    Java filter sets it), each value is its old length, a 4-byte int."""

    len_as_val: bool = False
    strips_values = True

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return _all(cells)


@dataclass
class FirstKeyOnlyFilter(Filter):
    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return [0] if cells else None


@dataclass
class ColumnPrefixFilter(Filter):
    prefix: bytes

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return [i for i, c in enumerate(cells) if c[1].startswith(self.prefix)]


@dataclass
class ValueFilter(Filter):
    comparison: Comparison

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return [i for i, c in enumerate(cells) if self.comparison.matches(c[3])]


@dataclass
class QualifierFilter(Filter):
    comparison: Comparison

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return [i for i, c in enumerate(cells) if self.comparison.matches(c[1])]


@dataclass
class SingleColumnValueFilter(Filter):
    family: bytes
    qualifier: bytes
    comparison: Comparison
    filter_if_missing: bool = False
    latest_version_only: bool = True

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        found = False
        for family, qualifier, _, value in cells:
            if family == self.family and qualifier == self.qualifier:
                found = True
                if self.comparison.matches(value):
                    return _all(cells)
                if self.latest_version_only:
                    return None
        if found:
            return None
        return None if self.filter_if_missing else _all(cells)


@dataclass
class SingleColumnValueExcludeFilter(SingleColumnValueFilter):
    """SingleColumnValueFilter that leaves the tested column out of the row."""

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        kept = super().apply(row, cells)
        if kept is None:
            return None
        column = (self.family, self.qualifier)
        return [i for i in kept if cells[i][:2] != column]


# What follows only a serialized Java filter (TGet/TScan filterBytes) names;
# each does what its HBase 2.6 class does, on the cells a row read selected.


@dataclass
class FamilyFilter(Filter):
    comparison: Comparison

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return [i for i, c in enumerate(cells) if self.comparison.matches(c[0])]


@dataclass
class MultipleColumnPrefixFilter(Filter):
    prefixes: list[bytes]

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        if not self.prefixes:
            return _all(cells)
        prefixes = tuple(self.prefixes)
        return [i for i, c in enumerate(cells) if c[1].startswith(prefixes)]


@dataclass
class ColumnRangeFilter(Filter):
    """Qualifiers between ``low`` and ``high`` (None: unbounded). As HBase's,
    the first qualifier past ``high`` ends the family's part of the row."""

    low: bytes | None
    low_inclusive: bool
    high: bytes | None
    high_inclusive: bool

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        out = []
        past: bytes | None = None  # the family whose qualifiers went past high
        for i, (f, q, _, _) in enumerate(cells):
            if f == past:
                continue
            if self.low is not None and (
                q < self.low or (q == self.low and not self.low_inclusive)
            ):
                continue
            if self.high is not None and (
                q > self.high or (q == self.high and not self.high_inclusive)
            ):
                past = f
                continue
            out.append(i)
        return out


def _first_versions(cells: Sequence[Cell]) -> list[int]:
    """The index of each column's first (newest) cell."""
    out, last = [], None
    for i, c in enumerate(cells):
        if c[:2] != last:
            out.append(i)
            last = c[:2]
    return out


@dataclass
class ColumnPaginationFilter(Filter):
    """A row's columns (newest version each) from ``offset`` on, at most
    ``limit``; or, given ``column_offset``, from the first column whose
    qualifier is not below it."""

    limit: int
    offset: int = 0
    column_offset: bytes | None = None

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        firsts = _first_versions(cells)
        if self.column_offset is None:
            return firsts[self.offset : self.offset + max(self.limit, 0)]
        out: list[int] = []
        for i in firsts:
            if len(out) >= self.limit:
                break
            if out or cells[i][1] >= self.column_offset:
                out.append(i)
        return out


@dataclass
class ColumnCountGetFilter(Filter):
    """A row's first ``limit`` columns (newest version each); a row with more
    ends the scan, as HBase's filter is then done with all that remains."""

    limit: int
    stateful = True
    done: bool = False

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        if self.done:
            return None
        firsts = _first_versions(cells)
        if len(firsts) > self.limit:
            self.done = True
        return firsts[: self.limit]

    @property
    def exhausted(self) -> bool:
        return self.done


@dataclass
class InclusiveStopFilter(Filter):
    """Rows up to ``stop`` inclusive (down to it, reversed); the first row
    past it ends the scan."""

    stop: bytes
    reversed: bool = False
    stateful = True
    done: bool = False

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        if self.done or (row < self.stop if self.reversed else row > self.stop):
            self.done = True
            return None
        return _all(cells)

    @property
    def exhausted(self) -> bool:
        return self.done


@dataclass
class TimestampsFilter(Filter):
    timestamps: frozenset[int]

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return [i for i, c in enumerate(cells) if c[2] in self.timestamps]


@dataclass
class DependentColumnFilter(Filter):
    """The cells that share a timestamp with a cell of ``family:qualifier``
    (one whose value matches ``comparison``, if given); that column's own
    cells too unless ``drop``."""

    family: bytes
    qualifier: bytes
    drop: bool
    comparison: Comparison | None

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        column = (self.family, self.qualifier)
        stamps = {
            c[2]
            for c in cells
            if c[:2] == column and (self.comparison is None or self.comparison.matches(c[3]))
        }
        return [
            i for i, c in enumerate(cells) if c[2] in stamps and not (self.drop and c[:2] == column)
        ]


@dataclass(frozen=True)
class RowRange:
    start: bytes  # b"": from the first row
    start_inclusive: bool
    stop: bytes  # b"": to the last row
    stop_inclusive: bool

    def holds(self, row: bytes) -> bool:
        if self.start and (row < self.start or (row == self.start and not self.start_inclusive)):
            return False
        return not self.stop or row < self.stop or (row == self.stop and self.stop_inclusive)


@dataclass
class MultiRowRangeFilter(Filter):
    ranges: list[RowRange]

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return _all(cells) if any(r.holds(row) for r in self.ranges) else None


@dataclass
class FuzzyRowFilter(Filter):
    """Rows matching any ``(key, mask)``: a mask byte 0xFF fixes the key's
    byte at that place, any other lets every byte through. The masks are as
    HBase's Java filter sends them, already processed (0 -> -1)."""

    keys: list[tuple[bytes, bytes]]

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        for key, mask in self.keys:
            if len(row) >= len(key) and all(
                m != 0xFF or row[i] == key[i] for i, m in enumerate(mask[: len(key)])
            ):
                return _all(cells)
        return None


@dataclass
class FilterAllFilter(Filter):
    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        return None


@dataclass
class ColumnValueFilter(Filter):
    """Only the cells of ``family:qualifier`` whose value matches."""

    family: bytes
    qualifier: bytes
    comparison: Comparison

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        column = (self.family, self.qualifier)
        return [i for i, c in enumerate(cells) if c[:2] == column and self.comparison.matches(c[3])]


@dataclass
class PageFilter(Filter):
    """Lets ``size`` non-empty rows through, then ends the scan."""

    size: int
    counts_rows = True
    stateful = True
    seen: int = 0

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        if self.seen >= self.size or not cells:
            return None
        self.seen += 1
        return _all(cells)

    @property
    def exhausted(self) -> bool:
        return self.seen >= self.size


@dataclass
class And(Filter):
    operands: list[Filter]

    def __post_init__(self) -> None:
        self.strips_values = any(f.strips_values for f in self.operands)
        self.stateful = any(f.stateful for f in self.operands)
        # Row counters (PageFilter) count only rows the others let through,
        # as HBase calls filterRow() only on rows that are still non-empty.
        self._ordered = sorted(self.operands, key=lambda f: f.counts_rows)

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        kept: set[int] | None = None
        for f in self._ordered:
            if f.counts_rows:
                if not kept:
                    return None
                picked = [cells[i] for i in sorted(kept)]
                if f.apply(row, picked) is None:
                    return None
                continue
            result = f.apply(row, cells)
            if result is None:
                return None
            kept = set(result) if kept is None else kept & set(result)
        return sorted(kept) if kept is not None else _all(cells)

    @property
    def exhausted(self) -> bool:
        return any(f.exhausted for f in self.operands)


@dataclass
class Or(Filter):
    operands: list[Filter]

    def __post_init__(self) -> None:
        self.strips_values = all(f.strips_values for f in self.operands)
        self.stateful = any(f.stateful for f in self.operands)

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        kept: set[int] = set()
        any_row = False
        for f in self.operands:
            result = f.apply(row, cells)
            if result is not None:
                any_row = True
                kept.update(result)
        return sorted(kept) if any_row else None

    @property
    def exhausted(self) -> bool:
        return all(f.exhausted for f in self.operands)


@dataclass
class Skip(Filter):
    """SKIP: drop the whole row if the operand drops any of its cells."""

    operand: Filter

    def __post_init__(self) -> None:
        self.stateful = self.operand.stateful

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        result = self.operand.apply(row, cells)
        if result is None or len(result) != len(cells):
            return None
        return result


@dataclass
class While(Filter):
    """WHILE: end the scan at the first cell or row the operand would not keep."""

    operand: Filter
    stateful = True
    done: bool = False

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        if self.done:
            return None
        result = self.operand.apply(row, cells)
        if result is None:
            self.done = True
            return None
        if len(result) != len(cells):
            # As HBase's: the cells before the first one the operand drops
            # stay, and the scan ends there.
            self.done = True
            lead = [i for n, i in enumerate(result) if i == n]
            return lead or None
        return result

    @property
    def exhausted(self) -> bool:
        return self.done


@dataclass
class VersionsKept(Filter):
    """At most ``versions`` of each column ``operand`` keeps, newest first.

    HBase's filter sees every version a family keeps (within the read's time
    range), and the read's own version count applies to the cells it lets
    through (UserScanQueryMatcher's ``versionsAfterFilter``): a ValueFilter
    matching only an older version finds it. A read with such a filter asks
    the store for every version and wraps its filter in this."""

    operand: Filter
    versions: int

    def __post_init__(self) -> None:
        self.stateful = self.operand.stateful
        self.strips_values = self.operand.strips_values
        self.counts_rows = self.operand.counts_rows

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        kept = self.operand.apply(row, cells)
        if not kept:
            return kept
        out: list[int] = []
        last, n = None, 0
        for i in kept:
            column = cells[i][:2]
            if column != last:
                last, n = column, 0
            n += 1
            if n <= self.versions:
                out.append(i)
        return out

    @property
    def exhausted(self) -> bool:
        return self.operand.exhausted


# Integer.MAX_VALUE versions: every one a family keeps.
ALL_VERSIONS = 0x7FFFFFFF


def versions_kept(flt: Filter, versions: int) -> VersionsKept | None:
    """``flt`` as a read of every version applies it (:class:`VersionsKept`),
    or None where it holds a filter whose answer depends on which versions
    it is shown: HBase shows a column's versions one at a time until the
    read's count is reached, and SkipFilter, WhileMatchFilter,
    SingleColumnValueFilter and DependentColumnFilter decide on what they
    saw, which a filter given the row at once cannot follow. Those see the
    versions the read returns."""
    if versions <= 0 or any(
        isinstance(f, (Skip, While, SingleColumnValueFilter, DependentColumnFilter))
        for f in _parts(flt)
    ):
        return None
    return VersionsKept(flt, versions)


def apply_filter(flt: Filter, row: bytes, cells: list[Cell]) -> list[Cell] | None:
    """Cells of ``row`` that ``flt`` keeps, values stripped if it says so."""
    kept = flt.apply(row, cells)
    if not kept:
        return None
    out = [cells[i] for i in kept]
    if flt.strips_values:
        if _lengths_as_values(flt):
            out = [(f, q, ts, len(v).to_bytes(4, "big")) for f, q, ts, v in out]
        else:
            out = [(f, q, ts, b"") for f, q, ts, _ in out]
    return out


def _parts(flt: Filter) -> Iterator[Filter]:
    """``flt`` and every filter inside it."""
    yield flt
    for inner in getattr(flt, "operands", ()):
        yield from _parts(inner)
    operand = getattr(flt, "operand", None)
    if isinstance(operand, Filter):
        yield from _parts(operand)


def _lengths_as_values(flt: Filter) -> bool:
    return any(isinstance(f, KeyOnlyFilter) and f.len_as_val for f in _parts(flt))


def reverse(flt: Filter | None) -> None:
    """Tell ``flt`` it runs in a reversed scan (rows in descending order)."""
    for f in _parts(flt) if flt is not None else ():
        if isinstance(f, InclusiveStopFilter):
            f.reversed = True


@dataclass(frozen=True)
class Pushdown:
    """The part of a scan's filter the store applies as it reads a row.

    HBase's FirstKeyOnlyFilter answers NEXT_ROW after a row's first cell, so
    its region scanner seeks past the rest of the row instead of reading it;
    the store does the same (ReadSpec.first_cell_only), and with
    KeyOnlyFilter it never copies a value out (ReadSpec.keys_only). Key-only
    scans of rows of several cells (a fan-out reading its followers) then
    cost one cell per row, not one per cell. ``rest`` is what the scanner
    still applies to each row: None when the store did it all.
    """

    rest: Filter | None
    first_cell_only: bool = False
    keys_only: bool = False


def push_down(flt: Filter | None) -> Pushdown:
    """Split ``flt`` into what the store can do while reading and the rest.

    Only FirstKeyOnlyFilter and KeyOnlyFilter, alone or ANDed together, go
    down: the store's first visible cell of a row is the first cell either
    filter sees, as no other filter stands before them. Any other filter
    stays whole with the scanner.
    """
    if flt is None:
        return Pushdown(None)
    parts = flt.operands if isinstance(flt, And) else [flt]
    if (
        not parts
        or not all(isinstance(f, (FirstKeyOnlyFilter, KeyOnlyFilter)) for f in parts)
        or _lengths_as_values(flt)
    ):
        return Pushdown(flt)
    return Pushdown(
        None,
        first_cell_only=any(isinstance(f, FirstKeyOnlyFilter) for f in parts),
        keys_only=any(isinstance(f, KeyOnlyFilter) for f in parts),
    )


def next_row(
    rows: Iterator[tuple[bytes, list[Cell]]], flt: Filter | None
) -> tuple[bytes, list[Cell]] | None:
    """A scanner's next row that ``flt`` keeps (with the cells it keeps), or
    None once the rows end or the filter says no later row can pass. Both
    Thrift APIs' scanners step through their rows with it. An error reading
    ``rows`` propagates, and does again on the next call (FailingRows)."""
    while flt is None or not flt.exhausted:
        try:
            row, cells = next(rows)
        except StopIteration:
            return None
        if flt is None:
            return row, cells
        kept = apply_filter(flt, row, cells)
        if kept is not None:
            return row, kept
    return None


# -- parser --------------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<quoted>'(?:[^']|'')*')
      | (?P<op><=|>=|!=|<|>|=)
      | (?P<punct>[(),])
      | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<number>-?\d+)
    )""",
    re.VERBOSE,
)


@dataclass
class _Token:
    kind: str
    text: str
    pos: int


def _tokenize(source: str) -> list[_Token]:
    tokens = []
    pos = 0
    while pos < len(source):
        if source[pos:].strip() == "":
            break
        m = _TOKEN.match(source, pos)
        if not m:
            raise FilterError(f"Incorrect filter string {source!r}: cannot read at offset {pos}")
        kind = m.lastgroup
        assert kind is not None
        tokens.append(_Token(kind, m.group(kind), m.start(kind)))
        pos = m.end()
    return tokens


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = _tokenize(source)
        self.i = 0

    def peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, text: str | None = None, kind: str | None = None) -> _Token:
        tok = self.peek()
        if (
            tok is None
            or (text is not None and tok.text != text)
            or (kind is not None and tok.kind != kind)
        ):
            want = text or kind or "more input"
            got = "end of string" if tok is None else repr(tok.text)
            raise FilterError(
                f"Incorrect filter string {self.source!r}: expected {want}, got {got}"
            )
        self.i += 1
        return tok

    def parse(self) -> Filter:
        if not self.tokens:
            raise FilterError("Empty filter string")
        result = self.expr()
        if self.peek() is not None:
            raise FilterError(
                f"Incorrect filter string {self.source!r}: unexpected {self.peek().text!r}"  # type: ignore[union-attr]
            )
        return result

    def expr(self) -> Filter:
        return self.joined("OR", self.term, Or)

    def term(self) -> Filter:
        return self.joined("AND", self.unary, And)

    def joined(
        self,
        word: str,
        operand: Callable[[], Filter],
        combine: Callable[[list[Filter]], Filter],
    ) -> Filter:
        """``operand (word operand)*``: one operand as it is, more ``combine``d."""
        operands = [operand()]
        while (tok := self.peek()) is not None and tok.kind == "word" and tok.text == word:
            self.i += 1
            operands.append(operand())
        return operands[0] if len(operands) == 1 else combine(operands)

    def unary(self) -> Filter:
        tok = self.peek()
        if tok is None:
            raise FilterError(f"Incorrect filter string {self.source!r}: ends early")
        if tok.text == "(":
            self.i += 1
            inner = self.expr()
            self.take(")")
            return inner
        if tok.kind == "word" and tok.text == "SKIP":
            self.i += 1
            return Skip(self.unary())
        if tok.kind == "word" and tok.text == "WHILE":
            self.i += 1
            return While(self.unary())
        name = self.take(kind="word").text
        self.take("(")
        args: list[_Token] = []
        if self.peek() is not None and self.peek().text != ")":  # type: ignore[union-attr]
            args.append(self._arg())
            while self.peek() is not None and self.peek().text == ",":  # type: ignore[union-attr]
                self.i += 1
                args.append(self._arg())
        self.take(")")
        return _build(name, args)

    def _arg(self) -> _Token:
        tok = self.peek()
        if tok is None or tok.kind not in ("quoted", "op", "word", "number"):
            raise FilterError(
                f"Incorrect filter string {self.source!r}: bad argument "
                + ("at end" if tok is None else repr(tok.text))
            )
        self.i += 1
        return tok


def _bytes_arg(name: str, tok: _Token) -> bytes:
    if tok.kind != "quoted":
        raise FilterError(f"{name}: expected a quoted argument, got {tok.text!r}")
    return tok.text[1:-1].replace("''", "'").encode("latin-1")


def _int_arg(name: str, tok: _Token) -> int:
    if tok.kind != "number":
        raise FilterError(f"{name}: expected a number, got {tok.text!r}")
    return int(tok.text)


def _bool_arg(name: str, tok: _Token) -> bool:
    if tok.kind != "word" or tok.text.lower() not in ("true", "false"):
        raise FilterError(f"{name}: expected true or false, got {tok.text!r}")
    return tok.text.lower() == "true"


def _op_arg(name: str, tok: _Token) -> str:
    if tok.kind != "op":
        raise FilterError(f"{name}: expected a compare operator, got {tok.text!r}")
    return tok.text


def _arity(name: str, args: list[_Token], *counts: int) -> None:
    if len(args) not in counts:
        expected = " or ".join(str(c) for c in counts)
        raise FilterError(f"{name} takes {expected} arguments, got {len(args)}")


def _build(name: str, args: list[_Token]) -> Filter:
    if name == "PrefixFilter":
        _arity(name, args, 1)
        return PrefixFilter(_bytes_arg(name, args[0]))
    if name == "KeyOnlyFilter":
        _arity(name, args, 0)
        return KeyOnlyFilter()
    if name == "FirstKeyOnlyFilter":
        _arity(name, args, 0)
        return FirstKeyOnlyFilter()
    if name == "ColumnPrefixFilter":
        _arity(name, args, 1)
        return ColumnPrefixFilter(_bytes_arg(name, args[0]))
    if name == "PageFilter":
        _arity(name, args, 1)
        size = _int_arg(name, args[0])
        if size < 0:
            raise FilterError("PageFilter: page size must be >= 0")
        return PageFilter(size)
    if name in ("ValueFilter", "QualifierFilter", "RowFilter"):
        _arity(name, args, 2)
        comparison = Comparison.parse(_op_arg(name, args[0]), _bytes_arg(name, args[1]))
        cls = {
            "ValueFilter": ValueFilter,
            "QualifierFilter": QualifierFilter,
            "RowFilter": RowFilter,
        }[name]
        return cls(comparison)
    if name == "SingleColumnValueFilter":
        _arity(name, args, 4, 6)
        flt = SingleColumnValueFilter(
            _bytes_arg(name, args[0]),
            _bytes_arg(name, args[1]),
            Comparison.parse(_op_arg(name, args[2]), _bytes_arg(name, args[3])),
        )
        if len(args) == 6:
            flt.filter_if_missing = _bool_arg(name, args[4])
            flt.latest_version_only = _bool_arg(name, args[5])
        return flt
    raise FilterError(f"Filter Name {name} not supported")


def parse_filter(source: bytes | str) -> Filter:
    """Parse an HBase filter string; raise :class:`FilterError` if it is bad.

    A filter that keeps no state between rows is parsed once per string and
    shared by every scan that sends it: clients send the same few strings
    over and over (a fan-out's trims, a page's reads), and parsing each
    again for every scan would take the server's one thread from serving
    them. A stateful one (PageFilter, WHILE) is parsed for each scan.
    """
    text = source.decode("latin-1") if isinstance(source, bytes) else source
    flt = _parsed(text)
    return _Parser(text).parse() if flt.stateful else flt


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> Filter:
    return _Parser(text).parse()
