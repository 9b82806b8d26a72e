"""Finding things: a hashtag's twits, users by userid or name, twits by their words."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from feeds import services
from feeds.errors import InvalidInput
from feeds.services import search as search_service
from feeds.viewhelpers import cursor_param

from ._common import moved, reader, service_errors
from .mentions import profiles_for


@service_errors
def tag(request: HttpRequest, tag: str) -> HttpResponse:
    """A hashtag's twits, newest first. Any spelling of a tag redirects to its
    normalised one (/tags/TEA to /tags/tea), so a tag has one URL; a bad tag
    is the short error page, 400."""
    normal = services.check_tag(tag)
    if normal != tag:
        return moved(request, "tag", normal)
    cursor = cursor_param(request)
    page = services.tag_twits(normal, cursor, reader=reader(request))
    profiles = profiles_for(t.text for t in page.items)
    context = {"tag": normal, "page": page, "cursor": cursor, "profiles": profiles}
    return render(request, "tag.html", context)


@service_errors
def search(request: HttpRequest) -> HttpResponse:
    """The search page: users whose userid or name starts with ``q``, or
    (``in=twits``) twits with all of its words, newest first; a query
    starting with '#' goes to that hashtag's page. No query shows the form;
    an empty, too long or otherwise bad one shows why beside it (400)."""
    q = request.GET.get("q")
    where = "twits" if request.GET.get("in") == "twits" else "people"
    context: dict[str, object] = {"q": q or "", "page": None, "problem": None, "searching": where}
    if q is None:
        return render(request, "search.html", context)
    cursor = cursor_param(request)
    try:
        if q.strip().startswith("#"):
            return redirect("tag", services.check_tag(q))
        if where == "twits":
            found = search_service.search_twits(q, cursor, reader=reader(request))
            context.update(page=found, profiles=profiles_for(t.text for t in found.items))
        else:
            context.update(page=services.search_users(q, cursor))
        context.update(cursor=cursor)
    except InvalidInput as exc:
        context["problem"] = exc.message
        return render(request, "search.html", context, status=400)
    return render(request, "search.html", context)
