"""The "Muted and blocked" page: the accounts one blocks and mutes, each
with its undo button, and the muted words and hashtags, with a form to add
one. Blocking and muting an account are buttons on its profile
(:mod:`.people`)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from feeds.errors import ServiceError
from feeds.forms import SiteForm
from feeds.services import blocking, blocks
from feeds.viewhelpers import post_only, redirect_to_login

from ._common import FormPage, form_on, login_required, me

SHOWN = 100  # accounts of each list on the page


class MuteWordForm(SiteForm):
    # Trimmed and checked by the service, which says so in its words.
    word = forms.CharField(
        label="Mute a word, phrase or #hashtag",
        strip=False,
        widget=forms.TextInput(attrs={"maxlength": blocks.WORD_MAX, "autocomplete": "off"}),
        help_text="Twits that contain it as whole words, in any case, leave your home stream "
        "and notifications. “tea” also hides #tea; “#tea” only the hashtag.",
    )


def _render(page: FormPage) -> HttpResponse:
    userid = me(page.request).userid
    return page.render(
        "muted.html",
        {
            "words": blocks.muted_words(userid),
            "muted_people": blocks.muted(userid, limit=SHOWN),
            "blocked_people": blocks.blocked(userid, limit=SHOWN),
            "words_max": blocks.MUTED_WORDS_MAX,
        },
    )


def muted(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("muted"))
    return _render(FormPage(request, MuteWordForm()))


_explain = form_on("the Muted and blocked page", "muted", "Go to Muted and blocked")


@post_only(_explain("Mute a word"))
@login_required
def mute_word(request: HttpRequest) -> HttpResponse:
    """Add a muted word; a refused one stays in the box with the reason, 400."""
    page = FormPage(request, MuteWordForm(request.POST))
    if page.valid:
        try:
            word = blocking.mute_word(me(request), page.form.cleaned_data["word"])
        except ServiceError as exc:
            page.refuse(exc)
        else:
            messages.success(request, f"You muted “{word}”.")
            return redirect("muted")
    return _render(page)


@post_only(_explain("Unmute a word"))
@login_required
def unmute_word(request: HttpRequest) -> HttpResponse:
    word = request.POST.get("word", "")
    try:
        changed = blocking.unmute_word(me(request), word)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        if changed:
            messages.success(request, f"You unmuted “{' '.join(word.split())}”.")
    return redirect("muted")
