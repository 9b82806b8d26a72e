"""feeds.jinja.InliningLoader: a literal include is put in place when a
template is loaded, and the HTML is byte for byte what the include gave."""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
import pytest
from django.conf import settings

from feeds import jinja as site_jinja
from feeds.types import QuoteCard, Twit, TwitImage, User

TEMPLATES = Path(settings.BASE_DIR) / "templates" / "jinja2"


def _environments(loader: jinja2.BaseLoader) -> tuple[jinja2.Environment, jinja2.Environment]:
    """The site's environment on ``loader``, and the same without inlining."""
    inlined = site_jinja.environment(loader=loader, autoescape=True)
    plain = jinja2.Environment(loader=loader, autoescape=True)
    plain.globals.update(inlined.globals)
    plain.filters.update(inlined.filters)
    assert isinstance(inlined.loader, site_jinja.InliningLoader)
    return inlined, plain


def _twits() -> list[Twit]:
    at = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    plain = Twit(
        id="a" * 40, userid="ana", name="Ana <b>", text="hi @bob #tea http://x.y/1", created=at
    )
    return [
        plain,
        replace(plain, id="b" * 40, userid="bob", name="Bob", likes=3, liked=True, replies=1),
        replace(plain, id="c" * 40, reposted_by="cat", reposted_by_name="Cat", reposts=2),
        replace(plain, id="d" * 40, reply_to="e" * 40, reply_userid="eve", quotes=4),
        replace(plain, id="f" * 40, edited=1764417600000, reposted=True),
        replace(plain, id="7" * 40, quoted=QuoteCard("6" * 40, "deleted")),
        replace(
            plain,
            id="9" * 40,
            images=(TwitImage("m1", "a cat", 640, 480),),
            quoted=QuoteCard("8" * 40, "shown", "bob", "Bob", "a quoted <i>twit</i>"),
        ),
    ]


CARD_CASES: list[dict[str, Any]] = [
    {"viewer": "ana"},
    {"viewer": "bob", "in_thread": True},
    {"viewer": None},
    {"viewer": "ana", "no_actions": True, "here": "/u/ana"},
    {"viewer": "cat", "is_focus": True, "profiles": {"bob"}, "after_delete": "/"},
]


@pytest.mark.parametrize("given", CARD_CASES, ids=lambda g: ",".join(sorted(g)))
def test_the_site_fragments_render_as_their_includes_did(given: dict[str, Any]) -> None:
    inlined, plain = _environments(jinja2.FileSystemLoader(TEMPLATES))
    at = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    context = {
        "twits": _twits(),
        "csrf_input": '<input type="hidden" name="csrfmiddlewaretoken" value="t">',
        "full_path": "/?page=2&x=<y>",
        "people": [User("ana", "Ana", "a@", at), User("bob", "Bob <b>", "b@", at, avatar=2)],
        "follow_buttons": True,
        "followed": {"bob"},
        "follows_me": {"ana"},
        "twit": _twits()[5],
        **given,
    }
    for twit in context["twits"]:
        html = inlined.get_template("_twit.html").render({**context, "twit": twit})
        assert html == plain.get_template("_twit.html").render({**context, "twit": twit})
    html = inlined.get_template("_people_list.html").render(context)
    assert html == plain.get_template("_people_list.html").render(context)
    assert html.count('class="person"') == 2


def test_what_an_included_template_sets_stays_its_own() -> None:
    sources = {
        "page": (
            '{% set x = "page" %}[{% include "part" %}]{{ x }}'
            '{% for i in [1] %}{% include "part" %}{{ x }}{% endfor %}'
        ),
        "part": '{% set x = "part" %}{{ x }}',
    }
    inlined, plain = _environments(jinja2.DictLoader(sources))
    assert inlined.get_template("page").render() == plain.get_template("page").render()
    assert inlined.get_template("page").render() == "[part]pagepartpage"


def test_includes_it_cannot_put_in_place_are_left_to_jinja2() -> None:
    sources = {
        "page": (
            '{% include name %}|{% include "gone" ignore missing %}|'
            '{% include "part" without context %}|{% include ["gone", "part"] %}'
        ),
        "part": "{{ x | default('none') }}",
    }
    inlined, plain = _environments(jinja2.DictLoader(sources))
    given = {"name": "part", "x": "seen"}
    assert inlined.get_template("page").render(given) == "seen||none|seen"
    assert plain.get_template("page").render(given) == "seen||none|seen"


def test_a_template_that_includes_itself_is_refused_when_loaded() -> None:
    sources = {"a": 'a{% include "b" %}', "b": 'b{% include "a" %}'}
    inlined, _ = _environments(jinja2.DictLoader(sources))
    with pytest.raises(jinja2.TemplateSyntaxError, match="a includes itself: a -> b -> a"):
        inlined.get_template("a")


def test_a_template_is_loaded_again_when_a_file_put_in_it_changes(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text('<{% include "part.html" %}>')
    part = tmp_path / "part.html"
    part.write_text("one")
    inlined = site_jinja.environment(
        loader=jinja2.FileSystemLoader(tmp_path), autoescape=True, auto_reload=True
    )
    assert inlined.get_template("page.html").render() == "<one>"
    part.write_text("two")
    later = part.stat().st_mtime + 1  # a modification time the loader tells apart
    os.utime(part, (later, later))
    assert inlined.get_template("page.html").render() == "<two>"
