"""The staff console's pages. Thin, like the web UI's: each reads its input,
calls the console services (feeds.services.console, which also write the
audit log) and renders a template, or redirects after a POST.

Access: an anonymous visitor is sent to log in (and back); a logged-in user
without the staff flag gets a 403 page. A service error shows as a console
page with its status and message: the console is for people who want to
know what went wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from feeds import auth, services
from feeds.errors import InvalidInput, NotFound, ServiceError
from feeds.services import console, search
from feeds.types import Page
from feeds.viewhelpers import cursor_param, redirect_to_login, safe_next, visitor
from feeds.views import View

from .charts import bucket_chart, percent_scale

# What each table's key-spread charts show, in one sentence each: the real
# keys, then the sequential alternative (None where there is none).
NOTES: dict[str, tuple[str, str | None]] = {
    "users": (
        "md5(userid) scatters users evenly over all 256 first bytes, so regions split "
        "evenly and sign-ups land on all of them.",
        "Keyed by the userid itself, users crowd into the few buckets of digits, letters "
        "and the underscore, as unevenly as first letters are.",
    ),
    "twits": (
        "md5(author) first spreads twits over the whole key space, while one author's "
        "twits stay together, newest first.",
        "Keyed by time first, every twit falls in bucket 0x00, and each new one at its "
        "very end: one region takes every write (a hotspot).",
    ),
    "follows": (
        "Edges start with md5(follower), so they spread as evenly as the users do.",
        "Keyed by the follower's userid, edges pile up under popular first letters.",
    ),
    "followedBy": (
        "Edges start with md5(followed), so even a popular account's followers are one "
        "contiguous range somewhere random.",
        "Keyed by the followed userid, edges crowd into the letters that popular "
        "accounts' names begin with.",
    ),
    "streams": (
        "md5(reader) first spreads stream rows as evenly as readers, so one fan-out "
        "writes to many regions at once.",
        "Keyed by time first, every fan-out writes at the end of bucket 0x00: one region "
        "takes every stream write.",
    ),
    "replies": (
        "A reply sits under its parent's key, md5(parent author) first, so threads spread "
        "as twits do, and one thread's replies are one contiguous range, oldest first.",
        "Keyed by time first, every reply falls at the end of one bucket: one region "
        "takes every reply, and a thread is scattered among all the others.",
    ),
    "pendingFanouts": (
        "The twit's own key, so the index of fan-outs in flight spreads by author, like the twits.",
        "Keyed by time first, every post's index entry lands at the end of bucket 0x00.",
    ),
    "logins": (
        "md5 of the user or the address first spreads the log-in throttle's counters "
        "over the whole key space.",
        None,
    ),
    "tokens": (
        "sha256 of a random token is uniform by construction; no sequential key to compare.",
        None,
    ),
    "ratelimits": (
        "md5(user) first spreads the per-minute counters of everyone posting.",
        "Keyed by minute first, every post of a minute counts in one narrow range of one region.",
    ),
    "celebrities": (
        "md5(userid), like users: few rows, spread evenly.",
        "Keyed by userid, the large accounts would sit by their first letters.",
    ),
    "metrics": (
        'Text keys ("totals", "lag:", "worker:"): a handful of rows of fan-out '
        "bookkeeping, where spread does not matter.",
        None,
    ),
    "audit": (
        "Time first on purpose (reversed, so all in bucket 0x7f): a few writes a minute "
        "cannot overload a region, and the newest entries are one short scan.",
        None,
    ),
}


def staff_only(view: View) -> View:
    """Let staff in; send anonymous visitors to log in, refuse everyone else.

    ``next`` is the page itself for a GET; for a POST (which cannot be
    replayed) the page the form was on.
    """

    @wraps(view)
    def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        me = visitor(request)
        if not me.is_authenticated:
            back = (
                request.get_full_path()
                if request.method == "GET"
                else safe_next(request, reverse("console:index"))
            )
            return redirect_to_login(back)
        if not me.is_staff:
            return render(request, "console/forbidden.html", status=403)
        try:
            return view(request, *args, **kwargs)
        except ServiceError as exc:
            return render(
                request,
                "console/error.html",
                {"message": exc.message, "status": exc.status},
                status=exc.status,
            )

    return wrapper


def _staff(request: HttpRequest) -> str:
    """The userid of the staff member making the request (after staff_only)."""
    me = visitor(request)
    assert isinstance(me, auth.SessionUser)
    return me.userid


def _page(request: HttpRequest, template: str, panel: str, **context: object) -> HttpResponse:
    status = context.pop("status", 200)
    assert isinstance(status, int)
    return render(request, template, {"panel": panel, **context}, status=status)


# -- overview, tables, key design ---------------------------------------------------


def _fanout_state(pending: console.PendingList) -> dict[str, object]:
    """What the overview and the fan-out panel both show: the fan-out counts
    and ``pending``, the list of unfinished fan-outs."""
    return {"fanout": console.fanout_overview(), "pending": pending}


@staff_only
def index(request: HttpRequest) -> HttpResponse:
    return _page(
        request,
        "console/index.html",
        "index",
        audit=console.audit_log(limit=8),
        **_fanout_state(console.pending_fanouts(limit=20)),
    )


@staff_only
def tables(request: HttpRequest) -> HttpResponse:
    """Every table, with its rows as last counted in the background."""
    return _page(
        request,
        "console/tables.html",
        "tables",
        tables=console.tables(),
        count_cap=console.COUNT_CAP,
        stats_every_min=settings.TWITBASE_TABLE_STATS_EVERY_S // 60,
    )


@require_POST
@staff_only
def count_tables(request: HttpRequest) -> HttpResponse:
    """Queue a count (and key-spread sample) of one table, or of all ("")."""
    table = console.request_stats(_staff(request), request.POST.get("table", ""))
    what = f"{table} is" if table else "Every table is"
    messages.success(request, f"{what} being counted; reload in a moment for the figures.")
    return redirect(safe_next(request, reverse("console:tables")))


@staff_only
def key_design(request: HttpRequest) -> HttpResponse:
    """One table's key spread beside its sequential alternative's (``?table=``,
    users by default), or every table's (``?table=all``), as the background
    job last sampled them (console.kept_key_spreads)."""
    only = request.GET.get("table") or "users"
    names = list(console.known_tables()) if only == "all" else [console.check_table(only)]
    charts = []
    for spread in console.kept_key_spreads(names):
        name = spread.table
        actual_note, alt_note = NOTES.get(name, ("", None))
        # One y-scale for the pair, so the sequential keys' pile-up shows
        # against the real keys' spread instead of each filling its own plot.
        scale = percent_scale(spread.actual, spread.alternative)
        charts.append(
            {
                "spread": spread,
                "actual_svg": bucket_chart(
                    spread.actual,
                    f"{name}: {spread.layout}",
                    scale=scale,
                    boundaries=tuple(r.position for r in spread.regions),
                ),
                "actual_note": actual_note,
                "alt_svg": (
                    bucket_chart(
                        spread.alternative,
                        f"{name}: {spread.alternative_layout}",
                        "alternative",
                        scale=scale,
                    )
                    if spread.alternative is not None
                    else None
                ),
                "alt_note": alt_note,
            }
        )
    return _page(
        request,
        "console/keys.html",
        "keys",
        charts=charts,
        only=only,
        sample_cap=console.SAMPLE_CAP,
        per_bucket=console.SAMPLE_CAP // console.BUCKETS,
        tables=console.known_tables(),
    )


# -- the row browser -----------------------------------------------------------------


@staff_only
def rows(request: HttpRequest) -> HttpResponse:
    """``?table=&by=userid|hex|text&prefix=&cursor=``: one page of rows. Bad
    input is shown on the form, with the status it deserves (400, or 404 for
    an unknown table or user)."""
    table = request.GET.get("table", "")
    by = request.GET.get("by", "userid")
    prefix = request.GET.get("prefix", "")
    context: dict[str, object] = {
        "tables": console.known_tables(),
        "by_choices": console.BY_CHOICES,
        "table": table,
        "by": by,
        "prefix": prefix,
        "cursor": cursor_param(request),
    }
    if not table:
        return _page(request, "console/rows.html", "rows", **context)
    try:
        page = console.browse_rows(_staff(request), table, by, prefix, cursor_param(request))
    except (InvalidInput, NotFound) as exc:
        return _page(
            request, "console/rows.html", "rows", error=exc.message, status=exc.status, **context
        )
    return _page(request, "console/rows.html", "rows", page=page, **context)


# -- fan-out -------------------------------------------------------------------------------


# How often the fan-out page reloads itself while a fan-out is pending.
FANOUT_REFRESH_S = 5


@staff_only
def fanout(request: HttpRequest) -> HttpResponse:
    """The fan-out panel. While a fan-out is pending the page reloads itself
    every FANOUT_REFRESH_S seconds (a meta refresh: no script, so the CSP
    stays strict), and stops once none is; a link refreshes it by hand."""
    pending = console.pending_fanouts()
    return _page(
        request,
        "console/fanout.html",
        "fanout",
        sweep_after=settings.TWITBASE_SWEEP_AFTER_S,
        refresh_s=FANOUT_REFRESH_S if pending.items else None,
        **_fanout_state(pending),
    )


@require_POST
@staff_only
def requeue(request: HttpRequest) -> HttpResponse:
    twit = console.requeue_fanout(_staff(request), request.POST.get("twit_id", ""))
    messages.success(request, f"The fan-out of @{twit.userid}'s twit is queued again.")
    return redirect(safe_next(request, reverse("console:fanout")))


@require_POST
@staff_only
def sweep(request: HttpRequest) -> HttpResponse:
    queued = console.sweep_fanouts(_staff(request))
    n = len(queued)
    messages.success(request, f"{n} stuck fan-out{'s' if n != 1 else ''} queued again.")
    return redirect(safe_next(request, reverse("console:fanout")))


# -- moderation ----------------------------------------------------------------------------


@staff_only
def users(request: HttpRequest) -> HttpResponse:
    """Find a user: an exact userid goes to their page; anything else lists
    the users whose userid or name starts with it (the search index, which
    here lists suspended accounts too); or page through everyone in key order."""
    query = request.GET.get("q", "").strip()
    cursor = cursor_param(request)
    if query:
        try:
            return redirect("console:user", console.find_user(query).userid)
        except (InvalidInput, NotFound):
            pass
        try:
            found = search.search_users(query, cursor, suspended=True)
        except InvalidInput as exc:
            found, error, status = services.list_users(), exc.message, exc.status
        else:
            error = "" if found.items or cursor else f"No userid or name starts with “{query}”."
            status = 200 if found.items or cursor else 404
        return _page(
            request,
            "console/users.html",
            "users",
            q=query,
            error=error,
            page=found,
            cursor=cursor,
            status=status,
        )
    return _page(
        request,
        "console/users.html",
        "users",
        q="",
        page=services.list_users(cursor),
        cursor=cursor,
    )


USER_TABS = ("twits", "following", "followers")


@staff_only
def user(request: HttpRequest, userid: str) -> HttpResponse:
    """A user: flags, the disable/enable button, and their twits (each with a
    delete button), or whom they follow, or who follows them."""
    found = services.get_user(userid)
    if found.userid != userid:
        return redirect("console:user", found.userid)
    tab = request.GET.get("tab", "twits")
    if tab not in USER_TABS:
        raise InvalidInput("tab", f"Pick one of: {', '.join(USER_TABS)}.")
    cursor = cursor_param(request)
    listers: dict[str, Callable[[str, str | None], Page[Any]]] = {
        "twits": services.timeline,
        "following": services.following,
        "followers": services.followers,
    }
    lister = listers[tab]
    return _page(
        request,
        "console/user.html",
        "users",
        user=found,
        tab=tab,
        tabs=USER_TABS,
        page=lister(found.userid, cursor),
        cursor=cursor,
        is_me=found.userid.lower() == _staff(request).lower(),
        two_factor=console.two_factor_on(found.userid),
    )


def _set_disabled(request: HttpRequest, userid: str, disabled: bool) -> HttpResponse:
    found = console.set_disabled(_staff(request), userid, disabled)
    state = "disabled" if disabled else "enabled"
    messages.success(request, f"@{found.userid}'s account is {state}.")
    return redirect(safe_next(request, reverse("console:user", args=[found.userid])))


def _confirmed(request: HttpRequest) -> bool:
    """Whether a destructive POST comes from its confirmation page. The first
    POST (the button on the user's page) only shows that page: without script
    (the site's CSP allows none inline) a second form is the confirmation."""
    return request.POST.get("confirm") == "yes"


@require_POST
@staff_only
def disable(request: HttpRequest, userid: str) -> HttpResponse:
    """Disable an account, once confirmed: ending its sessions cannot be undone."""
    if not _confirmed(request):
        found = console.check_disable(_staff(request), userid)
        return _page(
            request,
            "console/confirm.html",
            "users",
            action=reverse("console:disable", args=[found.userid]),
            title=f"Disable @{found.userid}?",
            what="disable",
            user=found,
            next=safe_next(request, reverse("console:user", args=[found.userid])),
            cancel=reverse("console:user", args=[found.userid]),
        )
    return _set_disabled(request, userid, True)


@require_POST
@staff_only
def enable(request: HttpRequest, userid: str) -> HttpResponse:
    return _set_disabled(request, userid, False)


@require_POST
@staff_only
def clear_two_factor(request: HttpRequest, userid: str) -> HttpResponse:
    """Clear an account's two-factor sign-in, once confirmed: for a user who
    lost the app and the recovery codes. Their sessions end with it."""
    if not _confirmed(request):
        found = services.get_user(userid)
        return _page(
            request,
            "console/confirm.html",
            "users",
            action=reverse("console:clear_two_factor", args=[found.userid]),
            title=f"Clear @{found.userid}'s two-factor sign-in?",
            what="2fa",
            user=found,
            next=reverse("console:user", args=[found.userid]),
            cancel=reverse("console:user", args=[found.userid]),
        )
    found = console.clear_two_factor(_staff(request), userid)
    messages.success(
        request,
        f"@{found.userid}'s two-factor sign-in is cleared and their sessions are ended: "
        "they log in with the password alone.",
    )
    return redirect("console:user", found.userid)


@require_POST
@staff_only
def delete_twit(request: HttpRequest) -> HttpResponse:
    """Delete anyone's twit by id, once confirmed; it leaves every stream too."""
    if not _confirmed(request):
        found = console.find_twit(request.POST.get("twit_id", "").strip())
        return _page(
            request,
            "console/confirm.html",
            "users",
            action=reverse("console:delete_twit"),
            title=f"Delete this twit of @{found.userid}?",
            what="delete",
            twit=found,
            next=safe_next(request, reverse("console:user", args=[found.userid])),
            cancel=safe_next(request, reverse("console:user", args=[found.userid])),
        )
    twit = console.delete_twit(_staff(request), request.POST.get("twit_id", "").strip())
    messages.success(request, f"@{twit.userid}'s twit is deleted, and removed from every stream.")
    return redirect(safe_next(request, reverse("console:user", args=[twit.userid])))


# -- audit -----------------------------------------------------------------------------------


@staff_only
def audit(request: HttpRequest) -> HttpResponse:
    cursor = cursor_param(request)
    return _page(
        request, "console/audit.html", "audit", page=console.audit_log(cursor), cursor=cursor
    )
