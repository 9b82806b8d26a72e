"""A twit's page, with the chain it replies to and its replies; deleting
it; and the like and repost buttons."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from feeds import services
from feeds.errors import InvalidInput, NotFound
from feeds.forms import ReplyForm
from feeds.services import blocks, reactions
from feeds.services.twits import editable
from feeds.types import Twit
from feeds.viewhelpers import Explain, View, post_only, redirect_to_login, safe_next

from ._common import FormPage, here, in_place, login_required, me, not_found, reader, service_errors
from .mentions import profiles_for

QUOTES_SHOWN = 3  # on a twit's page; the rest on its quotes page (views/quotes.py)


@require_http_methods(["GET", "HEAD", "POST"])
@service_errors
def twit(request: HttpRequest, userid: str, twit_id: str) -> HttpResponse:
    """One twit on a page of its own, with the chain it replies to above it
    and its replies below, oldest first, paged; 404 unless ``userid`` is its
    author, and while the author is suspended.

    A POST (the Reply form) posts a reply and comes back to this thread, at
    the reply (``?reply=<id>#t-<id>``): among the replies if this page lists
    it, else first above them; posted in place (inplace.js), the answer is
    the reply alone. A rejected reply re-renders the page with the text kept
    and the reason: 400, or 429 over the rate limit.
    """
    if request.method == "POST" and not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    found = services.public_twit(twit_id)
    if found.userid.lower() != userid.lower():
        return not_found(request)
    page = FormPage(request, ReplyForm(request.POST or None))
    if found.userid != userid and not page.posted:
        return redirect("twit", found.userid, found.id)
    if page.valid:
        try:
            reply = services.post_twit(me(request), page.form.cleaned_data["text"], found.id)
        except (services.RateLimited, InvalidInput) as exc:
            page.refuse(exc)
        else:
            if in_place(request):
                # The reply alone, for inplace.js to show under the reply box.
                context = {"twit": reply, "profiles": profiles_for([reply.text])}
                return render(request, "_my_reply.html", context)
            messages.success(request, "Your reply is posted.")
            thread_url = reverse("twit", args=[found.userid, found.id])
            return redirect(f"{thread_url}?reply={reply.id}#t-{reply.id}")
    cursor = page.cursor
    # The twit, its chain and its replies, hydrated in one step.
    thread = services.thread(found, cursor, reader(request))
    # Opened by a reader who blocks its author: shown as read, with why, and
    # without the replies, likes and reposts the block refuses.
    blocking = (
        thread.hidden
        and request.user.is_authenticated
        and blocks.stance(me(request).userid, found.userid).blocking
    )
    my_reply = _my_reply(request, found, thread.replies.items)
    # The newest quotes, for a twit that has some (its count says so at no cost).
    quotes = (
        services.quotes(found.id, None, QUOTES_SHOWN, reader(request))
        if thread.twit.quotes
        else None
    )
    shown = [
        thread.twit,
        *thread.chain,
        *thread.replies.items,
        my_reply,
        *(quotes.items if quotes else ()),
    ]
    return page.render(
        "twit.html",
        {
            "twit": thread.twit,
            "chain": thread.chain,
            "page": thread.replies,
            "cursor": cursor,
            "my_reply": my_reply,
            "profiles": profiles_for(t.text for t in shown if t is not None),
            "bookmarked": _bookmarked(request, found.id),
            "can_edit": editable(thread.twit),  # the author's Edit link
            "quotes": quotes,
            "blocking": blocking,
        },
    )


def _bookmarked(request: HttpRequest, twit_id: str) -> bool:
    """Whether the signed-in reader has the twit bookmarked (for its page's button)."""
    user = reader(request)
    return user is not None and bool(reactions.reacted(reactions.BOOKMARK, user.userid, [twit_id]))


def _my_reply(request: HttpRequest, parent: Twit, listed: tuple[Twit, ...]) -> Twit | None:
    """The reply named by ``?reply=`` when it is the reader's own reply to
    ``parent`` and the page does not list it already (it is newer than the
    page's replies, which run oldest first)."""
    reply_id = request.GET.get("reply", "")
    if not reply_id or not request.user.is_authenticated:
        return None
    if any(t.id == reply_id for t in listed):
        return None
    try:
        reply = services.get_twit(reply_id)
    except (InvalidInput, NotFound):
        return None
    mine = reply.userid.lower() == me(request).userid.lower()
    return reply if mine and reply.reply_to == parent.id else None


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
    user = me(request)
    after = safe_next(request, reverse("profile", args=[user.userid]))
    if request.method == "POST":
        services.delete_twit(user.userid, twit_id)
        messages.success(request, "Your twit is deleted.")
        return redirect(after)
    found = services.own_twit(user.userid, twit_id)
    back = safe_next(request, reverse("twit", args=[found.userid, found.id]), "back")
    return render(request, "delete_twit.html", {"twit": found, "next": after, "back": back})


def _explain_twit_action(verb: str) -> Explain:
    def explain(request: HttpRequest, userid: str, twit_id: str) -> dict[str, object]:
        return {
            "heading": f"{verb.capitalize()} a twit with its button",
            "reason": f"To {verb} a twit, use the button under it, so that no link can "
            "do it for you.",
            "link": reverse("twit", args=[userid, twit_id]),
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
        acted = action(me(request).userid, twit_id)
        twit_url = reverse("twit", args=[userid, twit_id])
        if in_place(request):
            return render(request, form, {"twit": acted, "here": here(request, twit_url)})
        if done:
            messages.success(request, done)
        return redirect(safe_next(request, twit_url))

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
