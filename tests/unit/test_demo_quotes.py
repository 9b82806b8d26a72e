"""The demo's quotes (services/bulk.py's _plan_quotes): a share of the twits
that reply to none quote an earlier twit of a followee, each counted on the
quoted twit, and the loader writes the rows a posted quote leaves."""

from __future__ import annotations

from feeds.services import bulk, twits
from storage import keys, rows

from .test_demo_plan import _plan


def test_quotes_quote_a_followees_earlier_twit_and_are_counted() -> None:
    demo = _plan()
    quotes = [(i, t) for i, t in enumerate(demo.twits) if t.quoted is not None]
    assert 0.5 * bulk.QUOTE_SHARE * len(demo.twits) < len(quotes)
    for i, t in quotes:
        assert t.quoted is not None and t.parent is None and t.quoted < i
        quoted = demo.twits[t.quoted]
        assert quoted.author in demo.graph[t.author]
        assert demo.stored[i].quote_of == keys.twit_id(quoted.key)
        assert demo.stored[i].quote_userid == bulk.demo_userid(quoted.author)
    for i, t in enumerate(demo.twits):
        assert t.quotes == sum(1 for q in demo.twits if q.quoted == i)


def test_a_demo_quote_has_its_quotes_row_and_counted_mark() -> None:
    demo = _plan()
    i, t = next((i, t) for i, t in enumerate(demo.twits) if t.quoted is not None)
    quoted = demo.twits[t.quoted or 0]
    found = twits.twit_rows(t.key, demo.stored[i], quoted=quoted.key)
    by_table = {table: (key, cells) for table, key, cells, _ in found}
    key, cells = by_table["quotes"]
    assert key == keys.quote_key(quoted.key, t.key)
    assert rows.decode_quote(cells) is not None
    twit_cells = by_table["twits"][1]
    assert twit_cells[rows.QUOTE_COUNTED] == b"1"
    assert twit_cells[rows.QUOTE_OF] == keys.twit_id(quoted.key).encode()
    counted = twits.twit_rows(quoted.key, demo.stored[t.quoted or 0], quotes=3)
    assert rows.decode_twit_counts(_twits_cells(counted))[3] == 3


def _twits_cells(found: list[twits.LoadRow]) -> dict[bytes, bytes]:
    return next(cells for table, _, cells, _ in found if table == "twits")
