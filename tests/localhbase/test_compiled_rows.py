"""The compiled row reads (localhbase/_rows.pyx) return what the store's
Python reads return, whatever the row's history and whatever the read asks.

Two stores hold the same random histories: puts, delete markers of all four
kinds, versions beyond the family's, an expired TTL, a dropped family, NUL
bytes in rows and qualifiers. Each read (scans both ways, gets of many rows,
and a major compaction) runs on one store with the compiled reader and on the
other with ``localhbase.store._rows`` taken away, and the answers are compared.
The contract suite holds the compiled path to real HBase besides.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from localhbase import encoding as enc
from localhbase import store as store_module
from localhbase.encoding import TYPE_PUT
from localhbase.store import Cell, FamilyDescriptor, ReadSpec, Store
from tests.localhbase.test_first_cell_scan import random_history

if store_module._rows is None:
    pytest.skip("localhbase._rows is not built", allow_module_level=True)

ROWS = [b"row%03d" % i for i in range(150)] + [b"\x00lead", b"nul\x00mid", b"nul"]


def make_store(path: Path, seed: int, now: int) -> Store:
    rng = random.Random(seed)
    store = Store(path)
    families = [FamilyDescriptor(b"a", max_versions=3), FamilyDescriptor(b"b", max_versions=1)]
    gone = FamilyDescriptor(b"gone")
    store.create_table(b"t", [*families, gone, FamilyDescriptor(b"ttl", time_to_live=10)])
    for row in ROWS:
        store.write_edits(b"t", [(row, random_history(rng, now))])
        store.write_edits(b"t", [(row, random_history(rng, now))])
        if rng.random() < 0.1:
            store.write_edits(b"t", [(row, [(TYPE_PUT, b"gone", b"q", 5, b"old")])])
    # A family dropped from the schema leaves no cell a read returns.
    store.set_families(b"t", [f for f in store.table(b"t").families.values() if f != gone])
    return store


def random_spec(rng: random.Random, now: int) -> ReadSpec:
    times = [0, 1, 2, 3, 4, now - 60_000, now - 1, now, now + 1]
    columns = rng.choice(
        [
            None,
            {b"a": None},
            {b"a": frozenset({b"q"}), b"b": None},
            {b"b": frozenset({b"", b"r\x00s"}), b"ttl": None},
            # Columns with others between them, and families after the
            # last asked for: where a get seeks from column to column.
            {b"a": frozenset({b"p", b"r\x00s", b"z"})},
            {b"b": frozenset({b"qq", b"z"})},
            {b"a": frozenset({b"q"}), b"b": frozenset({b"p", b"zz"})},
        ]
    )
    family_ranges = rng.choice([None, {b"a": (2, now)}, {b"b": (0, None), b"ttl": (now - 1, None)}])
    first = rng.random() < 0.25
    return ReadSpec(
        columns=columns,
        max_ts=rng.choice([None, None, *times]),
        versions=rng.choice([1, 2, 3, 5, 2**31 - 1]),
        min_ts=rng.choice([0, 0, *times]),
        family_ranges=family_ranges,
        first_cell_only=first,
        keys_only=first and rng.random() < 0.5,
    )


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    now = int(time.time() * 1000)
    compiled = make_store(tmp_path / "compiled", 7, now)
    python = make_store(tmp_path / "python", 7, now)
    yield compiled, python
    compiled.close()
    python.close()


def python_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "_rows", None)


def reads(
    store: Store, spec: ReadSpec, start: bytes, stop: bytes, wanted: list[bytes]
) -> list[list[tuple[bytes, list[Cell]]]]:
    """A scan each way between two rows, and a get of many rows."""
    return [
        list(store.scan(b"t", start, stop, spec)),
        list(store.scan(b"t", stop, start, spec, reverse=True)),
        store.get_rows(b"t", wanted, spec),
    ]


def test_scans_and_gets_match_the_python_reads(
    stores: tuple[Store, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled, python = stores
    rng = random.Random(14)
    now = int(time.time() * 1000)
    cells_seen = 0
    for _ in range(300):
        spec = random_spec(rng, now)
        start = rng.choice([b"", b"row050", b"nul"])
        stop = rng.choice([b"", b"row100", b"row999"])
        wanted = [*rng.sample(ROWS, 20), b"missing"]
        got = reads(compiled, spec, start, stop, wanted)
        with monkeypatch.context() as m:
            python_reads(m)
            assert got == reads(python, spec, start, stop, wanted), spec
        cells_seen += sum(len(cells) for rows in got for _, cells in rows)
    assert cells_seen > 10_000


def test_a_major_compaction_keeps_what_the_python_reads_keep(
    stores: tuple[Store, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled, python = stores
    removed = compiled.compact(b"t")
    with monkeypatch.context() as m:
        python_reads(m)
        assert python.compact(b"t") == removed
        everything = ReadSpec(versions=2**31 - 1)
        expected = list(python.scan(b"t", spec=everything))
    assert removed > 0
    assert list(compiled.scan(b"t", spec=everything)) == expected


def test_the_compiled_scan_reads_at_its_first_row_not_at_its_call(tmp_path: Path) -> None:
    """As the store's own generator: a scanner opened before a write and read
    after it sees the write (the iterator is taken at the first row)."""
    store = Store(tmp_path / "db")
    store.create_table(b"t", [FamilyDescriptor(b"a")])
    rows = store.scan(b"t")
    store.write_edits(b"t", [(b"r", [(TYPE_PUT, b"a", b"q", 5, b"v")])])
    assert list(rows) == [(b"r", [(b"a", b"q", 5, b"v")])]
    store.close()


def test_gets_which_seek_past_columns_return_what_scans_return(
    stores: tuple[Store, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gets seek past a column once it has given what the read may take
    (Store._collect_row's ``seek_columns``); scans step through every key.
    Over the random histories both return the same cells for a row."""
    compiled, python = stores
    rng = random.Random(27)
    now = int(time.time() * 1000)
    for store, compiled_reads in ((compiled, True), (python, False)):
        with monkeypatch.context() as m:
            if not compiled_reads:
                python_reads(m)
            for _ in range(100):
                spec = random_spec(rng, now)
                scanned = dict(store.scan(b"t", spec=spec))
                wanted = [*rng.sample(ROWS, 30), b"missing"]
                expected = [(row, scanned[row]) for row in wanted if row in scanned]
                assert store.get_rows(b"t", wanted, spec) == expected, (compiled_reads, spec)


class _CountingIter:
    """A RocksDB iterator that counts its steps and seeks."""

    def __init__(self, it: Any) -> None:
        self.it, self.steps, self.seeks = it, 0, 0
        self.valid, self.key, self.value = it.valid, it.key, it.value

    def next(self) -> None:
        self.steps += 1
        self.it.next()

    def seek(self, key: bytes) -> None:
        self.seeks += 1
        self.it.seek(key)


@pytest.mark.parametrize("compiled_reads", [True, False])
def test_a_get_seeks_past_a_columns_hidden_versions_where_a_scan_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled_reads: bool
) -> None:
    if not compiled_reads:
        python_reads(monkeypatch)
    store = Store(tmp_path / "db")
    store.create_table(b"t", [FamilyDescriptor(b"a", max_versions=1)])
    history = [(TYPE_PUT, b"a", b"n", ts, b"%d" % ts) for ts in range(1, 501)]
    store.write_edits(b"t", [(b"r", [*history, (TYPE_PUT, b"a", b"z", 7, b"last")])])
    info = store.table(b"t")
    pre = enc.row_prefix(info.table_id, b"r")
    expected = [(b"a", b"n", 500, b"500"), (b"a", b"z", 7, b"last")]
    counts = {}
    for seek_columns in (True, False):
        it = _CountingIter(store._db.iter())
        it.seek(pre)
        reader = store._row_reader(info, ReadSpec(), it, 10**13, seek_columns=seek_columns)
        assert reader(pre) == expected
        counts[seek_columns] = (it.steps, it.seeks - 1)
    assert counts[True] == (0, 2), "a seek past each column, no step"
    assert counts[False] == (501, 0)
    store.close()


@pytest.mark.parametrize("compiled_reads", [True, False])
def test_a_get_of_named_columns_seeks_straight_to_them_and_stops_after_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled_reads: bool
) -> None:
    """As HBase's explicit column tracker: a get that names its columns
    seeks past a family it does not ask for, from one column it asks for to
    the next (past those between), and is done with the row after the last.
    A page asks one flag of each author's users row, whose counters and
    profile columns it then never reads."""
    if not compiled_reads:
        python_reads(monkeypatch)
    store = Store(tmp_path / "db")
    store.create_table(b"t", [FamilyDescriptor(b"c"), FamilyDescriptor(b"i")])
    counters = [(TYPE_PUT, b"c", b"n%d" % i, 5, b"%d" % i) for i in range(50)]
    named = (b"a", b"b", b"d", b"e", b"f", b"h", b"k")
    profile = [(TYPE_PUT, b"i", q, 5, q.upper()) for q in named]
    store.write_edits(b"t", [(b"r", [*counters, *profile])])
    info = store.table(b"t")
    pre = enc.row_prefix(info.table_id, b"r")
    spec = ReadSpec(columns={b"i": frozenset({b"d", b"h", b"z"})})
    it = _CountingIter(store._db.iter())
    it.seek(pre)
    reader = store._row_reader(info, spec, it, 10**13, seek_columns=True)
    assert reader(pre) == [(b"i", b"d", 5, b"D"), (b"i", b"h", 5, b"H")]
    # Past c; from i:a to i:d; from i:d to i:h; from i:h to i:z, which
    # lands past the row. Stepping, it would have read all 57 keys.
    assert (it.steps, it.seeks - 1) == (0, 4)
    # The store's get, which starts at family i, and a scan, which steps
    # through every key, return the same.
    expected = [(b"r", [(b"i", b"d", 5, b"D"), (b"i", b"h", 5, b"H")])]
    assert store.get_rows(b"t", [b"r"], spec) == expected
    assert list(store.scan(b"t", spec=spec)) == expected
    # Asked for i:a alone, the get is done at i:a: no seek past it.
    it = _CountingIter(store._db.iter())
    it.seek(pre + enc.esc(b"i"))
    alone = ReadSpec(columns={b"i": frozenset({b"a"})})
    reader = store._row_reader(info, alone, it, 10**13, seek_columns=True)
    assert reader(pre) == [(b"i", b"a", 5, b"A")]
    assert (it.steps, it.seeks - 1) == (0, 0)
    store.close()
