"""Bookmarks on the web: the button on a twit's page that bookmarks it or
removes the bookmark, and the page that lists one's bookmarks, newest
first. Private: nobody else sees them, and the author is not told."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from feeds.services import reactions, twitlists
from feeds.viewhelpers import cursor_param, post_only, redirect_to_login, safe_next

from ._common import login_required, me, on_twit_page, service_errors
from .mentions import profiles_for

_explain = on_twit_page("Bookmark a twit")


@post_only(_explain)
@login_required
@service_errors
def toggle(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
    """Bookmark the twit, or remove the bookmark if it is one; then back."""
    user = me(request).userid
    if reactions.reacted(reactions.BOOKMARK, user, [twit_id]):
        reactions.unbookmark(user, twit_id)
        messages.success(request, "Removed from your bookmarks.")
    else:
        reactions.bookmark(user, twit_id)
        messages.success(request, "Bookmarked: find it under Bookmarks on your account page.")
    return redirect(safe_next(request, reverse("twit", args=[userid, twit_id])))


@service_errors
def bookmarks(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("bookmarks"))
    cursor = cursor_param(request)
    page = twitlists.user_bookmarks(me(request), cursor)
    context = {"page": page, "cursor": cursor, "profiles": profiles_for(t.text for t in page.items)}
    return render(request, "bookmarks.html", context)
