"""The server-rendered web UI, and the health check.

Views are thin: a form parses the input, a service does the work, a template
renders the result (or the view redirects). Service errors become pages with
the service's status code: NotFound the friendly 404 page (also with
DEBUG on), RateLimited a 429 with the form kept, InvalidInput the message
next to the field it names. Every page works without JavaScript; every
change is a POST with a CSRF token. A GET on a POST-only URL (a link
followed, an address typed) gets a page saying how to do it, with 405.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from html import escape
from typing import TypeAlias

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from . import auth, services
from .errors import Conflict, Forbidden, InvalidInput, NotFound, ServiceError, Suspended
from .forms import (
    AvatarForm,
    DeleteAccountForm,
    LoginForm,
    PasswordForm,
    ReplyForm,
    SignupForm,
    TwitForm,
    add_service_error,
)
from .services import avatars
from .templatetags.ui import hue
from .types import Twit, User
from .viewhelpers import (
    LOOPBACK,
    Explain,
    client_address,
    cursor_param,
    direct_from,
    post_only,
    redirect_to_login,
    safe_next,
    visitor,
)

View: TypeAlias = Callable[..., HttpResponse]

# How many users the empty home page suggests following.
SUGGESTIONS = 5


def healthz(request: HttpRequest) -> JsonResponse:
    """200 when HBase and the broker answer, else 503 naming what is down:
    for load balancers, docker-compose and devstack.

    Everyone sees ok or down for each part. What went wrong (an exception's
    text names hosts and ports) and the table count are shown only to staff
    and to requests made straight from this host (loopback, no proxy header).
    A session is read from HBase, so while it is down only this host is told.
    """
    h = services.health()
    storage: dict[str, object] = {"ok": h.storage.ok}
    broker: dict[str, object] = {"ok": h.broker.ok}
    if direct_from(request, LOOPBACK) or (h.storage.ok and visitor(request).is_staff):
        storage |= {"detail": h.storage.detail, "tables": h.tables}
        broker |= {"detail": h.broker.detail}
    return JsonResponse(
        {"status": "ok" if h.ok else "down", "down": h.down, "storage": storage, "broker": broker},
        status=200 if h.ok else 503,
    )


def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers and tools ask for whatever a page links:
    the site's icon (a static file) rather than a 404 in the log."""
    return redirect(static("feeds/favicon.svg"))


# -- helpers -------------------------------------------------------------------


def not_found(request: HttpRequest) -> HttpResponse:
    """The friendly 404 page, rendered by the view so that it shows with DEBUG on too."""
    return render(request, "404.html", status=404)


@dataclass
class FormAnswer:
    """The status of a page with a form on it, and how long a rate limit that
    refused the form asks the client to wait (sent as Retry-After)."""

    status: int
    retry_after: int | None = None

    def refuse(self, form: forms.Form, exc: ServiceError) -> None:
        """Show ``exc`` on ``form`` and answer with its status."""
        add_service_error(form, exc)
        self.status = exc.status
        self.retry_after = exc.retry_after if isinstance(exc, services.RateLimited) else None

    def render(
        self, request: HttpRequest, template: str, context: dict[str, object]
    ) -> HttpResponse:
        response = render(request, template, context, status=self.status)
        if self.retry_after is not None:
            response["Retry-After"] = str(self.retry_after)
        return response


def service_errors(view: View) -> View:
    """Turn a service error that escapes ``view`` into a page with its status.

    Views catch the errors they can show in place (a form's field error); the
    rest land here: a suspended account as its own 404 page, NotFound as the
    404 page, anything else (a bad cursor, a twit that is not yours) as a
    short error page.
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
            return render(request, "error.html", {"message": exc.message}, status=exc.status)

    return wrapper


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


def _explain_follow(verb: str) -> Explain:
    def explain(request: HttpRequest, userid: str) -> dict[str, object]:
        profile_url = reverse("profile", args=[userid])
        context: dict[str, object] = {
            "heading": f"{verb.capitalize()} @{userid} from their profile",
            "reason": f"To {verb} someone, use the button on their profile, so that no "
            "link can do it for you.",
            "link": profile_url,
            "link_label": f"Go to @{userid}",
        }
        if request.user.is_authenticated:
            context |= {
                "action": reverse(verb, args=[userid]),
                "action_label": f"{verb.capitalize()} @{userid}",
                "next": profile_url,
            }
        return context

    return explain


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


def _me(request: HttpRequest) -> User:
    """The logged-in user's profile; only for views that checked they are logged in."""
    me = visitor(request)
    assert isinstance(me, auth.SessionUser)
    return me.profile


def _who_to_follow(me: User) -> list[User]:
    return services.suggest_follows(me.userid, SUGGESTIONS)


# -- accounts --------------------------------------------------------------------


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user = services.register(data["userid"], data["name"], data["email"], data["password"])
        except Conflict as exc:
            form.add_error("userid", exc.message)
        except InvalidInput as exc:
            add_service_error(form, exc)
        else:
            auth.login(request, user)
            messages.success(request, f"Welcome to TwitBase, {user.name}!")
            return redirect("home")
    status = 400 if request.method == "POST" else 200
    return render(request, "signup.html", {"form": form}, status=status)


def login(request: HttpRequest) -> HttpResponse:
    """Log in; 400 for wrong credentials, 403 for a suspended account, 429
    (with Retry-After) while failed log-ins are throttled."""
    after = safe_next(request, reverse("home"))
    if request.user.is_authenticated:
        return redirect(after)
    form = LoginForm(request.POST or None)
    answer = FormAnswer(400 if request.method == "POST" else 200)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user = services.log_in(
                data["userid"], data["password"], client_address(request), auth.device(request)
            )
        except (services.RateLimited, Forbidden) as exc:
            answer.refuse(form, exc)
        else:
            if user is not None:
                auth.login(request, user)
                return auth.remember_device(redirect(after), user)
            form.add_error(None, "That userid and password do not match an account.")
    next_field = request.POST.get("next") or request.GET.get("next") or ""
    return answer.render(request, "login.html", {"form": form, "next": next_field})


@post_only(_explain_logout)
def logout(request: HttpRequest) -> HttpResponse:
    auth.logout(request)
    messages.info(request, "You are logged out. See you soon!")
    return redirect("home")


@post_only(_explain_logout_everywhere)
@login_required
def logout_everywhere(request: HttpRequest) -> HttpResponse:
    """End every session and API token of the account, this one included."""
    services.log_out_everywhere(_me(request).userid)
    auth.logout(request)
    messages.info(request, "You are logged out everywhere: on every device and API token.")
    return redirect("home")


def account(request: HttpRequest) -> HttpResponse:
    """Change the password (which logs out every other session and token),
    or log out everywhere."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("account"))
    me = _me(request)
    form = PasswordForm(request.POST or None)
    answer = FormAnswer(400 if request.method == "POST" else 200)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.change_password(
                me.userid,
                data["current_password"],
                data["new_password"],
                auth.session_id(request),
            )
        except ServiceError as exc:
            answer.refuse(form, exc)
        else:
            messages.success(
                request, "Your password is changed. Every other session and API token is ended."
            )
            return redirect("account")
    return answer.render(request, "account.html", {"form": form, "avatar_form": AvatarForm()})


# -- home --------------------------------------------------------------------------


@service_errors
def home(request: HttpRequest) -> HttpResponse:
    """The landing page for visitors; for a user, the post box and their stream.

    A POST posts a twit and redirects back (so a reload does not post again);
    a rejected twit re-renders the page with the text kept and the reason
    next to it: 400 for bad text, 429 over the rate limit.
    """
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(reverse("home"))
        return render(request, "landing.html")
    me = _me(request)
    form = TwitForm(request.POST or None)
    answer = FormAnswer(400 if request.method == "POST" else 200)
    if request.method == "POST" and form.is_valid():
        try:
            services.post_twit(me, form.cleaned_data["text"])
        except (services.RateLimited, InvalidInput) as exc:
            answer.refuse(form, exc)
        else:
            messages.success(request, "Your twit is posted.")
            return redirect("home")
    cursor = None if request.method == "POST" else cursor_param(request)
    page = services.home_stream(me, cursor)
    suggestions: list[User] = []
    # On the first page, whoever one follows already: suggestions are ranked
    # by one's follows (services.suggest_follows), so they improve with each.
    if cursor is None:
        suggestions = _who_to_follow(me)
    return answer.render(
        request,
        "home.html",
        {
            "form": form,
            "page": page,
            "cursor": cursor,
            "suggestions": suggestions,
            "live_poll_ms": settings.TWITBASE_LIVE_POLL_MS,
            "trending": services.trending(),
        },
    )


@require_http_methods(["GET"])
def stream_new(request: HttpRequest) -> JsonResponse:
    """``GET /stream/new?since=<twit id>``: how many twits arrived in the
    signed-in user's stream above ``since`` (the newest the page shows), as
    ``{"count": n, "more": bool}``; what the home page's banner polls
    (feeds/static/feeds/live.js). 401 when logged out, 400 for a bad id."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "Log in to see your stream."}, status=401)
    try:
        new = services.new_in_stream(_me(request), request.GET.get("since") or None)
    except InvalidInput as exc:
        return JsonResponse({"error": str(exc), "field": exc.field}, status=400)
    response = JsonResponse({"count": new.count, "more": new.more, "cap": services.NEW_CAP})
    response["Cache-Control"] = "no-store"
    return response


# -- users ----------------------------------------------------------------------------


def _canonical(request: HttpRequest, user: User, userid: str, name: str) -> HttpResponse | None:
    """A redirect to the URL spelt with the userid's own case, when it differs.

    Userids are unique without regard to case, so /u/ALICE finds alice; one
    URL per page keeps links and bookmarks the same.
    """
    if user.userid == userid:
        return None
    url = reverse(name, args=[user.userid])
    query = request.GET.urlencode()
    return redirect(f"{url}?{query}" if query else url)


@service_errors
def profile(request: HttpRequest, userid: str) -> HttpResponse:
    """A user's profile: counts, follow button and their twits, newest first.
    A suspended account's is a 404 that says so."""
    user = services.public_user(userid)
    moved = _canonical(request, user, userid, "profile")
    if moved is not None:
        return moved
    cursor = cursor_param(request)
    me = visitor(request)
    page = services.timeline(user.userid, cursor, reader=_reader(request))
    is_me = me.is_authenticated and me.userid.lower() == user.userid.lower()
    follows = me.is_authenticated and not is_me and services.is_following(me.userid, user.userid)
    return render(
        request,
        "profile.html",
        {"user": user, "page": page, "cursor": cursor, "is_me": is_me, "follows": follows},
    )


def _people(request: HttpRequest, userid: str, which: str) -> HttpResponse:
    user = services.public_user(userid)
    moved = _canonical(request, user, userid, which)
    if moved is not None:
        return moved
    cursor = cursor_param(request)
    lister = services.followers if which == "followers" else services.following
    page = lister(user.userid, cursor)
    me = visitor(request)
    followed: set[str] = set()
    if me.is_authenticated:
        followed = services.following_among(me.userid, [p.userid for p in page.items])
    return render(
        request,
        "people.html",
        {"user": user, "page": page, "cursor": cursor, "which": which, "followed": followed},
    )


@service_errors
def followers(request: HttpRequest, userid: str) -> HttpResponse:
    return _people(request, userid, "followers")


@service_errors
def following(request: HttpRequest, userid: str) -> HttpResponse:
    return _people(request, userid, "following")


def _in_place(request: HttpRequest) -> bool:
    """Whether feeds/static/feeds/inplace.js posted the form, with fetch: it
    takes the form as it is after the action, not a redirect and a message."""
    return request.headers.get("X-Requested-With") == "fetch"


def _here(request: HttpRequest, default: str) -> str:
    """The page a form was posted from: its ``next``, without the #anchor."""
    return safe_next(request, default).partition("#")[0]


def _follow_view(verb: str, action: Callable[[User, str], bool], done: str, already: str) -> View:
    """The POST view that makes the logged-in user ``action`` (follow or
    unfollow) ``userid``, then goes back to where it was asked from (the
    person's place on it), with a message: ``done``, or ``already`` when there
    was nothing to change (``{}`` is the @userid). Posted in place: the
    follow button as it now is."""

    @post_only(_explain_follow(verb))
    @login_required
    @service_errors
    def view(request: HttpRequest, userid: str) -> HttpResponse:
        changed = action(_me(request), userid)
        if _in_place(request):
            here = _here(request, reverse("profile", args=[userid]))
            context = {
                "userid": userid,
                "follows": verb == "follow",
                "next": here,
                "in_place": True,
            }
            return render(request, "_follow_button.html", context)
        messages.success(request, (done if changed else already).format(f"@{userid}"))
        return redirect(safe_next(request, reverse("profile", args=[userid])))

    return view


follow = _follow_view(
    "follow",
    services.follow,
    "You follow {} now: their twits will show in your home stream.",
    "You already follow {}.",
)
unfollow = _follow_view(
    "unfollow",
    services.unfollow,
    "You no longer follow {}: their twits leave your home stream.",
    "You were not following {}.",
)


# -- twits ------------------------------------------------------------------------------


def _reader(request: HttpRequest) -> str | None:
    """Whose ``liked``/``reposted`` a list shows: the logged-in visitor's."""
    me = visitor(request)
    return me.userid if me.is_authenticated else None


def _explain_twit_action(verb: str) -> Explain:
    def explain(request: HttpRequest, userid: str, twit_id: str) -> dict[str, object]:
        link = reverse("twit", args=[userid, twit_id])
        return {
            "heading": f"{verb.capitalize()} a twit with its button",
            "reason": f"To {verb} a twit, use the button under it, so that no link can "
            "do it for you.",
            "link": link,
            "link_label": "Go to the twit",
        }

    return explain


def _twit_action(
    verb: str, action: Callable[[str, str], Twit], form: str, done: str | None = None
) -> View:
    """The POST view that makes the logged-in user ``action`` (like, unlike,
    repost, un-repost) the twit, then goes back to where it was asked from
    (``next``: the twit's place on it), with the message ``done`` if there is
    one. Posted in place: the template ``form``, the twit's button as it now is."""

    @post_only(_explain_twit_action(verb))
    @login_required
    @service_errors
    def view(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
        acted = action(_me(request).userid, twit_id)
        if _in_place(request):
            here = _here(request, reverse("twit", args=[userid, twit_id]))
            return render(request, form, {"twit": acted, "here": here})
        if done:
            messages.success(request, done)
        return redirect(safe_next(request, reverse("twit", args=[userid, twit_id])))

    return view


like = _twit_action("like", services.like, "_like_form.html")
unlike = _twit_action("unlike", services.unlike, "_like_form.html")
repost = _twit_action(
    "repost",
    services.repost,
    "_repost_form.html",
    "Reposted: it shows in your followers' home streams.",
)
unrepost = _twit_action(
    "undo the repost of",
    services.unrepost,
    "_repost_form.html",
    "Repost undone: it leaves your followers' streams.",
)


@require_http_methods(["GET", "HEAD", "POST"])
@service_errors
def twit(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
    """One twit on a page of its own, with the chain it replies to above it
    and its replies below, oldest first, paged; 404 unless ``userid`` is its
    author, and while the author is suspended.

    A POST (the Reply form) posts a reply and goes to the reply's own page,
    where it shows under this twit; a rejected reply re-renders the page with
    the text kept and the reason: 400, or 429 over the rate limit.
    """
    if request.method == "POST" and not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    found = services.public_twit(twit_id)
    if found.userid.lower() != userid.lower():
        return not_found(request)
    if found.userid != userid and request.method != "POST":
        return redirect("twit", found.userid, found.id)
    form = ReplyForm(request.POST or None)
    status = 200
    retry_after: int | None = None
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                reply = services.post_twit(_me(request), form.cleaned_data["text"], found.id)
            except services.RateLimited as exc:
                form.add_error(None, exc.message)
                status, retry_after = exc.status, exc.retry_after
            except InvalidInput as exc:
                add_service_error(form, exc)
            else:
                messages.success(request, "Your reply is posted.")
                return redirect("twit", reply.userid, reply.id)
    cursor = None if request.method == "POST" else cursor_param(request)
    # The twit, its chain and its replies, hydrated in one step.
    thread = services.thread(found, cursor, _reader(request))
    context = {
        "twit": thread.twit,
        "chain": thread.chain,
        "page": thread.replies,
        "cursor": cursor,
        "form": form,
    }
    response = render(request, "twit.html", context, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


@require_http_methods(["GET", "HEAD", "POST"])
@service_errors
def delete_twit(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
    """GET: the confirmation page, the twit and a button to delete it; POST
    (that button): delete one of your own twits, then go to ``next``. 403
    for anyone else's.

    The twit's Delete is a link here, not a button that deletes at once: the
    confirmation works without JavaScript. The userid in the URL only makes
    it readable: the service checks the twit's author against the
    logged-in user. ``next`` is where to go once it is deleted, ``back``
    where Cancel goes (the page the Delete link was on).
    """
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(safe_next(request, reverse("home")))
        return redirect_to_login(request.get_full_path())
    me = _me(request)
    if request.method == "POST":
        services.delete_twit(me.userid, twit_id)
        messages.success(request, "Your twit is deleted.")
        return redirect(safe_next(request, reverse("profile", args=[me.userid])))
    found = services.own_twit(me.userid, twit_id)
    after = safe_next(request, reverse("profile", args=[me.userid]))
    back = safe_next(request, reverse("twit", args=[found.userid, found.id]), "back")
    return render(request, "delete_twit.html", {"twit": found, "next": after, "back": back})


# -- hashtags and search ------------------------------------------------------------


@service_errors
def tag(request: HttpRequest, tag: str) -> HttpResponse:
    """A hashtag's twits, newest first. Any spelling of a tag redirects to its
    normalised one (/tags/TEA to /tags/tea), so a tag has one URL; a bad tag
    is the short error page, 400."""
    normal = services.check_tag(tag)
    if normal != tag:
        url = reverse("tag", args=[normal])
        query = request.GET.urlencode()
        return redirect(f"{url}?{query}" if query else url)
    cursor = cursor_param(request)
    page = services.tag_twits(normal, cursor, reader=_reader(request))
    return render(request, "tag.html", {"tag": normal, "page": page, "cursor": cursor})


@service_errors
def search(request: HttpRequest) -> HttpResponse:
    """The search page: users whose userid or name starts with ``q``; a query
    starting with '#' goes to that hashtag's page. No query shows the form; an
    empty, too long or otherwise bad one shows why beside it (400)."""
    q = request.GET.get("q")
    context: dict[str, object] = {"q": q or "", "page": None, "problem": None}
    if q is None:
        return render(request, "search.html", context)
    cursor = cursor_param(request)
    try:
        if q.strip().startswith("#"):
            return redirect("tag", services.check_tag(q))
        context.update(page=services.search_users(q, cursor), cursor=cursor)
    except InvalidInput as exc:
        context["problem"] = exc.message
        return render(request, "search.html", context, status=400)
    return render(request, "search.html", context)


# -- avatars and account deletion (account branch) -------------------------------------

# An avatar URL with ?v=<version> names one image for good; without it, the
# browser asks again each time (ETag, so unchanged costs a 304).
AVATAR_FOREVER = "public, max-age=31536000, immutable"
AVATAR_REVALIDATE = "public, no-cache"


def _default_avatar(user: User) -> bytes:
    """The avatar of someone who has uploaded none: their initial on their colour."""
    initial = escape(user.name[:1].upper() or "?")
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="256" height="256">'
        f'<circle cx="32" cy="32" r="32" fill="hsl({hue(user.userid)} 65% 55%)"/>'
        '<text x="32" y="42" text-anchor="middle" font-family="system-ui,sans-serif" '
        f'font-size="28" font-weight="700" fill="#fff">{initial}</text></svg>'
    ).encode()


@require_http_methods(["GET", "HEAD"])
@service_errors
def avatar(request: HttpRequest, userid: str) -> HttpResponse:
    """A user's avatar (WebP), or their default (SVG) if they have none; 404
    for no such user, and for a suspended one, as their profile. Cached for
    good under ``?v=`` with its version, else revalidated by ETag."""
    found = services.get_avatar(userid)
    if found is None:
        user = services.find_user(userid)
        if user is None:
            return not_found(request)
        body, content_type = _default_avatar(user), "image/svg+xml"
        etag = f'"d{hue(user.userid)}-{user.name[:1].encode().hex()}"'
    else:
        body, content_type, etag = found.image, found.content_type, f'"{found.version}"'
    forever = found is not None and request.GET.get("v") == str(found.version)
    headers = {"ETag": etag, "Cache-Control": AVATAR_FOREVER if forever else AVATAR_REVALIDATE}
    if etag in request.headers.get("If-None-Match", ""):
        return HttpResponse(status=304, headers=headers)
    return HttpResponse(body, content_type=content_type, headers=headers)


def _account_page(
    request: HttpRequest, status: int, avatar_form: AvatarForm | None = None
) -> HttpResponse:
    context = {"form": PasswordForm(), "avatar_form": avatar_form or AvatarForm()}
    return render(request, "account.html", context, status=status)


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
    """The account page's upload (multipart). A refused file shows why, 400;
    the avatar stays as it was."""
    form = AvatarForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["avatar"]
        try:
            # One byte over the limit is enough for the service to refuse it.
            services.set_avatar(_me(request).userid, upload.read(avatars.MAX_BYTES + 1))
        except InvalidInput as exc:
            add_service_error(form, exc)
        else:
            messages.success(request, "Your avatar is changed.")
            return redirect("account")
    return _account_page(request, 400, form)


@post_only(_explain_account("Remove your avatar"))
@login_required
def avatar_remove(request: HttpRequest) -> HttpResponse:
    services.remove_avatar(_me(request).userid)
    messages.success(request, "Your avatar is removed: your initial shows instead.")
    return redirect("account")


@require_http_methods(["GET", "HEAD", "POST"])
def delete_account(request: HttpRequest) -> HttpResponse:
    """GET: what deleting the account takes away, and the form (the
    password) that does it; POST: delete it and log out. A wrong password is
    a 400 with the form kept; too many from this session, 429."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("delete_account"))
    me = _me(request)
    form = DeleteAccountForm(request.POST or None)
    answer = FormAnswer(400 if request.method == "POST" else 200)
    if request.method == "POST" and form.is_valid():
        try:
            services.delete_account(
                me.userid, form.cleaned_data["password"], auth.session_id(request)
            )
        except (InvalidInput, services.RateLimited) as exc:
            answer.refuse(form, exc)
        else:
            auth.logout(request)
            messages.info(request, f"Your account @{me.userid} is deleted. Goodbye!")
            return redirect("home")
    return answer.render(request, "delete_account.html", {"form": form, "me": me})


# -- notifications ----------------------------------------------------------------------


@require_http_methods(["GET", "HEAD"])
@service_errors
def notifications(request: HttpRequest) -> HttpResponse:
    """The signed-in user's notifications, newest first; opening the first
    page clears the unread count in the top bar."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("notifications"))
    me = _me(request)
    cursor = cursor_param(request)
    page = services.notifications(me.userid, cursor)
    if cursor is None:
        services.mark_read(me.userid)
    return render(request, "notifications.html", {"page": page, "cursor": cursor, "me": me})
