"""Who gets into the console: staff only; anonymous visitors log in first."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from django.test import Client

from feeds import services
from feeds.types import User

from .helpers import PAGES, audit_actions, text_of

ACTIONS = [
    ("/console/users/bob/disable", {}),
    ("/console/users/bob/enable", {}),
    ("/console/twits/delete", {"twit_id": "0" * 56}),
    ("/console/fanout/requeue", {"twit_id": "0" * 56}),
    ("/console/fanout/sweep", {}),
    ("/console/tables/count", {"table": "users"}),
]


@pytest.mark.parametrize("page", PAGES)
def test_anonymous_visitor_is_sent_to_log_in_and_back(page: str, alice: User) -> None:
    response = Client().get(page)
    assert response.status_code == 302
    assert response["Location"] == "/login?next=" + quote(page, safe="/")


def test_anonymous_post_changes_nothing_and_asks_to_log_in(bob: User) -> None:
    response = Client().post("/console/users/bob/disable")
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=")
    assert not services.get_user("bob").disabled


def test_after_logging_in_staff_land_on_the_page_they_asked_for(sam: User) -> None:
    client = Client()
    response = client.post(
        "/login", {"userid": "sam", "password": "password-123", "next": "/console/tables"}
    )
    assert response["Location"] == "/console/tables"


@pytest.mark.parametrize("page", PAGES)
def test_a_user_without_staff_access_gets_403(page: str, alice_client: Client) -> None:
    response = alice_client.get(page)
    assert response.status_code == 403
    assert "Staff only" in text_of(response)


@pytest.mark.parametrize(("action", "data"), ACTIONS)
def test_a_user_without_staff_access_cannot_act(
    action: str, data: dict[str, str], alice_client: Client, bob: User
) -> None:
    response = alice_client.post(action, data)
    assert response.status_code == 403
    assert not services.get_user("bob").disabled
    assert audit_actions() == []


@pytest.mark.parametrize("page", PAGES)
def test_staff_see_every_page(page: str, staff_client: Client, alice: User) -> None:
    response = staff_client.get(page)
    assert response.status_code == 200, text_of(response)
    assert 'aria-label="Console"' in response.content.decode()


def test_actions_take_post_only(staff_client: Client, bob: User) -> None:
    assert staff_client.get("/console/users/bob/disable").status_code == 405
    assert not services.get_user("bob").disabled


def test_the_console_link_shows_for_staff_only(staff_client: Client, alice_client: Client) -> None:
    assert 'href="/console/"' in staff_client.get("/").content.decode()
    assert 'href="/console/"' not in alice_client.get("/").content.decode()


def test_revoking_staff_closes_the_console_at_once(staff_client: Client) -> None:
    assert staff_client.get("/console/").status_code == 200
    services.set_staff("sam", False)
    assert staff_client.get("/console/").status_code == 403
