"""The local server's cluster id lives in its RocksDB directory: the same
after a restart, different for another directory, as HBase's hbase.id."""

from __future__ import annotations

import uuid
from pathlib import Path

from localhbase.store import Store


def test_cluster_id_survives_a_restart_and_is_per_directory(tmp_path: Path) -> None:
    store = Store(tmp_path / "a")
    first = store.cluster_id()
    store.close()
    store = Store(tmp_path / "a")
    assert store.cluster_id() == first
    store.close()
    assert str(uuid.UUID(first)) == first

    other = Store(tmp_path / "b")
    assert other.cluster_id() != first
    other.close()
