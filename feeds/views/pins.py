"""Pinning a twit on top of one's profile, from the twit's own page: one
button that pins it, or unpins it when it is the one pinned."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from feeds.services import pins
from feeds.viewhelpers import post_only

from ._common import login_required, me, service_errors


def _explain(request: HttpRequest, userid: str, twit_id: str) -> dict[str, object]:
    return {
        "heading": "Pin a twit from its page",
        "reason": "To pin one of your twits on your profile, use the button on the twit's page.",
        "link": reverse("twit", args=[userid, twit_id]),
        "link_label": "Go to the twit",
    }


@post_only(_explain)
@login_required
@service_errors
def pin(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
    """Pin the twit (the signed-in user's own: the service refuses others'),
    or unpin it if it is the one pinned; then to the profile, where it shows."""
    user = me(request)
    if user.pinned == twit_id:
        pins.unpin(user.userid)
        messages.success(request, "Unpinned: your profile shows your twits newest first.")
    else:
        pins.pin(user.userid, twit_id)
        messages.success(request, "Pinned: your profile shows this twit first.")
    return redirect("profile", user.userid)
