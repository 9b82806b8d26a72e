"""Profiles, follower and following lists, follow buttons, the 404 page."""

from __future__ import annotations

import re

from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.types import User
from tests.helpers import ServerAddr, register

from .helpers import post_in_order
from .test_home import older_link, twit_texts


def stats(html: str) -> list[str]:
    """The profile's counts as shown, e.g. ["2 twits", "1 follower", "0 following"]."""
    block = re.search(r'<ul class="stats">(.*?)</ul>', html, flags=re.DOTALL)
    assert block
    text = re.sub(r"<[^>]+>", "", block.group(1))
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def listed_userids(html: str) -> list[str]:
    return re.findall(r'<span class="person-userid">@(\w+)</span>', html)


def test_profile_shows_counts_and_twits_newest_first(alice: User, bob: User) -> None:
    post_in_order("alice", ["first", "second"])
    services.follow("bob", "alice")
    response = Client().get("/u/alice")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Alice</h1>" in html
    assert stats(html) == ["2 twits", "1 follower", "0 following"]
    assert twit_texts(html) == ["second", "first"]


def test_follow_and_unfollow_buttons(alice: User, bob_client: Client) -> None:
    html = bob_client.get("/u/alice").content.decode()
    assert 'action="/u/alice/follow"' in html
    response = bob_client.post("/u/alice/follow", {"next": "/u/alice"})
    assert response.status_code == 302
    assert response["Location"] == "/u/alice"
    assert services.is_following("bob", "alice")
    html = bob_client.get("/u/alice").content.decode()
    assert 'action="/u/alice/unfollow"' in html
    assert stats(html)[1] == "1 follower"
    bob_client.post("/u/alice/unfollow", {"next": "/u/alice"})
    assert not services.is_following("bob", "alice")
    assert stats(bob_client.get("/u/alice").content.decode())[1] == "0 followers"


def test_follow_and_unfollow_need_post(alice: User, bob_client: Client) -> None:
    assert bob_client.get("/u/alice/follow").status_code == 405
    assert bob_client.get("/u/alice/unfollow").status_code == 405
    assert not services.is_following("bob", "alice")


def test_own_profile_has_no_follow_button(alice_client: Client) -> None:
    html = alice_client.get("/u/alice").content.decode()
    assert "Edit profile" in html
    assert '/follow"' not in html


def test_following_yourself_is_refused(alice_client: Client) -> None:
    response = alice_client.post("/u/alice/follow")
    assert response.status_code == 400
    assert "You cannot follow yourself." in response.content.decode()


def test_visitor_follow_button_leads_to_log_in(alice: User) -> None:
    html = Client().get("/u/alice").content.decode()
    assert 'href="/login?next=/u/alice"' in html


def test_profile_url_takes_any_case_and_redirects_to_the_userid_as_spelt(
    alice: User,
) -> None:
    response = Client().get("/u/ALICE?cursor=x")
    assert response.status_code == 302
    assert response["Location"] == "/u/alice?cursor=x"


def test_follower_and_following_lists_page_back(web: ServerAddr, alice: User) -> None:
    fans = [f"fan{i:02d}" for i in range(22)]
    for userid in fans:
        register(userid)
        services.follow(userid, "alice")
    services.follow("alice", "fan00")
    html = Client().get("/u/alice/followers").content.decode()
    first = listed_userids(html)
    assert len(first) == 20
    older = older_link(html)
    assert older is not None and older.startswith("/u/alice/followers?cursor=")
    rest = listed_userids(Client().get(older).content.decode())
    assert sorted(first + rest) == fans
    html = Client().get("/u/alice/following").content.decode()
    assert listed_userids(html) == ["fan00"]
    assert older_link(html) is None


def test_empty_lists_say_so(alice: User) -> None:
    assert "No one follows Alice yet." in Client().get("/u/alice/followers").content.decode()
    assert "Alice does not follow anyone yet." in (
        Client().get("/u/alice/following").content.decode()
    )


def test_unknown_user_gets_the_friendly_404_page(web: ServerAddr, settings: Settings) -> None:
    for debug in (False, True):
        settings.DEBUG = debug
        for url in ("/u/nobody", "/u/nobody/followers", "/u/nobody/following", "/u/no%20way"):
            response = Client().get(url)
            assert response.status_code == 404, url
            assert "Nothing here" in response.content.decode(), url


def test_unknown_url_gets_the_404_page(web: ServerAddr) -> None:
    response = Client().get("/no/such/page")
    assert response.status_code == 404
    assert "Nothing here" in response.content.decode()


def test_following_unknown_user_is_404(alice_client: Client) -> None:
    assert alice_client.post("/u/nobody/follow").status_code == 404
