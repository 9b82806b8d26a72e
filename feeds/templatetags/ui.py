"""Template filters of the web UI: short relative times, UTC timestamps and avatar colours;
and of the staff console: durations, and the tag that frames its tables."""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Callable, Hashable, Iterable
from datetime import UTC, datetime
from typing import Any, NamedTuple

from django import template
from django.http import HttpRequest
from django.template.base import FilterExpression, NodeList, Parser, Token
from django.template.context import Context
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.timesince import timesince
from markupsafe import Markup

from feeds.services import textparse
from feeds.services._kept import Kept
from feeds.types import Twit

register = template.Library()

# A scale of times: (below this many seconds, how to show them), shortest first.
Scale = tuple[tuple[float, Callable[[float], str]], ...]


def on_scale(seconds: float, scale: Scale) -> str | None:
    """``seconds`` as the first row of ``scale`` it is below shows it; None
    when it is beyond the scale's last row."""
    for below, show in scale:
        if seconds < below:
            return show(seconds)
    return None


AGE: Scale = (
    (5, lambda s: "now"),
    (60, lambda s: f"{int(s)}s"),
    (3600, lambda s: f"{int(s // 60)}m"),
    (86400, lambda s: f"{int(s // 3600)}h"),
)


@register.filter
def ago(when: datetime, now: datetime | None = None) -> str:
    """A twit's age as a stream shows it: "now", "42s", "5m", "3h", "Mar 4",
    or "Mar 4, 2024" for another year. A time in the future (a clock a little
    ahead of ours) reads as "now"."""
    now = now or timezone.now()
    recent = on_scale(int((now - when).total_seconds()), AGE)
    if recent is not None:
        return recent
    local = timezone.localtime(when)
    if local.year == timezone.localtime(now).year:
        return f"{local:%b} {local.day}"
    return f"{local:%b} {local.day}, {local.year}"


@register.filter
def since(when: datetime, now: datetime | None = None) -> str:
    """How long ago ``when`` was, in words: "just now" under a minute (where
    Django's timesince says "0 minutes"), else "5 minutes ago", "2 hours,
    3 minutes ago"."""
    now = now or timezone.now()
    if (now - when).total_seconds() < 60:
        return "just now"
    return f"{timesince(when, now)} ago"


@register.filter
def utc_iso(when: datetime) -> str:
    """``when`` in UTC, ISO 8601 to the millisecond with a Z, as a <time
    datetime> attribute wants it and every browser's Date parses it."""
    utc = when.astimezone(UTC)
    return utc.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@register.filter
def utc_stamp(when: datetime) -> str:
    """``when`` in UTC as a card's title says it, "4 Mar 2026, 09:05": what
    Django's ``date:"j M Y, H:i"`` gives in UTC, made directly, as a page
    asks it of every card and Django's DateFormat took a tenth of a home
    page's time for it."""
    utc = when.astimezone(UTC)
    return f"{utc.day} {_MONTHS[utc.month - 1]} {utc.year}, {utc.hour:02d}:{utc.minute:02d}"


# The month abbreviations of Django's "M" (English: USE_I18N is off), not
# strftime's %b, which follows the process's locale.
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@register.filter
def hue(userid: str) -> int:
    """A colour (0-359) that is the same for a user on every page and every
    machine, and the same whatever the case of the userid, as userids are."""
    return int.from_bytes(hashlib.md5(userid.lower().encode()).digest()[:2], "big") % 360


# Avatar colours come in steps of this many degrees: one CSS class each
# (.hue-0 to .hue-35 in site.css), as the Content-Security-Policy forbids
# inline style attributes.
HUE_STEP = 10


@register.filter
def hue_class(userid: str) -> str:
    """The avatar colour class of ``userid``: "hue-0" to "hue-35"."""
    return f"hue-{hue(userid) // HUE_STEP}"


def _hours(seconds: float) -> str:
    hours, minutes = divmod(int(seconds) // 60, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


SPAN: Scale = (
    (10, lambda s: f"{s:.1f} s"),
    (120, lambda s: f"{int(s)} s"),
    (3600, lambda s: f"{int(s // 60)} min"),
    (86400, _hours),
)


@register.filter
def duration(seconds: float) -> str:
    """A span of time, short: "0.4 s", "42 s", "5 min", "3 h 5 min", "2 days"."""
    short = on_scale(seconds, SPAN)
    if short is not None:
        return short
    days = int(seconds // 86400)
    return f"{days} day{'s' if days != 1 else ''}"


@register.filter
def millis(ms: float) -> str:
    """Milliseconds, short: "85 ms", "1.2 s", "2 min"."""
    return f"{ms:,.0f} ms" if ms < 1000 else duration(ms / 1000)


class DataTableNode(template.Node):
    def __init__(self, rows: FilterExpression, empty: FilterExpression, inner: NodeList) -> None:
        self.rows, self.empty, self.inner = rows, empty, inner

    def render(self, context: Context) -> str:
        if not self.rows.resolve(context):
            return format_html('<p class="empty">{}</p>', self.empty.resolve(context))
        return format_html(
            '<div class="table-wrap">\n<table class="data">{}</table>\n</div>',
            self.inner.render(context),
        )


@register.tag
def datatable(parser: Parser, token: Token) -> DataTableNode:
    """``{% datatable rows "Why there are none." %}<thead>…<tbody>…{% enddatatable %}``:
    a console table, scrolling sideways on a narrow screen, or, when ``rows``
    is empty, the sentence instead."""
    bits = token.split_contents()
    if len(bits) != 3:
        raise template.TemplateSyntaxError(f"{bits[0]} takes the rows and the empty sentence")
    inner = parser.parse(("enddatatable",))
    parser.delete_first_token()
    return DataTableNode(parser.compile_filter(bits[1]), parser.compile_filter(bits[2]), inner)


@register.filter
def twit_text(text: str) -> SafeString:
    """A twit's text with its mentions, hashtags and links marked up; escaped first."""
    return textparse.render(text)


@register.simple_tag(takes_context=True)
def twit_html(context: Context, text: str) -> SafeString:
    """:func:`twit_text`, with a mention a link only if the page's
    ``profiles`` (views.mentions.profiles_for) has its userid; a page that
    sets none links every mention."""
    profiles = context.get("profiles")
    known = profiles if isinstance(profiles, frozenset | set) else None
    return textparse.render(text, known)


# The twit card, the avatar and the people list are Jinja2 (feeds/jinja.py
# says why); the tags below include them in Django templates, with what they
# read from the including template's context.
_CARD_CONTEXT = ("no_actions", "in_thread", "is_focus", "after_delete", "here", "profiles")


def _card_context(context: Context, given: dict[str, object]) -> dict[str, object]:
    """The names in _CARD_CONTEXT, each as given to the tag or else as the
    including template has it."""
    return {name: given.get(name, context.get(name)) for name in _CARD_CONTEXT}


def _jinja(name: str, context: Context, values: dict[str, object]) -> SafeString:
    """Jinja2's ``name`` rendered with ``values``, the request and the
    including template's CSRF token. The token is the page's, masked once:
    the Jinja2 backend's own ``render`` would mask it again for each card
    (32 random characters each time, a tenth of a page's time)."""
    html: str = _template(name).render({**values, **_page_values(context)._asdict()})
    return mark_safe(html)  # rendered by Jinja2, autoescaping


def _template(name: str) -> Any:
    """Jinja2's template ``name`` itself (not the backend's wrapper)."""
    from django.template import engines

    return engines["jinja2"].get_template(name).template  # type: ignore[attr-defined]


class _Page(NamedTuple):
    """What every fragment is given of its page, under the names it reads."""

    request: HttpRequest | None
    csrf_input: str
    viewer: str | None  # the reader's userid; None for a visitor
    full_path: str  # the page's path with its query


def _page_values(context: Context) -> _Page:
    """The page's values (:class:`_Page`), looked up in ``context``."""
    request = context.get("request")
    viewer, full_path = _reader_of(request)
    return _Page(request, _csrf_input_of(context), viewer, full_path)


def _csrf_input_of(context: Context) -> str:
    """The page's CSRF field, made once per page: the token is a lazy object
    whose every use goes through its proxy, and a page includes some thirty
    fragments. Held on the request, beside the token it was made from."""
    token = context.get("csrf_token")
    if not token:
        return ""
    request = context.get("request")
    held: tuple[object, str] | None = getattr(request, "_card_csrf", None)
    if held is None or held[0] is not token:
        field = format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', token)
        held = (token, field)
        if request is not None:
            request._card_csrf = held
    return held[1]


def _reader_of(request: HttpRequest | None) -> tuple[str | None, str]:
    """Who reads the page (their userid; None for a visitor) and its path
    with the query, once per request: ``request.user`` is a lazy object whose
    every attribute is a call through its proxy, and a card asked for them
    some twenty times (a tenth of a home page's time)."""
    if request is None:
        return None, ""
    held: tuple[str | None, str] | None = getattr(request, "_card_reader", None)
    if held is None:
        user = getattr(request, "user", None)
        userid = user.userid if user is not None and user.is_authenticated else None
        held = (userid, request.get_full_path())
        request._card_reader = held  # type: ignore[attr-defined]
    return held


@register.simple_tag(takes_context=True)
def twit_card(context: Context, twit: object, **given: object) -> SafeString:
    """``{% twit_card twit [in_thread=...] [is_focus=True] ... %}``: the
    card (templates/jinja2/_twit.html), as ``{% include "_twit.html" %}``
    showed it: the names in _CARD_CONTEXT come from the including context
    unless given."""
    return _jinja("_twit.html", context, {"twit": twit, **_card_context(context, given)})


@register.simple_tag(takes_context=True)
def twit_cards(context: Context, twits: Iterable[Twit], **given: object) -> SafeString:
    """``{% twit_cards twits [in_thread=...] ... %}``: each of ``twits`` as
    :func:`twit_card` shows it, the page's values looked up once for the
    list (a page's twenty cost twenty trips through Django's tag and the
    context lookups above), and each card rendered once for everything it
    shows (``CARDS``)."""
    card = _card_context(context, given)
    page = _page_values(context)
    values = {**card, **page._asdict(), "csrf_input": _CSRF_MARK}
    template = None
    parts = []
    for twit in twits:
        key: Hashable | None = _card_key(twit, page.viewer, page.full_path, card)
        try:
            html = CARDS.get(key)
        except TypeError:  # a twit holding something unhashable: rendered each time
            key, html = None, None
        if html is None:
            template = template or _template("_twit.html")
            html = template.render({**values, "twit": twit})
            if key is not None:
                CARDS.keep(key, html)
        parts.append(html)
    # Rendered by Jinja2, autoescaping; the mark is in no text (see _CSRF_MARK).
    return mark_safe("".join(parts).replace(_CSRF_MARK, page.csrf_input))


# The cards this process rendered, each under everything that can make it
# read otherwise (_card_key), at most so many, the oldest dropped first. A
# home page's twenty cards took a fourth of its web process's CPU (issue
# 39), and the same card comes again: on the reader's next page, and on
# each follower's who sees it alike. Exact by construction, as the form
# fields kept by feeds.jinja.FormRenderer: a like, a repost, a reply, an
# edit or the minutes passing change the key, and the old card is never
# asked for again.
CARDS: Kept[str] = Kept(4096, lambda: math.inf)

# Where a card's CSRF field goes, kept without the page's: the field is
# the page's token, masked afresh for each page, and would make every
# card a new one. Random for the process, so no twit's text can hold it
# (texts are escaped, and a user cannot guess it).
_CSRF_MARK = Markup(f"<!--csrf:{secrets.token_hex(16)}-->")


def _card_key(twit: Twit, viewer: str | None, full_path: str, card: dict[str, object]) -> Hashable:
    """Everything templates/jinja2/_twit.html (with what it includes) reads,
    as the card shows it: the twit (every field: text, counts, the reader's
    flags, images, the quoted card), its age as shown, the page's path, the
    names in _CARD_CONTEXT, and of the reader only what the card asks of
    them: whether there is one, whether they wrote or reposted the twit
    (so that one card serves every follower who sees it alike). Of the
    page's ``profiles``, those the twit mentions."""
    profiles = card["profiles"]
    known = profiles if isinstance(profiles, frozenset | set) else None
    linked = (
        None if known is None else frozenset(m for m in textparse.mentions(twit.text) if m in known)
    )
    return (
        twit,
        ago(twit.created),
        viewer is not None,
        viewer == twit.userid,
        (viewer or "").lower() == twit.userid.lower(),
        viewer == twit.reposted_by,
        full_path,
        card["no_actions"],
        card["in_thread"],
        card["is_focus"],
        card["after_delete"],
        card["here"],
        linked,
    )


@register.simple_tag(takes_context=True)
def avatar(
    context: Context, userid: str, name: str, big: bool = False, version: object = None
) -> SafeString:
    """``{% avatar userid name big version %}``: templates/jinja2/_avatar.html."""
    values = {"userid": userid, "name": name, "big": big, "version": version}
    return _jinja("_avatar.html", context, values)


@register.simple_tag(takes_context=True)
def people_list(
    context: Context, people: object, follow_buttons: bool = False, next: str | None = None
) -> SafeString:
    """``{% people_list people follow_buttons next %}``:
    templates/jinja2/_people_list.html, with the page's ``followed`` and
    ``follows_me`` (sets of lower-cased userids) from the including context."""
    values = {
        "people": people,
        "follow_buttons": follow_buttons,
        "next": next,
        "followed": context.get("followed"),
        "follows_me": context.get("follows_me"),
    }
    return _jinja("_people_list.html", context, values)


@register.simple_tag(takes_context=True)
def follow_button(
    context: Context, userid: str, follows: bool, next: str | None = None
) -> SafeString:
    """``{% follow_button userid follows [next] %}``: templates/jinja2/_follow_button.html,
    the button a profile shows (a people list's come with it)."""
    values = {"userid": userid, "follows": follows, "next": next, "in_place": False}
    return _jinja("_follow_button.html", context, values)


@register.simple_tag(takes_context=True)
def quote_card(context: Context, card: object) -> SafeString:
    """``{% quote_card card %}``: templates/jinja2/_quote_card.html, the card
    of a quoted twit (types.QuoteCard) as the twit card shows it."""
    return _jinja("_quote_card.html", context, {"card": card})


@register.simple_tag(takes_context=True)
def composer(context: Context, action: str, label: str, button: str, **given: object) -> SafeString:
    """``{% composer action label button [section_id=...] [replying_to=...]
    [extra_class=...] [in_place=True] %}``: templates/jinja2/_composer.html,
    for the including template's ``form`` (an ImageTwitForm shows its image
    slots)."""
    values = {"form": context.get("form"), "action": action, "label": label, "button": button}
    return _jinja("_composer.html", context, {**values, **given})


@register.simple_tag(takes_context=True)
def form_errors(context: Context) -> SafeString:
    """``{% form_errors %}``: templates/jinja2/_form_errors.html, the
    including template's ``form``'s errors about the whole of it."""
    return _jinja("_form_errors.html", context, {"form": context.get("form")})


@register.simple_tag(takes_context=True)
def topbar(context: Context) -> SafeString:
    """``{% topbar %}``: templates/jinja2/_topbar.html, every page's top bar
    and a phone's tab bar, with the unread counts of the context processors
    (feeds.viewhelpers; called only if the bar shows them)."""
    values = {name: context.get(name) for name in ("unread_notifications", "unread_messages")}
    return _jinja("_topbar.html", context, values)
