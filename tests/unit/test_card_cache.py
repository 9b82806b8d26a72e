"""The twit cards a process keeps (feeds.templatetags.ui.CARDS): a list of
cards is what each card rendered alone gives, whatever the kept cards were
rendered for before; and a card comes again without being rendered."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.template.context import Context
from django.test import RequestFactory

from feeds.templatetags import ui
from feeds.types import QuoteCard, Twit, TwitImage

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _twits() -> list[Twit]:
    plain = Twit(
        id="a" * 40,
        userid="ana",
        name="Ana <b>",
        text="hi @bob and @carol #tea http://x.y/1",
        created=NOW - timedelta(seconds=90),
    )
    return [
        plain,
        replace(plain, id="b" * 40, userid="bob", name="Bob", likes=3, liked=True, replies=1),
        replace(plain, id="c" * 40, reposted_by="bob", reposted_by_name="Bob", reposts=2),
        replace(plain, id="d" * 40, reply_to="e" * 40, reply_userid="eve", quotes=4),
        replace(plain, id="f" * 40, edited=1764417600000, reposted=True, liked=False),
        replace(plain, id="7" * 40, quoted=QuoteCard("6" * 40, "deleted")),
        replace(
            plain,
            id="9" * 40,
            created=NOW - timedelta(days=400),
            images=(TwitImage("m1", "a cat", 640, 480),),
            quoted=QuoteCard("8" * 40, "shown", "bob", "Bob", "a quoted <i>twit</i>"),
        ),
    ]


# What a page can differ in: the reader (the author, in another case, the
# reposter, two others, nobody), its path, what the including template gives.
VIEWERS = [None, "ana", "Ana", "bob", "carol", "dave"]
PATHS = ["/", "/?cursor=x&y=<z>"]
GIVEN: list[dict[str, Any]] = [
    {},
    {"in_thread": True},
    {"no_actions": True},
    {"here": "/u/ana"},
    {"is_focus": True},
    {"after_delete": "/"},
    {"profiles": frozenset()},
    {"profiles": frozenset({"carol"})},
    {"profiles": frozenset({"bob", "carol"})},
]


def _context(viewer: str | None, path: str) -> Context:
    request = RequestFactory().get(path)
    request.user = SimpleNamespace(userid=viewer, is_authenticated=viewer is not None)
    # Each page's CSRF token is its own, as Django masks it afresh.
    return Context({"request": request, "csrf_token": f"tok{random.random()}"})


def _alone(context: Context, twits: list[Twit], given: dict[str, Any]) -> str:
    return "".join(ui.twit_card(context, t, **given) for t in twits)


@pytest.fixture(autouse=True)
def _cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ui.timezone, "now", lambda: NOW)
    ui.CARDS.clear()


def test_kept_cards_are_each_cards_own_whatever_they_were_kept_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    twits = _twits()
    cases = list(itertools.product(VIEWERS, PATHS, range(len(GIVEN))))
    random.Random(39).shuffle(cases)
    for viewer, path, g in cases * 2:  # the second time round, every card is kept
        context = _context(viewer, path)
        listed = ui.twit_cards(context, twits, **GIVEN[g])
        assert listed == _alone(context, twits, GIVEN[g]), (viewer, path, GIVEN[g])
        if viewer and not GIVEN[g].get("no_actions"):  # the like and repost forms
            assert f'name="csrfmiddlewaretoken" value="{context["csrf_token"]}"' in listed
    # Minutes pass: each card's age reads anew.
    monkeypatch.setattr(ui.timezone, "now", lambda: NOW + timedelta(minutes=3))
    context = _context("carol", "/")
    listed = ui.twit_cards(context, twits)
    assert listed == _alone(context, twits, {}) and ">4m</time>" in listed


def test_a_card_seen_alike_is_rendered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    rendered: list[str] = []
    template = ui._template

    def counted(name: str) -> Any:
        real = template(name)
        return SimpleNamespace(render=lambda values: rendered.append(name) or real.render(values))

    monkeypatch.setattr(ui, "_template", counted)
    twits = _twits()
    ui.twit_cards(_context("carol", "/"), twits)
    assert len(rendered) == len(twits)
    # Another reader who sees them alike, and the first one's next page.
    ui.twit_cards(_context("dave", "/"), twits)
    ui.twit_cards(_context("carol", "/"), twits)
    assert len(rendered) == len(twits)
    # A like changes its card alone; so does the liker's view of it.
    liked = [replace(twits[0], likes=1, liked=True), *twits[1:]]
    ui.twit_cards(_context("carol", "/"), liked)
    assert len(rendered) == len(twits) + 1
