"""The planner of `createtables` (storage/upgrade.py), without a server: what
it creates, adds and changes, that it never drops, and how it reads a TTL of
"forever" as the servers report it."""

from __future__ import annotations

import pytest

from storage.schema import SCHEMA
from storage.upgrade import (
    FOREVER,
    AddFamily,
    ChangeFamily,
    CreateTable,
    Existing,
    Family,
    left_alone,
    needs_thrift2,
    plan,
)

ONE = {"max_versions": 1}
DAY = 24 * 3600
WANTED = {
    "users": {"info": ONE, "c": ONE},
    "tokens": {"k": {"max_versions": 1, "time_to_live": 30 * DAY}},
    "audit": {"a": ONE},
}


def matching(prefix: str = "tw") -> dict[str, dict[str, Family]]:
    """The tables WANTED gives, as a server reports them."""
    return {
        f"{prefix}_{name}": {f: Family.wanted(o) for f, o in families.items()}
        for name, families in WANTED.items()
    }


def test_tables_as_the_schema_says_need_nothing() -> None:
    assert plan(WANTED, matching(), prefix="tw") == []
    assert left_alone(WANTED, matching(), prefix="tw") == []


def test_forever_is_forever_however_a_server_says_it() -> None:
    # HBase reports no TTL as HConstants.FOREVER; zero, negative or above it mean the same.
    for ttl in (None, FOREVER, 0, -1, FOREVER + 1):
        assert Family.found(1, ttl) == Family(1, FOREVER) == Family.wanted(ONE), ttl
    assert Family.found(3, 600) == Family(3, 600)
    assert Family.wanted({}) == Family(1, FOREVER)


def test_a_missing_table_is_created_with_its_regions() -> None:
    existing = matching()
    del existing["tw_users"], existing["tw_audit"]
    assert plan(WANTED, existing, prefix="tw", regions=16) == [
        CreateTable("users", "tw_users", 16),  # keyed by md5(userid): pre-split
        CreateTable("audit", "tw_audit", 1),  # time-first keys: one region
    ]
    assert plan(WANTED, existing, prefix="tw")[0].describe() == "create table tw_users (1 region)"
    assert (
        CreateTable("users", "tw_users", 16).describe(done=True)
        == "created table tw_users (16 regions)"
    )


def test_a_missing_family_is_added() -> None:
    existing = matching()
    del existing["tw_users"]["c"]
    changes = plan(WANTED, existing, prefix="tw")
    assert changes == [AddFamily("tw_users", "c", Family(1, FOREVER))]
    assert changes[0].describe() == "add family c to tw_users"
    assert changes[0].describe(done=True) == "added family c to tw_users"


def test_a_family_whose_ttl_or_versions_differ_is_changed() -> None:
    existing = matching()
    existing["tw_tokens"]["k"] = Family(1, DAY)
    existing["tw_audit"]["a"] = Family(3, 600)
    changes = plan(WANTED, existing, prefix="tw")
    assert changes == [
        ChangeFamily("tw_tokens", "k", Family(1, DAY), Family(1, 30 * DAY)),
        ChangeFamily("tw_audit", "a", Family(3, 600), Family(1, FOREVER)),
    ]
    assert [c.describe() for c in changes] == [
        "change tw_tokens:k TTL 86400 -> 2592000",
        "change tw_audit:a TTL 600 -> forever, max versions 3 -> 1",
    ]
    # Longer TTL: nothing kept goes; fewer versions: older ones do.
    assert [c.drops_cells for c in changes if isinstance(c, ChangeFamily)] == [False, True]
    assert needs_thrift2(changes) == changes


def test_nothing_the_schema_does_not_know_is_dropped_or_touched() -> None:
    existing = matching()
    existing["tw_old"] = {"x": Family(5)}
    existing["tw_users"]["legacy"] = Family(2, 60)
    existing["other_users"] = {"zz": Family(1)}  # another prefix's: not ours at all
    assert plan(WANTED, existing, prefix="tw") == []
    assert left_alone(WANTED, existing, prefix="tw") == ["tw_old", "tw_users:legacy"]


def test_only_the_prefix_s_tables_count() -> None:
    other = matching("other")
    changes = plan(WANTED, other, prefix="tw", regions=4)
    assert [c.table for c in changes] == ["tw_users", "tw_tokens", "tw_audit"]
    assert all(isinstance(c, CreateTable) for c in changes)
    assert needs_thrift2(changes) == []


@pytest.mark.parametrize("regions", [1, 16])
def test_an_empty_server_gets_every_table_of_the_schema(regions: int) -> None:
    empty: Existing = {}
    changes = plan(SCHEMA, empty, prefix="twitbase", regions=regions)
    assert [c.table for c in changes] == [f"twitbase_{name}" for name in SCHEMA]
    assert {c.regions for c in changes if isinstance(c, CreateTable)} == (
        {1} if regions == 1 else {1, 4, 16}  # tagCounts: one region per salt
    )
