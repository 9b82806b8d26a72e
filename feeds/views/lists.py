"""Lists on the web: the Lists page (one's lists, and a form for a new
one), a list's page (its timeline and its members; its owner removes
members and deletes it there), and a profile's "Add to list" page, which
puts the account on one's lists or takes it off. Each view calls one verb
of services.lists."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from feeds.errors import ServiceError
from feeds.forms import ListForm
from feeds.services import accounts, lists
from feeds.viewhelpers import cursor_param, post_only, redirect_to_login, safe_next

from ._common import FormPage, form_on, login_required, me, reader, service_errors
from .mentions import profiles_for

MEMBERS_SHOWN = 100  # members a list's page shows; the API pages through all

_explain = form_on("the Lists page", "lists", "Go to Lists")


def _render(page: FormPage) -> HttpResponse:
    mine = lists.lists_of(me(page.request).userid, page.cursor, limit=50)
    return page.render(
        "lists.html", {"lists_page": mine, "cursor": page.cursor, "lists_max": lists.LISTS_MAX}
    )


@service_errors
def lists_page(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("lists"))
    return _render(FormPage(request, ListForm()))


@post_only(_explain("Make a list"))
@login_required
@service_errors
def create(request: HttpRequest) -> HttpResponse:
    """A new list; a refused name stays in the box with the reason, 400."""
    page = FormPage(request, ListForm(request.POST))
    if page.valid:
        data = page.form.cleaned_data
        try:
            made = lists.create_list(me(request), data["name"], data["description"])
        except ServiceError as exc:
            page.refuse(exc)
        else:
            messages.success(
                request, f"You made the list “{made.name}”. Add people from their profiles."
            )
            return redirect("list", made.id)
    return _render(page)


@service_errors
def list_page(request: HttpRequest, list_id: str) -> HttpResponse:
    viewer = reader(request)
    found = lists.get_list(list_id, viewer)
    cursor = cursor_param(request)
    page = lists.list_timeline(found.id, cursor, reader=viewer)
    members = lists.members(found.id, limit=MEMBERS_SHOWN, reader=viewer)
    context = {
        "list": found,
        "page": page,
        "cursor": cursor,
        "members": members.items,
        "more_members": members.next_cursor is not None,
        "owner": accounts.public_user(found.owner),
        "is_owner": viewer is not None and viewer.userid.lower() == found.owner.lower(),
        "profiles": profiles_for(t.text for t in page.items),
    }
    return render(request, "list.html", context)


def _explain_on_list(request: HttpRequest, list_id: str, *args: str) -> dict[str, object]:
    return {
        "heading": "Change a list from its page",
        "reason": "This takes a button on the list's page.",
        "link": reverse("list", args=[list_id]),
        "link_label": "Go to the list",
    }


@post_only(_explain_on_list)
@login_required
@service_errors
def delete(request: HttpRequest, list_id: str) -> HttpResponse:
    found = lists.get_list(list_id, reader(request))
    lists.delete_list(me(request).userid, list_id)
    messages.success(request, f"You deleted the list “{found.name}”.")
    return redirect("lists")


@post_only(_explain_on_list)
@login_required
@service_errors
def remove_member(request: HttpRequest, list_id: str, userid: str) -> HttpResponse:
    lists.remove_member(me(request).userid, list_id, userid)
    messages.success(request, f"@{userid} is off the list.")
    return redirect(safe_next(request, reverse("list", args=[list_id])))


@service_errors
def add_to_list(request: HttpRequest, userid: str) -> HttpResponse:
    """The profile's "Add to list": one's lists, each with a button that
    puts ``userid`` on it or takes them off."""
    user = accounts.public_user(userid)
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("add_to_list", args=[user.userid]))
    mine = lists.listed_in(me(request).userid, user.userid)
    return render(request, "add_to_list.html", {"user": user, "mine": mine})


def _explain_profile(request: HttpRequest, userid: str, *args: str) -> dict[str, object]:
    return {
        "heading": "Add to a list from the profile",
        "reason": "Use “Add to list” in the profile's … menu.",
        "link": reverse("add_to_list", args=[userid]),
        "link_label": "Choose a list",
    }


@post_only(_explain_profile)
@login_required
@service_errors
def toggle_member(request: HttpRequest, userid: str, list_id: str) -> HttpResponse:
    """Put ``userid`` on the list, or take them off if they are on it."""
    owner = me(request).userid
    found = lists.get_list(list_id, owner)
    if lists.is_member(list_id, userid):
        lists.remove_member(owner, list_id, userid)
        messages.success(request, f"@{userid} is off “{found.name}”.")
    else:
        lists.add_member(owner, list_id, userid)
        messages.success(request, f"@{userid} is on “{found.name}”.")
    return redirect(safe_next(request, reverse("add_to_list", args=[userid])))
