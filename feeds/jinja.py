"""The Jinja2 environment of the twit card, the one fragment a page renders
by the dozen (a home page 20 to 100 times, a thread up to 100).

The people list and its follow buttons are here too, as a home page, a
search and a followers page show them by the dozen; and the two parts
every home page renders around its cards: the composer (with a form's
errors, which other forms share) and the top bar. The rest of the UI is
Django templates. The card moved to Jinja2 because
its rendering was most of a page's cost: Django's template engine took
about five times as long as Jinja2 for the same 20 cards, and ``{% url %}``
another share (``bench/capacity.py``'s run found the web processes the
limit; docs/benchmarks.md, "Capacity", has the figures). Django templates
include the card through ``{% twit_card %}`` and ``{% avatar %}``, the
people through ``{% people_list %}`` and ``{% follow_button %}``, the
others through ``{% composer %}``, ``{% form_errors %}`` and
``{% topbar %}`` (feeds/templatetags/ui.py); the views that answer with a
fragment alone (a like, a repost or a follow done in place) render the
same files.

The globals and filters below are the Django ones the card used, by the
same names where Jinja2 has none: ``url`` (``reverse``, remembered: a
page names the same few routes for each twit), ``twit_html`` and ``ago``,
``utc_iso``, ``utc_stamp`` (Django's ``date``, for the one format the
card uses), ``hue_class``, ``pluralize``, ``urlencode``,
``truncatechars``.

The fragments include one another (the card its avatar, its like and
repost forms), and each include is put in place when a template is loaded
(``InliningLoader`` says why). A list of cards is each card, kept once
rendered under everything it shows (feeds.templatetags.ui.CARDS).

Form fields are rendered by Jinja2 too (``FormRenderer``, settings'
``FORM_RENDERER``), and what it rendered is remembered: see its docstring.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable, MutableMapping
from typing import Any

import jinja2
from django.forms.renderers import Jinja2 as Jinja2Renderer
from django.http import HttpRequest
from django.template import defaultfilters
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.safestring import SafeString
from jinja2 import nodes
from jinja2.visitor import NodeTransformer
from markupsafe import Markup

from feeds.services import textparse
from feeds.services._kept import Kept
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


class InliningLoader(jinja2.BaseLoader):
    """``loader``'s templates, each ``{% include "name" %}`` of a literal
    name replaced by the template it names, in a scope of its own (what it
    sets stays its own, as an include's does), when the template is loaded.

    An include costs, each time it runs, a lookup of the template and a new
    context copied from the includer's. The card includes its avatar, its
    like and repost forms (the views that answer a like in place render
    those alone), and a list of cards included the card: those includes
    were more than half of rendering a page's cards (20 cards, in one
    process: 5.2 ms, 2.5 ms inlined). Macros cost more still (the card's
    three as macros: 7.4 against 6.8 ms for 20 cards), and Jinja2 has no
    way to inline an include when it compiles, so this does it to the
    parsed template: each fragment stays one file, rendered alone or in
    place.

    A template is up to date while every file put into it is. An error in
    a fragment put in place names the includer's file, at the line of the
    fragment's own.

    ``load`` is overridden, which jinja2 advises against for loaders that
    others wrap: this one wraps others, and is wrapped by none.
    """

    def __init__(self, loader: jinja2.BaseLoader) -> None:
        self.loader = loader

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        return self.loader.get_source(environment, template)

    def list_templates(self) -> list[str]:
        return self.loader.list_templates()

    def load(
        self,
        environment: jinja2.Environment,
        name: str,
        globals: MutableMapping[str, Any] | None = None,
    ) -> jinja2.Template:
        inliner = _Inliner(environment, self.loader)
        tree, filename = inliner.parsed(name)
        code = environment.compile(tree, name, filename)
        uptodate = inliner.uptodate
        return environment.template_class.from_code(
            environment,
            code,
            {} if globals is None else globals,
            lambda: all(u() for u in uptodate),
        )


class _Inliner(NodeTransformer):
    """Parses a template and puts its literal includes in place, recursively;
    ``uptodate``: the up-to-date checks of every file read."""

    def __init__(self, environment: jinja2.Environment, loader: jinja2.BaseLoader) -> None:
        self.environment = environment
        self.loader = loader
        self.uptodate: list[Callable[[], bool]] = []
        self._open: list[str] = []

    def parsed(self, name: str) -> tuple[nodes.Template, str | None]:
        if name in self._open:
            raise jinja2.TemplateSyntaxError(
                f"{name} includes itself: {' -> '.join([*self._open, name])}", 1, name
            )
        source, filename, uptodate = self.loader.get_source(self.environment, name)
        if uptodate is not None:
            self.uptodate.append(uptodate)
        self._open.append(name)
        try:
            tree = self.visit(self.environment.parse(source, name, filename))
        finally:
            self._open.pop()
        return tree, filename

    def visit_Include(self, node: nodes.Include) -> nodes.Node:
        named = node.template
        if (
            not isinstance(named, nodes.Const)
            or not isinstance(named.value, str)
            or node.ignore_missing
            or not node.with_context
        ):
            return node
        tree, _ = self.parsed(named.value)
        return nodes.Scope(tree.body, lineno=node.lineno)


def environment(**options: Any) -> jinja2.Environment:
    options["loader"] = InliningLoader(options["loader"])
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


class FormRenderer(Jinja2Renderer):
    """Django's Jinja2 form renderer, remembering the HTML it rendered.

    A widget's HTML is a function of its template and its context alone
    (name, value, attributes, required), and a page renders the same ones
    again and again: the home page's composer has nine fields, and Django
    took about a tenth of a millisecond for each, a tenth of the page. So an
    answer is kept under the template's name and its context made hashable
    (:func:`_frozen`), when the context holds plain values only; any other is
    rendered each time, as is one rendered for a request. What is kept is
    exact by construction: the same key is the same input to the same
    template. At most ``KEPT`` answers, the oldest dropped first (a bound
    form's value, what a user typed, is part of its key)."""

    KEPT = 2048

    def __init__(self) -> None:
        self._rendered: Kept[str] = Kept(self.KEPT, lambda: math.inf)

    def render(
        self, template_name: str, context: dict[str, Any], request: HttpRequest | None = None
    ) -> str:
        key = _frozen(context) if request is None else _UNKEPT
        if key is _UNKEPT:
            return str(super().render(template_name, context, request))
        html = self._rendered.get((template_name, key))
        if html is None:
            html = str(super().render(template_name, context, request))
            self._rendered.keep((template_name, key), html)
        return html


_UNKEPT = object()
_SCALARS = frozenset((str, SafeString, int, float, bool, type(None)))


def _frozen(value: object) -> Hashable:
    """``value`` as a key that tells apart every input a template could
    render differently: each scalar with its type (True and 1 are equal
    keys, but render ``required`` and ``required="1"``; a SafeString is not
    escaped), dicts in their order (the attributes' order is the HTML's),
    lazy text as it reads in the language active now. _UNKEPT if it holds
    anything else (an error list, a file), which is then not kept."""
    kind = type(value)
    if kind in _SCALARS:
        return (kind, value)
    if kind is dict:
        items: list[tuple[object, ...]] = []
        for k, v in value.items():  # type: ignore[attr-defined]
            if type(k) is not str:
                return _UNKEPT
            vkind = type(v)
            if vkind in _SCALARS:  # most are: said inline, a third of the time
                items.append((k, vkind, v))
            else:
                frozen = _frozen(v)
                if frozen is _UNKEPT:
                    return _UNKEPT
                items.append((k, frozen))
        return (dict, tuple(items))
    if kind is list or kind is tuple:
        frozen_items = tuple(_frozen(v) for v in value)  # type: ignore[attr-defined]
        return _UNKEPT if any(f is _UNKEPT for f in frozen_items) else (kind, frozen_items)
    if isinstance(value, Promise):
        return (Promise, str(value))
    return _UNKEPT
