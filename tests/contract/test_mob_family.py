"""A MOB column family (HBase 2's medium objects) made through Thrift2: the
same descriptor back from the local server and from HBase 2.6.1.

HBase 2.6's TColumnFamilyDescriptor has no MOB fields; its thrift2 server
copies the descriptor's ``attributes`` into the family
(ThriftUtilities.columnFamilyDescriptorFromThrift, ``builder.setValue``)
and reports the family's values back in the same map
(columnFamilyDescriptorFromHBase), so ``IS_MOB``/``MOB_THRESHOLD`` go
out and come back as attributes. storage/admin.py sends them that way for
the ``media`` table.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hbasethrift.thrift2 import T2
from storage.admin import is_mob, mob_attributes

F = T2.TColumnFamilyDescriptor


@pytest.fixture
def made(t2: Any) -> Iterator[Callable[[list[Any]], Any]]:
    names: list[Any] = []

    def make(columns: list[Any]) -> Any:
        name = T2.TTableName(qualifier=b"mob" + uuid.uuid4().hex[:10].encode())
        t2.createTable(T2.TTableDescriptor(tableName=name, columns=columns), None)
        names.append(name)
        return name

    yield make
    for name in names:
        if t2.tableExists(name):
            t2.disableTable(name)
            t2.deleteTable(name)


def _families(t2: Any, name: Any) -> dict[bytes, Any]:
    return {cd.name: cd for cd in t2.getTableDescriptor(name).columns}


def test_a_mob_family_keeps_its_attributes_and_reports_them_back(
    t2: Any, made: Callable[[list[Any]], Any]
) -> None:
    name = made([F(name=b"i"), F(name=b"m", attributes=mob_attributes(65536))])
    families = _families(t2, name)
    assert families[b"m"].attributes[b"IS_MOB"] == b"true"
    assert families[b"m"].attributes[b"MOB_THRESHOLD"] == b"65536"
    assert is_mob(families[b"m"]) == 65536
    # The plain family next to it is no MOB family, and says nothing of MOB.
    assert b"IS_MOB" not in families[b"i"].attributes
    assert is_mob(families[b"i"]) is None
    # The typed fields are HBase's defaults, MOB or not.
    assert (families[b"m"].maxVersions, families[b"m"].timeToLive) == (1, 2**31 - 1)
    (listed,) = t2.getTableDescriptors([name])
    assert {cd.name: is_mob(cd) for cd in listed.columns} == {b"i": None, b"m": 65536}


def test_cells_of_a_mob_family_read_back_whole_above_and_below_the_threshold(
    t2: Any, made: Callable[[list[Any]], Any]
) -> None:
    name = made([F(name=b"m", attributes=mob_attributes(1024))])
    table = name.qualifier
    big = bytes(range(256)) * 800  # 200 KB, a MOB cell
    small = b"tiny"
    t2.put(
        table,
        T2.TPut(
            row=b"r",
            columnValues=[T2.TColumnValue(b"m", b"big", big), T2.TColumnValue(b"m", b"s", small)],
        ),
    )
    got = {c.qualifier: c.value for c in t2.get(table, T2.TGet(row=b"r")).columnValues}
    assert got == {b"big": big, b"s": small}


def test_a_family_modified_from_its_read_back_descriptor_stays_mob(
    t2: Any, made: Callable[[list[Any]], Any]
) -> None:
    # What storage.admin.modify_family does: read the family, change a field, send it back.
    name = made([F(name=b"m", attributes=mob_attributes(2048))])
    current = _families(t2, name)[b"m"]
    current.maxVersions = 3
    t2.modifyColumnFamily(name, current)
    after = _families(t2, name)[b"m"]
    assert (after.maxVersions, is_mob(after)) == (3, 2048)
    # A family added as MOB is one too.
    t2.addColumnFamily(name, F(name=b"n", attributes=mob_attributes(4096)))
    assert is_mob(_families(t2, name)[b"n"]) == 4096
