"""The account page and its forms: change the password, change or remove
the avatar, and delete the account."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from feeds import auth, services
from feeds.errors import InvalidInput, ServiceError
from feeds.forms import AvatarForm, DeleteAccountForm, PasswordForm, add_service_error
from feeds.services import avatars
from feeds.viewhelpers import Explain, post_only, redirect_to_login

from ._common import FormPage, login_required, me


def account(request: HttpRequest) -> HttpResponse:
    """Change the password (which logs out every other session and token),
    or log out everywhere."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("account"))
    page = FormPage(request, PasswordForm(request.POST or None))
    if page.valid:
        data = page.form.cleaned_data
        try:
            services.change_password(
                me(request).userid,
                data["current_password"],
                data["new_password"],
                auth.session_id(request),
            )
        except ServiceError as exc:
            page.refuse(exc)
        else:
            messages.success(
                request, "Your password is changed. Every other session and API token is ended."
            )
            return redirect("account")
    return page.render("account.html", {"avatar_form": AvatarForm()})


def _explain_account(what: str) -> Explain:
    def explain(request: HttpRequest) -> dict[str, object]:
        return {
            "heading": f"{what} on your account page",
            "reason": "This takes the form on your account page.",
            "link": reverse("account"),
            "link_label": "Go to your account",
        }

    return explain


@post_only(_explain_account("Change your avatar"))
@login_required
def avatar_upload(request: HttpRequest) -> HttpResponse:
    """The account page's upload (multipart). A refused file shows why, 400
    (429 with Retry-After over the uploads allowed a minute); the avatar
    stays as it was."""
    form = AvatarForm(request.POST, request.FILES)
    status, retry_after = 400, None
    if form.is_valid():
        upload = form.cleaned_data["avatar"]
        try:
            # One byte over the limit is enough for the service to refuse it.
            services.set_avatar(me(request).userid, upload.read(avatars.MAX_BYTES + 1))
        except services.RateLimited as exc:
            add_service_error(form, exc)
            status, retry_after = exc.status, exc.retry_after
        except InvalidInput as exc:
            add_service_error(form, exc)
        else:
            messages.success(request, "Your avatar is changed.")
            return redirect("account")
    context = {"form": PasswordForm(), "avatar_form": form}
    response = render(request, "account.html", context, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


@post_only(_explain_account("Remove your avatar"))
@login_required
def avatar_remove(request: HttpRequest) -> HttpResponse:
    services.remove_avatar(me(request).userid)
    messages.success(request, "Your avatar is removed: your initial shows instead.")
    return redirect("account")


@require_http_methods(["GET", "HEAD", "POST"])
def delete_account(request: HttpRequest) -> HttpResponse:
    """GET: what deleting the account takes away, and the form (the
    password) that does it; POST: delete it and log out. A wrong password is
    a 400 with the form kept; too many from this session, 429."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("delete_account"))
    user = me(request)
    page = FormPage(request, DeleteAccountForm(request.POST or None))
    if page.valid:
        try:
            services.delete_account(
                user.userid, page.form.cleaned_data["password"], auth.session_id(request)
            )
        except (InvalidInput, services.RateLimited) as exc:
            page.refuse(exc)
        else:
            auth.logout(request)
            messages.info(request, f"Your account @{user.userid} is deleted. Goodbye!")
            return redirect("home")
    return page.render("delete_account.html", {"me": user})
