"""A scan for each row's first cell (FirstKeyOnlyFilter, pushed down) returns
what a full read of the row returns first, whatever its history.

The store answers such a scan from a row's first key when that key is a put
(Store._scan); these rows are made to put every kind of delete marker, a
TTL and an unknown family in front of that path.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from localhbase.encoding import (
    TYPE_DELETE,
    TYPE_DELETE_COLUMN,
    TYPE_DELETE_FAMILY,
    TYPE_DELETE_FAMILY_VERSION,
    TYPE_PUT,
)
from localhbase.store import Edit, FamilyDescriptor, ReadSpec, Store

KINDS = [TYPE_PUT] * 4 + [
    TYPE_DELETE,
    TYPE_DELETE_COLUMN,
    TYPE_DELETE_FAMILY,
    TYPE_DELETE_FAMILY_VERSION,
]


def random_history(rng: random.Random, now: int) -> list[Edit]:
    edits: list[Edit] = []
    for _ in range(rng.randint(1, 6)):
        kind = rng.choice(KINDS)
        family = rng.choice([b"a", b"b", b"ttl"])
        qualifier = (
            b""
            if kind in (TYPE_DELETE_FAMILY, TYPE_DELETE_FAMILY_VERSION)
            else rng.choice([b"", b"p", b"q", b"qq", b"r\x00s", b"z"])
        )
        # Old enough for the TTL family to have expired, or recent.
        ts = rng.choice([1, 2, 3, now - 60_000, now - 1, now])
        edits.append((kind, family, qualifier, ts, b"v%d" % rng.randint(0, 9)))
    return edits


@pytest.mark.parametrize("keys_only", [False, True])
def test_first_cell_scan_matches_the_first_cell_of_a_full_read(
    tmp_path: Path, keys_only: bool
) -> None:
    rng = random.Random(14)
    store = Store(tmp_path / "db")
    families = [FamilyDescriptor(f) for f in (b"a", b"b", b"gone")]
    store.create_table(b"t", [*families, FamilyDescriptor(b"ttl", time_to_live=10)])
    now = int(time.time() * 1000)
    rows = [b"row%03d" % i for i in range(400)] + [b"\x00lead", b"nul\x00mid"]
    for row in rows:
        store.write_edits(b"t", [(row, random_history(rng, now))])
        if rng.random() < 0.1:
            store.write_edits(b"t", [(row, [(TYPE_PUT, b"gone", b"q", 5, b"old")])])
    # A family dropped from the schema leaves no cell a read returns.
    store.set_families(b"t", [f for f in store.table(b"t").families.values() if f.name != b"gone"])

    full = list(store.scan(b"t", spec=ReadSpec()))
    first = list(store.scan(b"t", spec=ReadSpec(first_cell_only=True, keys_only=keys_only)))

    expected = [(row, [(f, q, ts, b"" if keys_only else v)]) for row, ((f, q, ts, v), *_) in full]
    assert first == expected
    # The histories reach every path: rows whose first key is a put, and rows
    # whose first key is a marker or an expired or dropped cell.
    assert 50 < len(first) < len(rows) - 50
    store.close()
