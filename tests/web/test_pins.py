"""Pinning from a twit's page; the profile shows the pinned twit first;
the API's pinTwit and unpinTwit."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.types import User
from tests.api.helpers import Api, error
from tests.console.helpers import text_of


def test_pin_from_the_twit_page_and_see_it_on_top_of_the_profile(
    alice_client: Client, bob: User
) -> None:
    old = services.post_twit("alice", "the one to pin")
    services.post_twit("alice", "newer")
    page = text_of(alice_client.get(f"/u/alice/t/{old.id}"))
    assert "Pin to your profile" in page
    done = alice_client.post(f"/u/alice/t/{old.id}/pin")
    assert done.status_code == 302 and done["Location"] == "/u/alice"
    html = alice_client.get("/u/alice").content.decode()
    assert html.index("Pinned") < html.index("the one to pin") < html.index("newer")
    assert "Unpin from your profile" in text_of(alice_client.get(f"/u/alice/t/{old.id}"))
    alice_client.post(f"/u/alice/t/{old.id}/pin")
    assert services.get_user("alice").pinned == ""
    theirs = services.post_twit("bob", "bob's")
    assert alice_client.post(f"/u/bob/t/{theirs.id}/pin").status_code == 403
    assert alice_client.get(f"/u/alice/t/{old.id}/pin").status_code == 405


def test_the_api_pins_and_unpins(alice: User) -> None:
    api = Api(Client())
    as_alice = api.login("alice")
    twit = services.post_twit("alice", "pinned by API")
    pinned = as_alice.request("PUT", "/api/users/me/pinned", {"twit": twit.id})
    assert pinned.status_code == 200 and pinned.json() == {"twit": twit.id}
    assert api.get("/api/users/alice").json()["pinned"] == twit.id
    assert as_alice.delete("/api/users/me/pinned").json() == {"twit": None}
    assert api.get("/api/users/alice").json()["pinned"] is None
    error(as_alice.request("PUT", "/api/users/me/pinned", {"twit": "0" * 56}), 404)
    error(as_alice.request("PUT", "/api/users/bob/pinned", {"twit": twit.id}), 403)
    error(as_alice.request("PUT", "/api/users/me/pinned", {"twit": 5}), 400)
