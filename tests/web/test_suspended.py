"""A disabled account is suspended in public (issue 9): its profile, lists
and twits are a 404 that says so, it cannot be followed, and its log-in says
it is suspended."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.types import User
from tests.helpers import PASSWORD


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
