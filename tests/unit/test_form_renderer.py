"""feeds.jinja.FormRenderer: the site's form renderer remembers the HTML it
rendered, and what it gives back is what Django's own Jinja2 renderer
renders for the same field, whatever was kept before it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django import forms
from django.forms.renderers import Jinja2, get_default_renderer
from django.utils.functional import lazy
from django.utils.safestring import SafeString, mark_safe

from feeds import forms as site_forms
from feeds.jinja import _UNKEPT, FormRenderer, _frozen

# Every form of the site whose checks are its fields' own (SignupForm's
# clean asks the services whether a userid is free).
FORMS = [
    site_forms.LoginForm,
    site_forms.PasswordForm,
    site_forms.TwitForm,
    site_forms.ImageTwitForm,
    site_forms.ReplyForm,
    site_forms.QuoteForm,
    site_forms.ProfileForm,
    site_forms.AvatarForm,
    site_forms.DeleteAccountForm,
    site_forms.MessageForm,
    site_forms.ListForm,
]

# Unbound; bound and empty (every required field refused, autofocus on the
# first); bound with values, some refused (too long, markup to escape).
DATA: list[dict[str, str] | None] = [
    None,
    {},
    {
        "text": "x" * 300,
        "name": '<b>"Ana"</b>',
        "userid": "ana",
        "password": "hunter2",
        "alt1": "a cat & a dog",
        "description": "d" * 200,
    },
]


def _fields(form: forms.Form) -> list[str]:
    return [str(form[name]) for name in form.fields]


@pytest.mark.parametrize("form_class", FORMS, ids=lambda c: c.__name__)
def test_each_fields_html_is_what_djangos_renderer_gives(form_class: type[forms.Form]) -> None:
    kept, plain = FormRenderer(), Jinja2()
    for data in DATA * 2:  # the second time round, the answers were kept
        for refused in (None, "Slow down."):
            got, wanted = (
                form_class(data=data, renderer=kept),
                form_class(data=data, renderer=plain),
            )
            if refused and data is not None:
                got.add_error(None, refused)
                wanted.add_error(None, refused)
            assert _fields(got) == _fields(wanted)


def test_the_site_renders_its_forms_with_it() -> None:
    assert isinstance(get_default_renderer(), FormRenderer)
    assert isinstance(site_forms.ImageTwitForm().renderer, FormRenderer)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The template names Django's renderer is asked to render from now."""
    asked: list[str] = []
    render: Callable[..., str] = Jinja2.render

    def counted(
        self: Jinja2, template_name: str, context: dict[str, Any], request: Any = None
    ) -> str:
        asked.append(template_name)
        return render(self, template_name, context, request)

    monkeypatch.setattr(Jinja2, "render", counted)
    return asked


def test_a_field_rendered_again_is_not_rendered_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = FormRenderer()
    first = _fields(site_forms.ImageTwitForm(renderer=kept))
    asked = _counting(monkeypatch)
    assert _fields(site_forms.ImageTwitForm(renderer=kept)) == first
    assert asked == []


def test_a_refused_field_shows_its_error_after_the_same_field_was_kept_without_one() -> None:
    kept = FormRenderer()
    clean = str(site_forms.TwitForm(renderer=kept)["text"])
    refused = str(site_forms.TwitForm(data={}, renderer=kept)["text"])
    again = str(site_forms.TwitForm(renderer=kept)["text"])
    assert 'aria-invalid="true"' not in clean
    assert 'aria-invalid="true"' in refused and 'aria-describedby="id_text_error"' in refused
    assert again == clean


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # required as a bare attribute, and as required="1"
        ({"attrs": {"data-x": True}}, {"attrs": {"data-x": 1}}),
        # the attributes in their order
        ({"attrs": {"a": "1", "b": "2"}}, {"attrs": {"b": "2", "a": "1"}}),
        # a value escaped, and one marked safe
        ({"value": "<b>"}, {"value": mark_safe("<b>")}),
    ],
    ids=["true-and-1", "attribute-order", "escaped-and-safe"],
)
def test_inputs_that_render_differently_are_kept_apart(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    kept, plain = FormRenderer(), Jinja2()

    def html(renderer: Jinja2, given: dict[str, Any]) -> str:
        widget = forms.TextInput(attrs=given.get("attrs"))
        return str(widget.render("n", given.get("value"), renderer=renderer))

    for given in (first, second, first):
        assert html(kept, given) == html(plain, given)
    assert html(kept, first) != html(kept, second)


def test_a_context_that_is_not_plain_values_is_rendered_each_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept = FormRenderer()
    form = site_forms.TwitForm(data={}, renderer=kept)
    errors = form.errors["text"]  # an ErrorList: rendered by the renderer, not kept
    asked = _counting(monkeypatch)
    assert str(errors) == str(errors)
    assert len(asked) == 2


def test_the_keys_tell_apart_what_renders_apart() -> None:
    assert _frozen(True) != _frozen(1)
    assert _frozen(0) != _frozen(False)
    assert _frozen("<b>") != _frozen(SafeString("<b>"))
    assert _frozen({"a": "1", "b": "2"}) != _frozen({"b": "2", "a": "1"})
    assert _frozen({"a": True}) != _frozen({"a": 1})
    assert _frozen(["a"]) != _frozen(("a",))
    assert _frozen({"a": {"b": [1, None]}}) == _frozen({"a": {"b": [1, None]}})
    # Lazy text, as it reads when rendered (a language switched, say).
    reads = ["Clear"]
    text = lazy(lambda: reads[0], str)()
    before = _frozen(text)
    reads[0] = "Effacer"
    assert _frozen(text) != before
    assert _frozen({"f": object()}) is _UNKEPT
    assert _frozen([1, [object()]]) is _UNKEPT
    assert _frozen({1: "a"}) is _UNKEPT


def test_at_most_so_many_answers_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FormRenderer, "KEPT", 3)
    kept = FormRenderer()
    for value in ("a", "b", "c", "d"):
        forms.TextInput().render("n", value, renderer=kept)
    asked = _counting(monkeypatch)
    forms.TextInput().render("n", "d", renderer=kept)  # the newest: kept
    forms.TextInput().render("n", "a", renderer=kept)  # the oldest: dropped
    assert len(asked) == 1
