"""The console's reports queue: the subjects users reported, newest first or
most reported first, each with its count and latest reasons, and the
actions on them (dismiss, delete the twit, suspend the account). Thin, as
the rest of the console: feeds.services.console.reports does the work and
writes the audit log."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from feeds.errors import InvalidInput
from feeds.services.console import reports
from feeds.viewhelpers import cursor_param, safe_next

from .views import _confirmed, _page, _staff, staff_only

DONE = {
    "dismiss": "The reports of {what} are dismissed.",
    "delete": "The reported twit is deleted, and its reports closed.",
    "suspend": "@{userid}'s account is suspended, and the reports of {what} closed.",
}


def _what(found: reports.Subject) -> str:
    return f"@{found.userid}'s twit" if found.twit_id else f"@{found.userid}"


@staff_only
def queue(request: HttpRequest) -> HttpResponse:
    """``?tab=newest|most&cursor=``: one page of the open subjects."""
    order = request.GET.get("tab", "newest")
    if order not in reports.ORDERS:
        raise InvalidInput("tab", f"Pick one of: {', '.join(reports.ORDERS)}.")
    cursor = cursor_param(request)
    return _page(
        request,
        "console/reports.html",
        "reports",
        page=reports.queue(order, cursor),
        cursor=cursor,
        tab=order,
    )


@staff_only
def subject(request: HttpRequest, subject_id: str) -> HttpResponse:
    """One subject and every report of it, open or closed."""
    found, listed = reports.subject(subject_id)
    return _page(request, "console/report_subject.html", "reports", subject=found, reports=listed)


@require_POST
@staff_only
def act(request: HttpRequest) -> HttpResponse:
    """POST subject and action. A delete or a suspension shows its
    confirmation page first, as the moderation pages do; a dismissal is
    done at once (the subject comes back with its next report)."""
    subject_id = request.POST.get("subject", "")
    action = request.POST.get("action", "")
    back = safe_next(request, reverse("console:reports"))
    if action != "dismiss" and not _confirmed(request):
        found = reports.check_action(subject_id, action)
        return _page(
            request,
            "console/report_confirm.html",
            "reports",
            subject=found,
            action=action,
            next=back,
        )
    found = reports.act(_staff(request), subject_id, action)
    messages.success(request, DONE[action].format(what=_what(found), userid=found.userid))
    return redirect(back)
