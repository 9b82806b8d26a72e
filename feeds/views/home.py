"""The landing page for visitors; for a user, the post box and their home
stream, and the count of twits that arrived since the page was shown."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from feeds import services
from feeds.errors import InvalidInput
from feeds.forms import TwitForm
from feeds.types import User
from feeds.viewhelpers import redirect_to_login

from ._common import FormPage, me, service_errors
from .mentions import profiles_for

# How many users the empty home page suggests following.
SUGGESTIONS = 5


@service_errors
def home(request: HttpRequest) -> HttpResponse:
    """The landing page for visitors; for a user, the post box and their stream.

    A POST posts a twit and redirects back (so a reload does not post again);
    a rejected twit re-renders the page with the text kept and the reason
    next to it: 400 for bad text, 429 over the rate limit.
    """
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(reverse("home"))
        return render(request, "landing.html")
    user = me(request)
    page = FormPage(request, TwitForm(request.POST or None))
    if page.valid:
        try:
            services.post_twit(user, page.form.cleaned_data["text"])
        except (services.RateLimited, InvalidInput) as exc:
            page.refuse(exc)
        else:
            messages.success(request, "Your twit is posted.")
            return redirect("home")
    cursor = page.cursor
    stream = services.home_stream(user, cursor)
    suggestions: list[User] = []
    # On the first page, whoever one follows already: suggestions are ranked
    # by one's follows (services.suggest_follows), so they improve with each.
    if cursor is None:
        suggestions = services.suggest_follows(user.userid, SUGGESTIONS)
    return page.render(
        "home.html",
        {
            "page": stream,
            "profiles": profiles_for(t.text for t in stream.items),
            "cursor": cursor,
            "suggestions": suggestions,
            "live_poll_ms": settings.TWITBASE_LIVE_POLL_MS,
            "trending": services.trending_box(),
        },
    )


@require_http_methods(["GET"])
def stream_new(request: HttpRequest) -> JsonResponse:
    """``GET /stream/new?since=<twit id>``: how many twits arrived in the
    signed-in user's stream above ``since`` (the newest the page shows), as
    ``{"count": n, "more": bool}``; what the home page's banner polls
    (feeds/static/feeds/live.js). 401 when logged out, 400 for a bad id."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "Log in to see your stream."}, status=401)
    try:
        new = services.new_in_stream(me(request), request.GET.get("since") or None)
    except InvalidInput as exc:
        return JsonResponse({"error": str(exc), "field": exc.field}, status=400)
    response = JsonResponse({"count": new.count, "more": new.more, "cap": services.NEW_CAP})
    response["Cache-Control"] = "no-store"
    return response
