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
    """``data OP operand`` under one of HBase's comparators."""

    op: str
    kind: str
    operand: bytes
    _regex: re.Pattern[bytes] | None = field(default=None, compare=False)

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

    def matches(self, data: bytes) -> bool:
        if self.kind == "binary":
            result = _cmp(data, self.operand)
        elif self.kind == "binaryprefix":
            result = _cmp(data[: len(self.operand)], self.operand)
        elif self.kind == "substring":
            result = 0 if self.operand in data.lower() else 1
        else:
            assert self._regex is not None
            result = 0 if self._regex.search(data) else 1
        return _OPS[self.op](result)


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
    """WHILE: end the scan at the first row the operand would not keep whole."""

    operand: Filter
    stateful = True
    done: bool = False

    def apply(self, row: bytes, cells: Sequence[Cell]) -> list[int] | None:
        if self.done:
            return None
        result = self.operand.apply(row, cells)
        if result is None or len(result) != len(cells):
            self.done = True
            return None
        return result

    @property
    def exhausted(self) -> bool:
        return self.done


def apply_filter(flt: Filter, row: bytes, cells: list[Cell]) -> list[Cell] | None:
    """Cells of ``row`` that ``flt`` keeps, values stripped if it says so."""
    kept = flt.apply(row, cells)
    if not kept:
        return None
    out = [cells[i] for i in kept]
    if flt.strips_values:
        out = [(f, q, ts, b"") for f, q, ts, _ in out]
    return out


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
    if not parts or not all(isinstance(f, (FirstKeyOnlyFilter, KeyOnlyFilter)) for f in parts):
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
    over and over (a fan-out's trims, a page's reads), and parsing them was
    12% of the server's time under a stream of trims' scans (py-spy,
    2026-11-26). A stateful one (PageFilter, WHILE) is parsed for each scan.
    """
    text = source.decode("latin-1") if isinstance(source, bytes) else source
    flt = _parsed(text)
    return _Parser(text).parse() if flt.stateful else flt


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> Filter:
    return _Parser(text).parse()
