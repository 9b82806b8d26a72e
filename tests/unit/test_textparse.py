"""The twit text parser: a table of the hard cases, Hypothesis for escaping and spans."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feeds.services.textparse import MAX_TAG, entities, hashtags, mentions, render


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hi @ann", [("mention", "ann")]),
        ("@ann, @Bob_2!", [("mention", "ann"), ("mention", "Bob_2")]),
        ("mail ann@example.com", []),
        ("@ab too short", []),
        ("@" + "a" * 21 + " too long", []),
        ("@" + "a" * 20, [("mention", "a" * 20)]),
        ("(@ann)", [("mention", "ann")]),
        ("@ann's cat", [("mention", "ann")]),
        ("#python rocks", [("hashtag", "python")]),
        ("#Café au lait", [("hashtag", "Café")]),
        ("#日本語です", [("hashtag", "日本語です")]),
        ("#123 is a number", []),
        ("#1st place", [("hashtag", "1st")]),
        ("a#b c&#39;d", []),
        ("#" + "x" * MAX_TAG, [("hashtag", "x" * MAX_TAG)]),
        ("#" + "x" * (MAX_TAG + 1), []),
        ("#tag. #tag2,", [("hashtag", "tag"), ("hashtag", "tag2")]),
        ("see https://example.com.", [("link", "https://example.com")]),
        ("(http://x.org/a_(b))", [("link", "http://x.org/a_(b)")]),
        ("(http://x.org/a)", [("link", "http://x.org/a")]),
        ("https://x.org/#frag?q=@ann", [("link", "https://x.org/#frag?q=@ann")]),
        ("ftp://x.org javascript:alert(1)", []),
        ("HTTPS://X.ORG/", [("link", "HTTPS://X.ORG/")]),
        ("http:// nothing", []),
    ],
)
def test_entities_table(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(e.kind, e.value) for e in entities(text)] == expected


def test_lists_are_lowercased_and_unique() -> None:
    text = "#Py #py @Ann @ann #Django"
    assert hashtags(text) == ["py", "django"]
    assert mentions(text) == ["ann"]


def test_render_escapes_and_links() -> None:
    out = render('<script>alert("x")</script> @ann #tag https://e.com/?a=1&b=<2>\nnext')
    assert "<script>" not in out
    assert "&lt;script&gt;" in out
    assert '<a class="twit-mention" href="/u/ann">@ann</a>' in out
    assert '<a class="twit-hashtag" href="/tags/tag">#tag</a>' in out
    assert '<a class="twit-link" href="https://e.com/?a=1&amp;b=" rel="nofollow noopener">' in out
    assert "target=" not in out
    assert out.endswith("<br>next")


def test_a_mention_with_no_profile_to_show_stays_text() -> None:
    out = render("@Ann and @nosuchuser, <b>", profiles=frozenset({"ann"}))
    assert out == '<a class="twit-mention" href="/u/Ann">@Ann</a> and @nosuchuser, &lt;b&gt;'
    assert render("@ann", profiles=frozenset()) == "@ann"
    # Without the set, every mention is a link (a page that did not ask).
    assert render("@nosuchuser") == '<a class="twit-mention" href="/u/nosuchuser">@nosuchuser</a>'


def test_a_link_cannot_break_out_of_its_attribute() -> None:
    out = render('https://e.com/"onmouseover="alert(1) x')
    assert '"onmouseover' not in out


@given(st.text(max_size=200))
def test_render_shows_the_same_text(text: str) -> None:
    """Whatever the text, stripping the markup gives it back exactly: nothing lost or injected."""
    out = render(text)
    plain = html.unescape(re.sub(r"<br>", "\n", re.sub(r"<(?!br>)[^>]*>", "", out)))
    assert plain == text.replace("\r\n", "\n")


@given(st.text(max_size=200))
def test_entities_are_ordered_spans_of_the_text(text: str) -> None:
    last = 0
    for e in entities(text):
        assert last <= e.start < e.end <= len(text)
        assert e.value in text[e.start : e.end]
        last = e.end


def test_a_twit_keeps_its_parsed_mentions_and_hashtags() -> None:
    from datetime import UTC, datetime

    from feeds.types import Twit

    twit = Twit("1", "ann", "Ann", "hi @Bob and @cat_9 #Tea #tea", datetime.now(UTC))
    assert twit.mentions == ["bob", "cat_9"]
    assert twit.hashtags == ["tea"]


def test_a_hashtag_links_to_its_page_under_the_normalised_tag() -> None:
    assert '<a class="twit-hashtag" href="/tags/tea">#TEA</a>' in render("#TEA")
    assert 'href="/tags/strasse">#Straße</a>' in render("#Straße")
    assert 'href="/tags/%E6%97%A5%E6%9C%AC">#日本</a>' in render("#日本")
