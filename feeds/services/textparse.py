"""Mentions, hashtags and links in a twit's text, found once, here, for every page and the API.

Written by hand with ``re``: the maintained parsers (twitter-text) have no current Python port, and
our rules are short and ours: a mention is a valid userid (``accounts.USERID_RE``) after ``@`` that
does not follow a word character (so ``ann@example.com`` is not a mention); a hashtag is ``#``
and up to ``MAX_TAG`` unicode word characters, not all digits, not following a word character
or ``&`` (so ``&#39;`` and ``a#b`` are not tags); a link is ``http://`` or
``https://`` up to whitespace, with trailing punctuation left out unless it closes a bracket
the link opened.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from html import escape  # what django.utils.html.escape calls, without its lazy-string wrapper
from typing import Literal
from urllib.parse import quote

from django.utils.safestring import SafeString, mark_safe

MAX_TAG = 100
MAX_USERID = 20

Kind = Literal["mention", "hashtag", "link"]

_LINK = re.compile(r"(?<![\w@])https?://[^\s<>\"]+", re.IGNORECASE)
_MENTION = re.compile(r"(?<![\w@./])@([A-Za-z0-9_]+)(?![\w@])")
_HASHTAG = re.compile(r"(?<![\w&#/])#(\w+)")
_TRAILING = ".,;:!?'\"*"
_CLOSERS = {")": "(", "]": "[", "}": "{"}


@dataclass(frozen=True)
class Entity:
    kind: Kind
    start: int
    end: int
    # The userid (as typed), the tag (as typed, without '#') or the URL.
    value: str


def _trim_link(url: str) -> str:
    while url:
        last = url[-1]
        if last in _TRAILING or (last in _CLOSERS and url.count(last) > url.count(_CLOSERS[last])):
            url = url[:-1]
        else:
            break
    return url


@functools.lru_cache(maxsize=4096)
def entities(text: str) -> tuple[Entity, ...]:
    """The mentions, hashtags and links of ``text``, in order, never overlapping (a '#' or '@'
    inside a link is part of the link). Remembered for the last few thousand texts: a web
    process renders the same twits on many readers' pages."""
    found: list[Entity] = []
    for m in _LINK.finditer(text):
        url = _trim_link(m.group())
        if len(url) > len("https://") and "://" in url and url.split("://", 1)[1]:
            found.append(Entity("link", m.start(), m.start() + len(url), url))

    def free(start: int, end: int) -> bool:
        return all(end <= e.start or start >= e.end for e in found)

    for m in _MENTION.finditer(text):
        userid = m.group(1)
        if 3 <= len(userid) <= MAX_USERID and free(m.start(), m.end()):
            found.append(Entity("mention", m.start(), m.end(), userid))
    for m in _HASHTAG.finditer(text):
        tag = m.group(1)
        if is_tag(tag) and free(m.start(), m.end()):
            found.append(Entity("hashtag", m.start(), m.end(), tag))
    return tuple(sorted(found, key=lambda e: e.start))


def mentions(text: str) -> list[str]:
    """The userids mentioned, lowercased as userids compare, first mention first, each once."""
    seen: dict[str, None] = {}
    for e in entities(text):
        if e.kind == "mention":
            seen.setdefault(e.value.lower(), None)
    return list(seen)


def normalise_tag(tag: str) -> str:
    """A tag as pages, keys and counters know it: Unicode NFKC (so a full-width
    or composed spelling is the same tag), then case-folded (``str.casefold``:
    #Tea, #TEA and #tea are one tag; so are #Straße and #STRASSE)."""
    return unicodedata.normalize("NFKC", tag).casefold()


_TAG_ONLY = re.compile(r"\w+")


def is_tag(tag: str) -> bool:
    """Whether ``tag`` (without its '#') is what :func:`entities` finds as a hashtag."""
    return (
        bool(_TAG_ONLY.fullmatch(tag))
        and len(tag) <= MAX_TAG
        and not tag.replace("_", "").isdigit()
        and bool(tag.strip("_"))
    )


def hashtags(text: str) -> list[str]:
    """The hashtags, normalised (:func:`normalise_tag`, a tag's key), first first, each once."""
    seen: dict[str, None] = {}
    for e in entities(text):
        if e.kind == "hashtag":
            seen.setdefault(normalise_tag(e.value), None)
    return list(seen)


def tag_url(tag: str) -> str:
    """The hashtag page of ``tag`` (any case): /tags/<normalised tag>, percent-encoded."""
    return "/tags/" + quote(normalise_tag(tag), safe="")


def _link(e: Entity, profiles: Collection[str] | None) -> str:
    shown = escape(e.value if e.kind == "link" else text_of(e))
    if e.kind == "link":
        return f'<a class="twit-link" href="{escape(e.value)}" rel="nofollow noopener">{shown}</a>'
    if e.kind == "mention":
        if profiles is not None and e.value.lower() not in profiles:
            return shown  # no profile to show: a link would lead to a 404
        return f'<a class="twit-mention" href="/u/{escape(e.value)}">{shown}</a>'
    return f'<a class="twit-hashtag" href="{escape(tag_url(e.value))}">{shown}</a>'


def text_of(e: Entity) -> str:
    return ("@" if e.kind == "mention" else "#") + e.value


def render(text: str, profiles: Collection[str] | None = None) -> SafeString:
    """``text`` as HTML: every piece escaped first, entities as links, newlines as <br>.

    ``profiles``: the lower-cased userids a mention may link to (see
    accounts.profiles_among); any other mention stays text. None links every
    mention."""
    out: list[str] = []
    at = 0
    for e in entities(text):
        out.append(escape(text[at : e.start]))
        out.append(_link(e, profiles))
        at = e.end
    out.append(escape(text[at:]))
    html = "".join(out).replace("\r\n", "\n").replace("\n", "<br>")
    return mark_safe(html)  # every piece above went through escape()


WORD_MIN = 2  # characters of an indexed word: one letter finds too much
WORD_MAX = 40  # longer is not a word anyone searches for
WORDS_MAX = 60  # a twit's distinct words indexed (280 characters hold fewer)
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The words a twit is found by, first first, each once: runs of letters,
    digits and underscores outside links, normalised as tags are (NFKC, then
    case-folded), of WORD_MIN to WORD_MAX characters. A hashtag's word is
    its tag ("#Tea" is found by "tea"), a mention's its userid."""
    plain = _LINK.sub(" ", text)
    seen: dict[str, None] = {}
    for m in _WORD.finditer(unicodedata.normalize("NFKC", plain)):
        word = m.group().casefold()
        if WORD_MIN <= len(word) <= WORD_MAX:
            seen.setdefault(word, None)
            if len(seen) == WORDS_MAX:
                break
    return list(seen)
