"""The Jinja2 environment of the twit card, the one fragment a page renders
by the dozen (a home page 20 to 100 times, a thread up to 100).

The people list and its follow buttons are here too, as a home page, a
search and a followers page show them by the dozen. The rest of the UI is
Django templates. The card moved to Jinja2 because
its rendering was most of a page's cost: Django's template engine took
about five times as long as Jinja2 for the same 20 cards, and ``{% url %}``
another share (``bench/capacity.py``'s run found the web processes the
limit; docs/benchmarks.md, "Capacity", has the figures). Django templates
include the card through ``{% twit_card %}`` and ``{% avatar %}``, the
people through ``{% people_list %}`` and ``{% follow_button %}``
(feeds/templatetags/ui.py); the views that answer with a fragment alone
(a like, a repost or a follow done in place) render the same files.

The globals and filters below are the Django ones the card used, by the
same names where Jinja2 has none: ``url`` (``reverse``, remembered: a
page names the same few routes for each twit), ``twit_html`` and ``ago``,
``utc_iso``, ``utc_stamp`` (Django's ``date``, for the one format the
card uses), ``hue_class``, ``pluralize``, ``urlencode``,
``truncatechars``.
"""

from __future__ import annotations

import functools
from typing import Any

import jinja2
from django.template import defaultfilters
from django.urls import reverse
from markupsafe import Markup

from feeds.services import textparse
from feeds.templatetags import ui


@functools.lru_cache(maxsize=65536)
def url(name: str, *args: str) -> str:
    """``reverse(name, args=args)``, remembered: the routes do not change
    while the process runs, and a page asks for the same ones again."""
    return reverse(name, args=args)


def twit_html(text: str, profiles: object = None) -> Markup:
    """ui.twit_html: mentions linked only if ``profiles`` (a set) has them,
    every mention when a page gives none."""
    known = profiles if isinstance(profiles, frozenset | set) else None
    return Markup(textparse.render(text, known))


def environment(**options: Any) -> jinja2.Environment:
    env = jinja2.Environment(**options)
    env.globals.update(url=url, twit_html=twit_html)
    env.filters.update(
        ago=ui.ago,
        utc_iso=ui.utc_iso,
        utc_stamp=ui.utc_stamp,
        hue_class=ui.hue_class,
        pluralize=defaultfilters.pluralize,
        urlencode=defaultfilters.urlencode,
        truncatechars=defaultfilters.truncatechars,
    )
    return env
