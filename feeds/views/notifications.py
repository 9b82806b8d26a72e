"""The notifications page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from feeds import services
from feeds.viewhelpers import cursor_param, redirect_to_login

from ._common import me, service_errors
from .mentions import profiles_for


@require_http_methods(["GET", "HEAD"])
@service_errors
def notifications(request: HttpRequest) -> HttpResponse:
    """The signed-in user's notifications, newest first; opening the first
    page clears the unread count in the top bar."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("notifications"))
    user = me(request)
    cursor = cursor_param(request)
    page = services.notifications(user.userid, cursor)
    if cursor is None:
        services.mark_read(user.userid)
    context = {
        "page": page,
        "cursor": cursor,
        "me": user,
        "profiles": profiles_for(n.text for n in page.items),
    }
    return render(request, "notifications.html", context)
