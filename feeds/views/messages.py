"""Direct messages on the web: the inbox (``/messages``), a conversation
with its send box (``/messages/<userid>``), and what their live updates poll.
Opening a conversation marks it read, as the API's first page does."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from feeds.errors import Forbidden, InvalidInput
from feeds.forms import MessageForm
from feeds.services import messages
from feeds.services.ratelimit import RateLimited
from feeds.viewhelpers import cursor_param, redirect_to_login

from ._common import FormPage, me, service_errors


@require_http_methods(["GET", "HEAD"])
@service_errors
def inbox(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("messages"))
    cursor = cursor_param(request)
    page = messages.inbox(me(request).userid, cursor)
    context = {
        "page": page,
        "cursor": cursor,
        "unread": messages.unread_total(me(request).userid),
        "live_poll_ms": settings.TWITBASE_LIVE_POLL_MS,
    }
    return render(request, "messages.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
@service_errors
def conversation(request: HttpRequest, userid: str) -> HttpResponse:
    """The conversation, newest first, and the send box. A POST sends and
    redirects back (a reload sends nothing again); a refused message
    re-renders the page with the text kept and the reason (400, 403)."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("conversation", args=[userid]))
    user = me(request)
    page = FormPage(request, MessageForm(request.POST or None))
    if page.valid:
        try:
            messages.send(user, userid, page.form.cleaned_data["text"])
        except (InvalidInput, Forbidden, RateLimited) as exc:
            page.refuse(exc)
        else:
            return redirect("conversation", userid)
    other, found = messages.conversation(user, userid, page.cursor)
    context = {
        "other": other,
        "page": found,
        # Oldest at the top, as a chat reads; the page is still newest first.
        "shown": tuple(reversed(found.items)),
        "cursor": page.cursor,
        "live_poll_ms": settings.TWITBASE_LIVE_POLL_MS,
    }
    return page.render("conversation.html", context)


@require_http_methods(["GET"])
def conversation_new(request: HttpRequest, userid: str) -> JsonResponse:
    """``GET /messages/<userid>/new?since=<message id>``: how many messages
    came after the newest the page shows, ``{"count": n, "more": bool}``,
    what the conversation's live banner polls (feeds/static/feeds/live.js)."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "Log in to read your messages."}, status=401)
    try:
        count, more = messages.new_in_conversation(
            me(request).userid, userid, request.GET.get("since") or None
        )
    except InvalidInput as exc:
        return JsonResponse({"error": str(exc), "field": exc.field}, status=400)
    response = JsonResponse({"count": count, "more": more, "cap": messages.NEW_CAP})
    response["Cache-Control"] = "no-store"
    return response


@require_http_methods(["GET"])
def unread_new(request: HttpRequest) -> JsonResponse:
    """``GET /messages/-/unread?since=<unread shown>``: how many more messages are
    unread than the inbox showed, for the inbox's live banner."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "Log in to read your messages."}, status=401)
    try:
        since = int(request.GET.get("since") or 0)
    except ValueError:
        return JsonResponse({"error": "since is a count", "field": "since"}, status=400)
    total = messages.unread_total(me(request).userid)
    response = JsonResponse({"count": max(0, total - since), "more": False})
    response["Cache-Control"] = "no-store"
    return response
