"""Getting into an account and keeping it: the password reset pages (ask
for a link by email, then set a new password from it), the log-in's second
step for an account with two-factor sign-in, and the two-factor settings
(enrol, confirm, recovery codes, turn off)."""

from __future__ import annotations

import time

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from feeds import auth
from feeds.errors import ServiceError
from feeds.forms import NEW_PASSWORD_HELP, SiteForm, password_field
from feeds.services import passwordreset, twofactor
from feeds.types import User
from feeds.viewhelpers import client_address, redirect_to_login

from ._common import FormPage, me

# The log-in's first step, passed, waits this long for its code.
PENDING_KEY = "2fa"
PENDING_MAX_AGE_S = 300


class ResetRequestForm(SiteForm):
    focus = "userid"
    # Named userid still: a form or a script that posts a userid keeps working.
    userid = forms.CharField(
        label="Userid or email address",
        max_length=254,
        help_text="We email a link to the address on the account. Forgot your userid? "
        "Enter your email address: each account of it gets a link.",
        widget=forms.TextInput(
            attrs={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}
        ),
    )


class ResetForm(SiteForm):
    focus = "new_password"
    new_password = password_field("New password", "new-password", NEW_PASSWORD_HELP)


def code_field(label: str = "Code") -> forms.CharField:
    return forms.CharField(
        label=label,
        help_text="The 6 digits your authenticator app shows, or a recovery code.",
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "text", "spellcheck": "false"}
        ),
    )


class CodeForm(SiteForm):
    focus = "code"
    code = code_field()


class DisableForm(SiteForm):
    code = forms.CharField(
        label="A code or your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


def _site(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


def password_reset(request: HttpRequest) -> HttpResponse:
    """Ask for a reset link, by userid or email address. The answer is the
    same whether or not either has an account."""
    page = FormPage(request, ResetRequestForm(request.POST or None))
    if page.valid:
        try:
            passwordreset.request_reset(
                page.form.cleaned_data["userid"], _site(request), client_address(request)
            )
        except ServiceError as exc:
            page.refuse(exc)
        else:
            return render(request, "password_reset_sent.html")
    return page.render("password_reset.html")


def password_reset_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """Set a new password from an emailed link; a dead link says so, 400."""
    if passwordreset.reset_user(token) is None:
        return render(request, "password_reset_invalid.html", status=400)
    page = FormPage(request, ResetForm(request.POST or None))
    if page.valid:
        try:
            user = passwordreset.confirm_reset(token, page.form.cleaned_data["new_password"])
        except ServiceError as exc:
            if getattr(exc, "field", None) == "token":
                return render(request, "password_reset_invalid.html", status=400)
            page.refuse(exc)
        else:
            if request.user.is_authenticated:
                auth.logout(request)
            messages.success(
                request,
                f"The password of @{user.userid} is changed, and every session and API "
                "token of the account is ended. Log in with the new one.",
            )
            return redirect("login")
    return page.render("password_reset_confirm.html")


def ask_for_code(request: HttpRequest, user: User, after: str) -> HttpResponse:
    """The log-in's first step passed for an account with two-factor sign-in:
    remember who (in the signed session) and ask for the code."""
    request.session[PENDING_KEY] = {
        "userid": user.userid,
        "gen": user.auth_generation,
        "at": int(time.time()),
        "next": after,
    }
    return redirect("login_code")


def _pending(request: HttpRequest) -> dict[str, object] | None:
    pending = request.session.get(PENDING_KEY)
    if not isinstance(pending, dict) or not isinstance(pending.get("userid"), str):
        return None
    at = pending.get("at")
    if not isinstance(at, int) or time.time() - at > PENDING_MAX_AGE_S:
        return None
    return pending


def login_code(request: HttpRequest) -> HttpResponse:
    """The log-in's second step: a TOTP or recovery code. Without a first
    step passed in the last five minutes, back to the log-in page."""
    pending = _pending(request)
    if pending is None:
        request.session.pop(PENDING_KEY, None)
        messages.info(request, "Log in with your password first.")
        return redirect("login")
    page = FormPage(request, CodeForm(request.POST or None))
    if page.valid:
        userid = str(pending["userid"])
        try:
            user = twofactor.second_step(
                userid,
                page.form.cleaned_data["code"],
                client_address(request),
                auth.device(request),
            )
        except ServiceError as exc:
            page.refuse(exc)
        else:
            # A password change or reset since the first step ends it too.
            if user is not None and user.auth_generation == pending.get("gen"):
                request.session.pop(PENDING_KEY, None)
                auth.login(request, user)
                after = str(pending.get("next") or reverse("home"))
                return auth.remember_device(redirect(after), user)
            page.form.add_error("code", "That code is not right, or it was used already.")
    return page.render("login_code.html")


def _two_factor_page(
    request: HttpRequest, userid: str, page: FormPage | None = None, **more: object
) -> HttpResponse:
    """The settings page as it stands: the state, the enrolment waiting for
    its first code (if any), and the forms that fit."""
    status = twofactor.status(userid)
    context: dict[str, object] = {
        "status": status,
        "enrolment": None if status.enabled else twofactor.pending(userid),
        "confirm_form": CodeForm(),
        "codes_form": CodeForm(),
        "disable_form": DisableForm(),
        **more,
    }
    if page is None:
        return render(request, "two_factor.html", context)
    return page.render("two_factor.html", context)


def two_factor(request: HttpRequest) -> HttpResponse:
    """Two-factor sign-in: GET shows its state; a POST's ``action`` begins an
    enrolment, confirms it with a first code (and shows the recovery codes,
    once), makes new recovery codes, or turns it off."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("two_factor"))
    userid = me(request).userid
    action = request.POST.get("action", "") if request.method == "POST" else ""
    if action == "begin":
        try:
            twofactor.begin(userid)
        except ServiceError as exc:
            messages.error(request, exc.message)
        return redirect("two_factor")
    if action not in ("confirm", "codes", "disable"):
        return _two_factor_page(request, userid)
    form: SiteForm = DisableForm(request.POST) if action == "disable" else CodeForm(request.POST)
    page = FormPage(request, form)
    if page.valid:
        code = page.form.cleaned_data["code"]
        try:
            if action == "disable":
                twofactor.disable(userid, code, auth.session_id(request))
            else:
                make = twofactor.confirm if action == "confirm" else twofactor.regenerate_codes
                codes = make(userid, code)
        except ServiceError as exc:
            page.refuse(exc)
        else:
            if action == "disable":
                messages.success(request, "Two-factor sign-in is off.")
                return redirect("two_factor")
            return _two_factor_page(request, userid, codes=codes)
    return _two_factor_page(request, userid, page, **{f"{action}_form": page.form})
