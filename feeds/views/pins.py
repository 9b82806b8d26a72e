"""Pinning a twit on top of one's profile, from the twit's own page: one
button that pins it, or unpins it when it is the one pinned."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from feeds.services import pins
from feeds.viewhelpers import post_only

from ._common import login_required, me, on_twit_page, service_errors

_explain = on_twit_page("Pin a twit")


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
