"""The "Report" page: a user reports a twit or an account to the staff,
with a reason from the list and a few words if they like. A GET shows the
form and what is reported; a POST reports it (once: a second report of the
same thing before staff deal with it changes nothing) and goes back."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from feeds import services
from feeds.errors import ServiceError
from feeds.forms import SiteForm
from feeds.services import reports
from feeds.viewhelpers import redirect_to_login

from ._common import FormPage, me, service_errors

REASON_LABELS = {
    "spam": "Spam: ads, scams, the same thing over and over",
    "abuse": "Abuse: harassment, threats, hate",
    "other": "Something else",
}


class ReportForm(SiteForm):
    focus = "reason"

    reason = forms.ChoiceField(
        label="Why?",
        choices=[(r, REASON_LABELS[r]) for r in reports.REASONS],
        widget=forms.RadioSelect,
    )
    # Trimmed and length-checked by the service, which says so in its words.
    text = forms.CharField(
        label="Anything staff should know (optional)",
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": reports.TEXT_MAX}),
        help_text=f"At most {reports.TEXT_MAX} characters.",
    )


def _report(
    request: HttpRequest, back: str, what: dict[str, object], twit_id: str | None, userid: str
) -> HttpResponse:
    page = FormPage(request, ReportForm(request.POST or None))
    if page.valid:
        data = page.form.cleaned_data
        try:
            reports.report(
                me(request),
                twit_id=twit_id,
                userid=None if twit_id else userid,
                reason=data["reason"],
                text=data["text"],
            )
        except ServiceError as exc:
            page.refuse(exc)
        else:
            messages.success(request, "Thank you: the report is with the staff.")
            return redirect(back)
    return page.render("report.html", {"back": back, **what})


@service_errors
def report_twit(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
    """Report a twit (not one's own: the service refuses it on the form)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    twit = services.public_twit(twit_id)
    back = reverse("twit", args=[twit.userid, twit.id])
    return _report(request, back, {"twit": twit}, twit.id, twit.userid)


@service_errors
def report_user(request: HttpRequest, userid: str) -> HttpResponse:
    """Report an account (not one's own)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    user = services.public_user(userid)
    back = reverse("profile", args=[user.userid])
    return _report(request, back, {"user": user}, None, user.userid)
