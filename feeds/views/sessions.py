"""Sign up, log in and log out: the pages that start and end a session."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from feeds import auth, services
from feeds.errors import Conflict, Forbidden, InvalidInput
from feeds.forms import LoginForm, SignupForm
from feeds.services import twofactor
from feeds.viewhelpers import client_address, post_only, safe_next

from . import recovery
from ._common import FormPage, login_required, me


def signup(request: HttpRequest) -> HttpResponse:
    """Sign up and log in; a refused sign-up shows why beside each field, 400,
    or, over the sign-ups allowed from the client's address, 429 with Retry-After."""
    if request.user.is_authenticated:
        return redirect("home")
    page = FormPage(request, SignupForm(request.POST or None))
    if page.valid:
        data = page.form.cleaned_data
        try:
            user = services.register(
                data["userid"],
                data["name"],
                data["email"],
                data["password"],
                client_address(request),
            )
        except Conflict as exc:
            page.form.add_error("userid", exc.message)
        except (InvalidInput, services.RateLimited) as exc:
            page.refuse(exc)
        else:
            auth.login(request, user)
            messages.success(request, f"Welcome to TwitBase, {user.name}!")
            return redirect("home")
    return page.render("signup.html")


def login(request: HttpRequest) -> HttpResponse:
    """Log in; 400 for wrong credentials, 403 for a suspended account, 429
    (with Retry-After) while failed log-ins are throttled. An account with
    two-factor sign-in goes on to the code's page (recovery.login_code)."""
    after = safe_next(request, reverse("home"))
    if request.user.is_authenticated:
        return redirect(after)
    page = FormPage(request, LoginForm(request.POST or None))
    if page.valid:
        data = page.form.cleaned_data
        try:
            user = services.log_in(
                data["userid"], data["password"], client_address(request), auth.device(request)
            )
        except (services.RateLimited, Forbidden) as exc:
            page.refuse(exc)
        else:
            if user is not None and twofactor.enabled(user.userid):
                return recovery.ask_for_code(request, user, after)
            if user is not None:
                auth.login(request, user)
                return auth.remember_device(redirect(after), user)
            page.form.add_error(None, "That userid and password do not match an account.")
    next_field = request.POST.get("next") or request.GET.get("next") or ""
    return page.render("login.html", {"next": next_field})


def _explain_logout(request: HttpRequest) -> dict[str, object]:
    if not request.user.is_authenticated:
        return {
            "heading": "You are not logged in",
            "reason": "There is nothing to log out of.",
            "link": reverse("login"),
            "link_label": "Log in",
        }
    return {
        "heading": "Log out with the button",
        "reason": "Logging out takes a button, so that no link, even on another site, "
        "can log you out.",
        "action": reverse("logout"),
        "action_label": "Log out",
        "link": reverse("home"),
        "link_label": "Stay logged in",
    }


def _explain_logout_everywhere(request: HttpRequest) -> dict[str, object]:
    return {
        "heading": "Log out everywhere from your account page",
        "reason": "Ending every session and API token of your account takes the button on "
        "your account page, so that no link can do it.",
        "link": reverse("account"),
        "link_label": "Go to your account",
    }


@post_only(_explain_logout)
def logout(request: HttpRequest) -> HttpResponse:
    auth.logout(request)
    messages.info(request, "You are logged out. See you soon!")
    return redirect("home")


@post_only(_explain_logout_everywhere)
@login_required
def logout_everywhere(request: HttpRequest) -> HttpResponse:
    """End every session and API token of the account, this one included."""
    services.log_out_everywhere(me(request).userid)
    auth.logout(request)
    messages.info(request, "You are logged out everywhere: on every device and API token.")
    return redirect("home")
