"""The notifications page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from feeds import services
from feeds.types import Notification
from feeds.viewhelpers import cursor_param, redirect_to_login

from ._common import me, service_errors
from .mentions import profiles_for

# The session's record of when this browser last opened the notifications
# (a Unix time): what was unread and newer than it shows as new.
SEEN = "notifications_seen"
# The page's tabs (?tab=): each type alone; without one, all of them, which
# is the view that clears the unread count.
TABS = {
    "mention": "Mentions",
    "reply": "Replies",
    "like": "Likes",
    "repost": "Reposts",
    "follow": "Follows",
}


@require_http_methods(["GET", "HEAD"])
@service_errors
def notifications(request: HttpRequest) -> HttpResponse:
    """The signed-in user's notifications, newest first, all of them or
    (``?tab=``) one type; opening the first page of all clears the unread
    count in the top bar, and marks as new the ones that were unread
    (:func:`_new`)."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("notifications"))
    user = me(request)
    cursor = cursor_param(request)
    tab = request.GET.get("tab") or None
    if tab not in TABS:
        tab = None  # an unknown tab shows them all
    page = services.notifications(user.userid, cursor, only=tab)
    new: set[str] = set()
    if cursor is None and tab is None:
        new = _new(request, page.items, services.unread_count(user.userid))
        services.mark_read(user.userid)
        request.session[SEEN] = timezone.now().timestamp()
    context = {
        "page": page,
        "cursor": cursor,
        "me": user,
        "new": new,
        "profiles": profiles_for(n.text for n in page.items),
        "tab": tab,
        "tabs": TABS,
    }
    return render(request, "notifications.html", context)


def _new(request: HttpRequest, items: tuple[Notification, ...], unread: int) -> set[str]:
    """Which of the first page's ``items`` to show as new: none when nothing
    is unread; else, of the newest ``unread`` (the count counts each like of a
    group, so it may reach further than the unread ones), those newer than
    this browser's last look at the page (the session's), if it had one."""
    seen = request.session.get(SEEN)
    return {
        n.id for n in items[:unread] if not isinstance(seen, float) or n.created.timestamp() > seen
    }
