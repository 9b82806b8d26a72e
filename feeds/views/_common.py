"""What the web UI's views share: the error pages, a page with a form on
it, the logged-in user, and where a form was posted from."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from feeds import auth, services
from feeds.errors import NotFound, ServiceError, Suspended
from feeds.forms import add_service_error
from feeds.types import User
from feeds.viewhelpers import Explain, View, cursor_param, redirect_to_login, safe_next, visitor


def not_found(request: HttpRequest) -> HttpResponse:
    """The friendly 404 page, rendered by the view so that it shows with DEBUG on too."""
    return render(request, "404.html", status=404)


class FormPage:
    """A page with ``form`` on it: whether it was posted, the status to answer
    with (400 for a POST that got this far, else 200), and how long a rate
    limit that refused the form asks the client to wait (sent as Retry-After)."""

    def __init__(self, request: HttpRequest, form: forms.Form) -> None:
        self.request = request
        self.form = form
        self.posted = request.method == "POST"
        self.status = 400 if self.posted else 200
        self.retry_after: int | None = None

    @property
    def valid(self) -> bool:
        """Whether the form was posted and parses."""
        return self.posted and self.form.is_valid()

    @property
    def cursor(self) -> str | None:
        """The page's cursor; none after a POST, which shows the first page."""
        return None if self.posted else cursor_param(self.request)

    def refuse(self, exc: ServiceError) -> None:
        """Show ``exc`` on the form and answer with its status."""
        add_service_error(self.form, exc)
        self.status = exc.status
        self.retry_after = exc.retry_after if isinstance(exc, services.RateLimited) else None

    def render(self, template: str, context: dict[str, object] | None = None) -> HttpResponse:
        """``template`` with ``context`` and the form (as ``form``)."""
        full = {"form": self.form, **(context or {})}
        response = render(self.request, template, full, status=self.status)
        if self.retry_after is not None:
            response["Retry-After"] = str(self.retry_after)
        return response


def service_errors(view: View) -> View:
    """Turn a service error that escapes ``view`` into a page with its status.

    Views catch the errors they can show in place (a form's field error); the
    rest land here: a suspended account as its own 404 page, NotFound as the
    404 page, anything else (a bad cursor, a twit that is not yours, a rate
    limit, with its Retry-After) as a short error page.
    """

    @wraps(view)
    def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except Suspended as exc:
            return render(request, "suspended.html", {"message": exc.message}, status=exc.status)
        except NotFound:
            return not_found(request)
        except ServiceError as exc:
            response = render(request, "error.html", {"message": exc.message}, status=exc.status)
            if isinstance(exc, services.RateLimited):
                response["Retry-After"] = str(exc.retry_after)
            return response

    return wrapper


def login_required(view: View) -> View:
    """For the POST-only actions: send an anonymous visitor to log in first.

    A POST cannot be replayed after logging in, so ``next`` is the page the
    form was on (its ``next`` field), not the action's own URL.
    """

    @wraps(view)
    def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(safe_next(request, reverse("home")))
        return view(request, *args, **kwargs)

    return wrapper


def me(request: HttpRequest) -> User:
    """The logged-in user's profile; only for views that checked they are logged in."""
    user = visitor(request)
    assert isinstance(user, auth.SessionUser)
    return user.profile


def reader(request: HttpRequest) -> User | None:
    """Who reads: the logged-in visitor's profile (whose ``liked`` and
    ``reposted`` a list shows, and whose marks spare the lookups of blocks
    and mutes they never had), None for a visitor not logged in."""
    user = visitor(request)
    return user.profile if isinstance(user, auth.SessionUser) else None


def in_place(request: HttpRequest) -> bool:
    """Whether feeds/static/feeds/inplace.js posted the form, with fetch: it
    takes the form as it is after the action, not a redirect and a message."""
    return request.headers.get("X-Requested-With") == "fetch"


def here(request: HttpRequest, default: str) -> str:
    """The page a form was posted from: its ``next``, without the #anchor."""
    return safe_next(request, default).partition("#")[0]


def moved(request: HttpRequest, name: str, arg: str) -> HttpResponse:
    """A redirect to the page ``name`` of ``arg`` with the same query: where
    a page spelt another way (/u/ALICE, /tags/TEA) lives, so that a page has
    one URL for links and bookmarks."""
    url = reverse(name, args=[arg])
    query = request.GET.urlencode()
    return redirect(f"{url}?{query}" if query else url)


def form_on(page: str, url_name: str, link_label: str) -> Callable[[str], Explain]:
    """For a POST-only action whose form lives on ``page`` (reached at
    ``url_name``): what a GET of the action shows, for the action ``what``."""

    def explain_for(what: str) -> Explain:
        def explain(request: HttpRequest) -> dict[str, object]:
            return {
                "heading": f"{what} on {page}",
                "reason": f"This takes the form on {page}.",
                "link": reverse(url_name),
                "link_label": link_label,
            }

        return explain

    return explain_for


def on_twit_page(what: str) -> Callable[..., dict[str, object]]:
    """For a POST-only action on one twit (``what``: "Pin a twit"): what a
    GET of it shows, a link to the twit's page, whose button does it."""

    def explain(request: HttpRequest, userid: str, twit_id: str) -> dict[str, object]:
        return {
            "heading": f"{what} from its page",
            "reason": f"To {what[0].lower()}{what[1:]}, use the button on the twit's page.",
            "link": reverse("twit", args=[userid, twit_id]),
            "link_label": "Go to the twit",
        }

    return explain
