"""The account page and its forms: edit the profile (display name, bio,
avatar), change the password, and delete the account."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from feeds import auth, failures, services
from feeds.errors import InvalidInput, ServiceError
from feeds.forms import (
    AvatarForm,
    DeleteAccountForm,
    PasswordForm,
    ProfileForm,
    add_service_error,
    avatar_size_error,
)
from feeds.services import avatars
from feeds.types import User
from feeds.viewhelpers import post_only, redirect_to_login

from ._common import FormPage, form_on, login_required, me

# The account page's query parameter naming an avatar upload refused for its
# size before it was read: the declared size in bytes.
AVATAR_TOO_LARGE = "avatar_too_large"


def _profile_form(user: User) -> ProfileForm:
    return ProfileForm(initial={"name": user.name, "bio": user.bio})


def _avatar_form(request: HttpRequest) -> AvatarForm:
    """The avatar form, with the size error of an upload refused unread."""
    form = AvatarForm()
    size = request.GET.get(AVATAR_TOO_LARGE, "")
    if size.isdigit() and int(size) > avatars.MAX_BYTES:
        form.cleaned_data = {}  # what add_error trims, on a form never bound
        form.add_error("avatar", avatar_size_error(int(size)))
    return form


def account(request: HttpRequest) -> HttpResponse:
    """Edit the profile; change the password (which logs out every other
    session and token), or log out everywhere."""
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
    return page.render(
        "account.html",
        {"avatar_form": _avatar_form(request), "profile_form": _profile_form(me(request))},
    )


_explain_account = form_on("your account page", "account", "Go to your account")


@post_only(_explain_account("Edit your profile"))
@login_required
def profile_update(request: HttpRequest) -> HttpResponse:
    """The account page's display name and bio, through the same service as
    the API's updateProfile; on success, the profile as
    others see it. A refused change keeps what was typed with the reason on
    its field, 400 (409 if the account changed meanwhile)."""
    user = me(request)
    form = ProfileForm(request.POST)
    status = 400
    if form.is_valid():
        try:
            data = form.cleaned_data
            services.update_profile(user.userid, data["name"], data["bio"])
        except ServiceError as exc:
            add_service_error(form, exc)
            status = exc.status
        else:
            messages.success(request, "Your profile is saved.")
            return redirect("profile", user.userid)
    context = {"form": PasswordForm(), "avatar_form": AvatarForm(), "profile_form": form}
    return render(request, "account.html", context, status=status)


def _avatar_too_large(request: HttpRequest, size: int) -> HttpResponse:
    """An upload larger than any request the site reads: back to the form,
    the error on its field, without reading the file."""
    return redirect(f"{reverse('account')}?{AVATAR_TOO_LARGE}={size}#avatar")


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
    context = {
        "form": PasswordForm(),
        "avatar_form": form,
        "profile_form": _profile_form(me(request)),
    }
    response = render(request, "account.html", context, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


setattr(avatar_upload, failures.TOO_LARGE_ANSWER, _avatar_too_large)


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
