"""Compaction reclaims what no read can return: excess versions, expired cells,
deleted cells and, on a major compaction, the delete markers themselves."""

from __future__ import annotations

import time
from pathlib import Path

from localhbase import encoding as enc
from localhbase.store import FamilyDescriptor, Mutation, ReadSpec, Store


def raw_keys(store: Store, table: bytes) -> int:
    prefix = enc.table_prefix(store.table(table).table_id)
    it = store._db.iter()
    it.seek(prefix)
    n = 0
    while it.valid() and it.key().startswith(prefix):
        n += 1
        it.next()
    return n


def test_compaction_reclaims_space_and_keeps_every_visible_cell(tmp_path: Path) -> None:
    store = Store(tmp_path / "db")
    store.create_table(
        b"t", [FamilyDescriptor(b"v", max_versions=2), FamilyDescriptor(b"ttl", time_to_live=1)]
    )
    for ts in range(1, 11):  # 10 versions, 2 kept
        store.mutate_rows(b"t", [(b"r", [Mutation(b"v:q", b"%d" % ts)])], ts)
    old = int(time.time() * 1000) - 60_000
    store.mutate_rows(b"t", [(b"r", [Mutation(b"ttl:q", b"expired")])], old)
    store.mutate_rows(b"t", [(b"gone", [Mutation(b"v:q", b"x")])], 5)
    store.delete_row(b"t", b"gone")
    visible = store.get_rows(b"t", [b"r", b"gone"], ReadSpec(versions=10))
    assert raw_keys(store, b"t") == 10 + 1 + 1 + 2  # puts, plus two family markers

    removed = store.compact(b"t", major=True)

    assert removed == 8 + 1 + 1 + 2
    assert raw_keys(store, b"t") == 2
    assert store.get_rows(b"t", [b"r", b"gone"], ReadSpec(versions=10)) == visible
    store.close()


def test_a_minor_compaction_keeps_delete_markers(tmp_path: Path) -> None:
    store = Store(tmp_path / "db")
    store.create_table(b"t", [FamilyDescriptor(b"v")])
    store.mutate_rows(b"t", [(b"r", [Mutation(b"v:q", b"x")])], 5)
    store.mutate_rows(b"t", [(b"r", [Mutation(b"v:q", isDelete=True)])], 10)
    store.compact(b"t", major=False)
    # The marker still hides a late put at an older timestamp, as in HBase.
    store.mutate_rows(b"t", [(b"r", [Mutation(b"v:q", b"late")])], 7)
    assert store.get_rows(b"t", [b"r"], ReadSpec()) == []
    store.close()


def test_a_hot_counter_keeps_only_the_versions_its_family_keeps(tmp_path: Path) -> None:
    """Each increment is a new version (stamped after the last), so without
    pruning a counter bumped a thousand times a second would hold a
    thousand cells a second until a compaction, all read past by the next
    increment and every get of the row."""
    store = Store(tmp_path / "db")
    store.create_table(
        b"t", [FamilyDescriptor(b"one", max_versions=1), FamilyDescriptor(b"two", max_versions=2)]
    )
    for _ in range(50):
        store.increment(b"t", b"r", b"one:n", 1)
        store.increment_columns(b"t", b"r", [(b"two", b"n", 1)])
        store.append_columns(b"t", b"r", [(b"two", b"s", b"x")])
    assert raw_keys(store, b"t") == 1 + 2 + 2
    assert store.increment(b"t", b"r", b"one:n", 0) == 50
    cells = store.get_rows(b"t", [b"r"], ReadSpec(versions=5))[0][1]
    assert [(f, q, v) for f, q, _, v in cells] == [
        (b"one", b"n", (50).to_bytes(8, "big")),
        (b"two", b"n", (50).to_bytes(8, "big")),
        (b"two", b"n", (49).to_bytes(8, "big")),
        (b"two", b"s", b"x" * 50),
        (b"two", b"s", b"x" * 49),
    ]
    store.close()
