"""Lists on the web: the Lists page and its form, a list's page, and the
profile's "Add to list"."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.services import lists
from feeds.types import User
from tests.console.helpers import text_of


def test_make_a_list_add_from_a_profile_read_and_delete_it(
    alice_client: Client, bob: User, client: Client
) -> None:
    assert client.get("/lists").status_code == 302  # to log in
    refused = alice_client.post("/lists/new", {"name": "x" * 51})
    assert refused.status_code == 400 and "at most 50 characters" in text_of(refused)
    made = alice_client.post("/lists/new", {"name": "Data people", "description": "HBase folk"})
    assert made.status_code == 302
    lid = made["Location"].rsplit("/", 1)[1]
    assert "Data people" in text_of(alice_client.get("/lists"))
    assert "Add to list" in text_of(alice_client.get("/u/bob"))
    assert "Add" in text_of(alice_client.get("/u/bob/lists"))
    added = alice_client.post(f"/u/bob/lists/{lid}")
    assert added.status_code == 302 and added["Location"] == "/u/bob/lists"
    assert lists.is_member(lid, "bob")
    services.post_twit("bob", "regions and rows")
    page = text_of(client.get(f"/lists/{lid}"))  # public: anyone reads it
    assert "regions and rows" in page and "1 member" in page and "Delete this list" not in page
    alice_client.post(f"/lists/{lid}/members/bob/remove")
    assert not lists.is_member(lid, "bob")
    assert alice_client.get(f"/lists/{lid}/delete").status_code == 405
    assert client.post(f"/lists/{lid}/delete").status_code == 302  # to log in; still there
    assert alice_client.post(f"/lists/{lid}/delete").status_code == 302
    assert client.get(f"/lists/{lid}").status_code == 404
    assert client.get("/lists/junk").status_code == 404
