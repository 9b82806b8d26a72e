"""The read-time merge of a list's timeline (lists.merge_newest), against
its reference: every source's rows sorted together, paged by cursor. No
server: the sources are lists in memory."""

from __future__ import annotations

import random

import pytest

from feeds.services.lists import Fetch, Fetched, merge_newest


def _sources(rng: random.Random, n: int) -> list[list[Fetched[str]]]:
    out = []
    for i in range(n):
        times = sorted(rng.sample(range(1000), rng.choice([0, 1, 3, 10, 40])))
        rows = []
        for t in times:
            order = t.to_bytes(4, "big") + bytes([i])
            dropped = rng.random() < 0.1  # a row with no twit
            rows.append(
                Fetched(bytes([i]) + t.to_bytes(4, "big"), order, None if dropped else f"{i}:{t}")
            )
        out.append(rows)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_pages_equal_the_sorted_union(seed: int) -> None:
    rng = random.Random(seed)
    sources = _sources(rng, rng.choice([0, 1, 2, 5, 20]))
    every = sorted((f for s in sources for f in s if f.item is not None), key=lambda f: f.order)
    limit = rng.choice([1, 2, 7, 20])

    def fetch(wanted: list[Fetch]) -> list[list[Fetched[str]]]:
        return [[f for f in sources[w.source] if f.key >= w.start][: w.count] for w in wanted]

    got: list[str] = []
    after = None
    while True:
        items, last = merge_newest(len(sources), after, limit, fetch)
        got += items
        if last is None:
            break
        assert len(items) == limit
        after = last
    assert got == [f.item for f in every]


def test_a_first_page_reads_few_rows_of_many_sources() -> None:
    rng = random.Random(1)
    sources = [
        [
            Fetched(bytes([i]) + t.to_bytes(4, "big"), t.to_bytes(4, "big") + bytes([i]), "x")
            for t in sorted(rng.sample(range(100_000), 200))
        ]
        for i in range(20)
    ]
    read = 0

    def fetch(wanted: list[Fetch]) -> list[list[Fetched[str]]]:
        nonlocal read
        answers = [[f for f in sources[w.source] if f.key >= w.start][: w.count] for w in wanted]
        read += sum(len(a) for a in answers)
        return answers

    items, last = merge_newest(20, None, 20, fetch)
    assert len(items) == 20 and last is not None
    # A merge that read limit + 1 rows of every member would read 420.
    assert read < 120, read
