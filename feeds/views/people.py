"""A user's pages: their profile, who follows them and whom they follow;
and the follow and unfollow buttons."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from feeds import services
from feeds.services import blocking, blocks, pins
from feeds.types import User
from feeds.viewhelpers import Explain, View, cursor_param, post_only, safe_next, visitor

from ._common import here, in_place, login_required, me, moved, reader, service_errors
from .mentions import profiles_for


@service_errors
def profile(request: HttpRequest, userid: str) -> HttpResponse:
    """A user's profile: counts, follow button and their twits, newest first.
    A suspended account's is a 404 that says so.

    Userids are unique without regard to case, so /u/ALICE finds alice, and
    redirects to the URL spelt with the userid's own case (as do the lists).
    """
    user = services.public_user(userid)
    if user.userid != userid:
        return moved(request, "profile", user.userid)
    cursor = cursor_param(request)
    visiting = visitor(request)
    page = services.timeline(user.userid, cursor, reader=reader(request))
    is_me = visiting.is_authenticated and visiting.userid.lower() == user.userid.lower()
    other = visiting.is_authenticated and not is_me
    follows = other and services.is_following(visiting.userid, user.userid)
    follows_me = other and services.is_following(user.userid, visiting.userid)
    stance = blocks.stance(visiting.userid, user.userid) if other else None
    pinned = None if cursor else pins.pinned_twit(user, reader(request))
    return render(
        request,
        "profile.html",
        {
            "user": user,
            "page": page,
            "profiles": profiles_for(t.text for t in (*page.items, *([pinned] if pinned else []))),
            "cursor": cursor,
            "is_me": is_me,
            "follows": follows,
            "follows_me": follows_me,
            "stance": stance,
            "pinned": pinned,
        },
    )


def _people(request: HttpRequest, userid: str, which: str) -> HttpResponse:
    user = blocks.visible_user(userid, reader(request))
    if user.userid != userid:
        return moved(request, which, user.userid)
    cursor = cursor_param(request)
    lister = services.followers if which == "followers" else services.following
    page = lister(user.userid, cursor)
    visiting = visitor(request)
    followed: set[str] = set()
    follows_me: set[str] = set()
    if visiting.is_authenticated:
        userids = [p.userid for p in page.items]
        followed = services.following_among(visiting.userid, userids)
        follows_me = services.followers_among(visiting.userid, userids)
    return render(
        request,
        "people.html",
        {
            "user": user,
            "page": page,
            "cursor": cursor,
            "which": which,
            "followed": followed,
            "follows_me": follows_me,
        },
    )


@service_errors
def followers(request: HttpRequest, userid: str) -> HttpResponse:
    return _people(request, userid, "followers")


@service_errors
def following(request: HttpRequest, userid: str) -> HttpResponse:
    return _people(request, userid, "following")


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
        changed = action(me(request), userid)
        if in_place(request):
            context = {
                "userid": userid,
                "follows": verb == "follow",
                "next": here(request, reverse("profile", args=[userid])),
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


def _stance_view(
    verb: str,
    action: Callable[[User, str], bool],
    done: str,
    already: str,
    undo: tuple[str, str] | None = None,
) -> View:
    """The POST view of a block, mute or their undoing from a profile: the
    act, then back where it was asked from with a message (``done``, or
    ``already`` when nothing changed; ``{}`` is the @userid). With ``undo``
    (the verb and label of the button that undoes it), a post in place
    (feeds/static/feeds/inplace.js) is answered with that button alone."""

    @post_only(_explain_follow(verb))
    @login_required
    @service_errors
    def view(request: HttpRequest, userid: str) -> HttpResponse:
        changed = action(me(request), userid)
        if undo is not None and in_place(request):
            other = {"userid": userid}
            context = {"user": other, "verb": undo[0], "label": undo[1], "in_place": True}
            return render(request, "_stance_button.html", context)
        messages.success(request, (done if changed else already).format(f"@{userid}"))
        return redirect(safe_next(request, reverse("profile", args=[userid])))

    return view


block = _stance_view(
    "block",
    blocking.block,
    "You blocked {}: you no longer follow each other, and neither sees the other's twits.",
    "You already block {}.",
)
unblock = _stance_view(
    "unblock",
    blocking.unblock,
    "You unblocked {}. Follow them again if you want their twits.",
    "You were not blocking {}.",
)
mute = _stance_view(
    "mute",
    blocking.mute,
    "You muted {}: their twits and notifications leave your home stream. They are not told.",
    "You already mute {}.",
    undo=("unmute", "Unmute"),
)
unmute = _stance_view(
    "unmute",
    blocking.unmute,
    "You unmuted {}.",
    "You were not muting {}.",
    undo=("mute", "Mute"),
)
