"""Quotes on the web: the Quote page (a composer with the card of the twit
being quoted, which posts a twit that quotes it) and the page that lists a
twit's quotes, newest first. The card each quote shows comes from the
hydrate step (feeds/services/hydration.py), as everywhere twits are listed."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from feeds import services
from feeds.errors import Forbidden, InvalidInput, NotFound
from feeds.forms import QuoteForm
from feeds.services import blocks, twitlists
from feeds.types import QuoteCard
from feeds.viewhelpers import cursor_param, redirect_to_login

from ._common import FormPage, me, not_found, reader, service_errors
from .mentions import profiles_for


@require_http_methods(["GET", "HEAD", "POST"])
@service_errors
def quote(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
    """GET: a composer with the card of the twit to quote; POST: post the
    twit that quotes it, then go to the new twit's page. A refusal (the
    twit deleted meanwhile, a block, the rate limit, the text) re-renders
    the composer with the reason and the text kept."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    found = services.public_twit(twit_id)
    if found.userid.lower() != userid.lower():
        return not_found(request)
    blocks.refuse_if_blocked_by(found.userid, reader(request))
    page = FormPage(request, QuoteForm(request.POST or None))
    if page.valid:
        try:
            posted = services.post_twit(
                me(request), page.form.cleaned_data["text"], quote_of=found.id
            )
        except (services.RateLimited, InvalidInput, Forbidden, NotFound) as exc:
            page.refuse(exc)
        else:
            messages.success(request, "Your quote is posted.")
            return redirect("twit", posted.userid, posted.id)
    card = QuoteCard(found.id, "shown", found.userid, found.name, found.text)
    return page.render(
        "quote.html", {"quoted": found, "card": card, "profiles": profiles_for([found.text])}
    )


@service_errors
def quotes(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
    """The twits that quote a twit, newest first, paged (404 unless
    ``userid`` is its author)."""
    found = services.public_twit(twit_id)
    if found.userid.lower() != userid.lower():
        return not_found(request)
    cursor = cursor_param(request)
    page = twitlists.quotes(found.id, cursor, reader=reader(request))
    context = {
        "quoted": found,
        "page": page,
        "cursor": cursor,
        "profiles": profiles_for(t.text for t in page.items),
        "back": reverse("twit", args=[found.userid, found.id]),
    }
    return render(request, "quotes.html", context)
