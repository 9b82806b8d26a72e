"""Editing one's own twit within 15 minutes of posting, and any twit's
history of texts (what the "edited" mark links to). The service
(feeds/services/twits.py: edit_twit, history) decides and keeps the texts
as HBase cell versions; these pages only show them."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from feeds import services
from feeds.errors import Conflict, Forbidden, InvalidInput
from feeds.forms import TwitForm
from feeds.services import blocks, twits
from feeds.types import from_millis
from feeds.viewhelpers import redirect_to_login

from ._common import FormPage, me, not_found, reader, service_errors


class EditForm(TwitForm):
    """The twit's new text, the old one filled in."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["text"].label = "Its new text"


@require_http_methods(["GET", "HEAD", "POST"])
@service_errors
def edit_twit(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
    """GET: the form with the twit's text; POST: save the new text and go back
    to the twit's page. Only its author, within the window: another's twit
    is 403, a twit past the window (or edited the most times) shows why,
    with the text kept, as 409; a bad text as 400."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    user = me(request)
    found = services.get_twit(twit_id)
    if found.userid.lower() != user.userid.lower():
        raise Forbidden("You can edit only your own twits.")
    if found.userid.lower() != userid.lower():
        return not_found(request)
    page = FormPage(request, EditForm(request.POST or None, initial={"text": found.text}))
    if page.valid:
        try:
            edited = twits.edit_twit(user.userid, twit_id, page.form.cleaned_data["text"])
        except (InvalidInput, Conflict) as exc:
            page.refuse(exc)
        else:
            messages.success(request, "Your twit is edited.")
            return redirect("twit", edited.userid, edited.id)
    context = {"twit": found, "can_edit": twits.editable(found), "limit": twits.EDITS_MAX}
    return page.render("edit_twit.html", context)


@require_http_methods(["GET", "HEAD"])
@service_errors
def twit_history(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
    """The texts the twit has had, newest first, each with its time: one get
    of the twit row's h:text versions."""
    found = services.public_twit(twit_id)
    if found.userid.lower() != userid.lower():
        return not_found(request)
    blocks.refuse_if_blocked_by(found.userid, reader(request))
    versions = [
        {"text": v.text, "at": from_millis(v.at), "current": i == 0, "original": False}
        for i, v in enumerate(twits.history(twit_id))
    ]
    versions[-1]["original"] = True
    return render(request, "twit_history.html", {"twit": found, "versions": versions})
