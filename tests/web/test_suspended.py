"""A disabled account is suspended in public (issue 9): its profile, lists
and twits are a 404 that says so, it cannot be followed, and its log-in says
it is suspended."""

from __future__ import annotations

from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import streams
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import PASSWORD
from tests.images import image


def test_a_suspended_accounts_pages_say_so_with_404(alice: User, bob_client: Client) -> None:
    twit = services.post_twit("alice", "hello from alice")
    pages = ["/u/alice", "/u/alice/followers", "/u/alice/following", f"/u/alice/t/{twit.id}"]
    for page in pages:
        assert Client().get(page).status_code == 200, page
    pages.append("/u/ALICE")  # no redirect to the canonical spelling first
    services.set_disabled("alice")
    for client in (Client(), bob_client):
        for page in pages:
            response = client.get(page)
            assert response.status_code == 404, page
            html = response.content.decode()
            assert "This account is suspended." in html, page
            assert "hello from alice" not in html, page
    # Enabled again: public again.
    services.set_disabled("alice", False)
    assert "hello from alice" in Client().get("/u/alice").content.decode()


def test_a_suspended_account_cannot_be_followed(alice: User, bob_client: Client) -> None:
    services.set_disabled("alice")
    response = bob_client.post("/u/alice/follow", {"next": "/u/alice"})
    assert response.status_code == 404
    assert "it cannot be followed" in response.content.decode()
    assert not services.is_following("bob", "alice")
    assert services.get_user("alice").followers == 0


def test_a_suspended_account_can_still_be_unfollowed(alice: User, bob_client: Client) -> None:
    services.follow("bob", "alice")
    services.set_disabled("alice")
    assert bob_client.post("/u/alice/unfollow").status_code == 302
    assert not services.is_following("bob", "alice")


def test_logging_in_to_a_suspended_account_says_so(alice: User) -> None:
    services.set_disabled("alice")
    response = Client().post("/login", {"userid": "alice", "password": PASSWORD})
    assert response.status_code == 403
    assert "This account is suspended." in response.content.decode()
    # A wrong password tells a stranger nothing about the account.
    response = Client().post("/login", {"userid": "alice", "password": "wrong-password"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "That userid and password do not match an account." in html
    assert "suspended" not in html


def test_a_suspended_authors_twits_leave_followers_home_streams(
    alice: User, bob_client: Client
) -> None:
    services.follow("bob", "alice")
    services.post_twit("bob", "bob's own twit")
    services.post_twit("alice", "alice's twit for bob")
    assert "alice&#x27;s twit for bob" in bob_client.get("/").content.decode()
    services.set_disabled("alice")
    home = bob_client.get("/").content.decode()
    assert "alice&#x27;s twit for bob" not in home
    assert "bob&#x27;s own twit" in home
    services.set_disabled("alice", False)
    assert "alice&#x27;s twit for bob" in bob_client.get("/").content.decode()


def test_a_suspended_large_accounts_twits_leave_home_streams_too(
    alice: User, bob: User, charlie: User, bob_client: Client, settings: Settings
) -> None:
    # A large account's twits are not fanned out: readers merge them from
    # the twits table, a path the stream rows' filter must cover as well.
    settings.TWITBASE_CELEBRITY_THRESHOLD = 1
    settings.TWITBASE_CELEBRITY_CACHE_S = 0
    streams.CELEBRITIES.clear()
    services.follow("bob", "alice")
    services.follow("charlie", "alice")
    services.post_twit("alice", "the twit that lists alice")
    merged = services.post_twit("alice", "merged at read time")
    with connection() as conn:
        stream_row = keys.stream_key("bob", bytes.fromhex(merged.id))
        assert not conn.table(table_name("streams")).row(stream_row), "it was fanned out"
    assert "merged at read time" in bob_client.get("/").content.decode()
    services.set_disabled("alice")
    home = bob_client.get("/").content.decode()
    assert "merged at read time" not in home
    assert "the twit that lists alice" not in home
    services.set_disabled("alice", False)
    assert "merged at read time" in bob_client.get("/").content.decode()


def test_a_suspended_accounts_avatar_is_a_404_like_its_profile(
    alice: User, bob: User, bob_client: Client
) -> None:
    services.set_avatar("alice", image())
    version = services.get_user("alice").avatar
    urls = ["/u/alice/avatar", f"/u/alice/avatar?v={version}", "/u/bob/avatar"]
    for url in urls:
        assert Client().get(url).status_code == 200, url
    services.set_disabled("alice")
    services.set_disabled("bob")  # no upload: the default picture hides too
    for client in (Client(), bob_client):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 404, url
            assert response["Content-Type"].startswith("text/html"), url
            assert "This account is suspended." in response.content.decode(), url
    services.set_disabled("alice", False)
    shown = Client().get(f"/u/alice/avatar?v={version}")
    assert shown.status_code == 200 and shown["Content-Type"] == "image/webp"
