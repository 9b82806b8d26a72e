"""Twit permalinks and deleting one's own twits."""

from __future__ import annotations

from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.types import User

from .test_home import twit_texts


def test_permalink_shows_the_twit(alice: User) -> None:
    twit = services.post_twit("alice", "a twit of its own")
    response = Client().get(f"/u/alice/t/{twit.id}")
    assert response.status_code == 200
    html = response.content.decode()
    assert twit_texts(html) == ["a twit of its own"]
    assert 'href="/u/alice"' in html


def test_stream_links_each_twit_to_its_permalink(alice_client: Client) -> None:
    alice_client.post("/", {"text": "link me"})
    twit = services.timeline("alice").items[0]
    assert f'href="/u/alice/t/{twit.id}"' in alice_client.get("/").content.decode()


def test_permalink_under_another_user_or_unknown_id_is_404(
    alice: User, bob: User, settings: Settings
) -> None:
    twit = services.post_twit("alice", "mine")
    settings.DEBUG = True
    for url in (
        f"/u/bob/t/{twit.id}",
        f"/u/nobody/t/{twit.id}",
        "/u/alice/t/" + "0" * 56,
        "/u/alice/t/not-an-id",
    ):
        response = Client().get(url)
        assert response.status_code == 404, url
        assert "Nothing here" in response.content.decode(), url


def test_permalink_in_another_case_redirects(alice: User) -> None:
    twit = services.post_twit("alice", "mine")
    response = Client().get(f"/u/Alice/t/{twit.id}")
    assert response["Location"] == f"/u/alice/t/{twit.id}"


def test_delete_own_twit(alice_client: Client) -> None:
    alice_client.post("/", {"text": "regrettable"})
    twit = services.timeline("alice").items[0]
    html = alice_client.get("/").content.decode()
    # Delete is a link to a confirmation page, which posts the delete.
    assert f'href="/u/alice/t/{twit.id}/delete?next=/&amp;back=/"' in html
    confirm = alice_client.get(f"/u/alice/t/{twit.id}/delete?next=/&back=/").content.decode()
    assert f'action="/u/alice/t/{twit.id}/delete"' in confirm
    assert 'name="next" value="/"' in confirm
    response = alice_client.post(f"/u/alice/t/{twit.id}/delete", {"next": "/"})
    assert response.status_code == 302
    assert response["Location"] == "/"
    html = alice_client.get("/").content.decode()
    assert "Your twit is deleted." in html
    assert "regrettable" not in html
    assert Client().get(f"/u/alice/t/{twit.id}").status_code == 404


def test_delete_from_permalink_goes_to_profile(alice_client: Client) -> None:
    alice_client.post("/", {"text": "short-lived"})
    twit = services.timeline("alice").items[0]
    html = alice_client.get(f"/u/alice/t/{twit.id}").content.decode()
    link = f"/u/alice/t/{twit.id}/delete?next=/u/alice&amp;back=/u/alice/t/{twit.id}"
    assert f'href="{link}"' in html
    confirm = alice_client.get(link.replace("&amp;", "&")).content.decode()
    assert 'name="next" value="/u/alice"' in confirm
    assert f'href="/u/alice/t/{twit.id}">Cancel</a>' in confirm
    response = alice_client.post(f"/u/alice/t/{twit.id}/delete", {"next": "/u/alice"})
    assert response["Location"] == "/u/alice"


def test_cannot_delete_someone_elses_twit(alice: User, bob_client: Client) -> None:
    twit = services.post_twit("alice", "alice's words")
    services.follow("bob", "alice")
    html = bob_client.get("/").content.decode()
    assert twit_texts(html) == ["alice's words"]
    assert "/delete" not in html
    assert "/delete" not in bob_client.get(f"/u/alice/t/{twit.id}").content.decode()
    response = bob_client.post(f"/u/alice/t/{twit.id}/delete")
    assert response.status_code == 403
    assert "You can delete only your own twits." in response.content.decode()
    assert services.get_twit(twit.id).text == "alice's words"


def test_visitor_cannot_delete(alice: User) -> None:
    twit = services.post_twit("alice", "stays")
    assert "/delete" not in Client().get(f"/u/alice/t/{twit.id}").content.decode()
    response = Client().post(f"/u/alice/t/{twit.id}/delete", {"next": f"/u/alice/t/{twit.id}"})
    assert response["Location"] == f"/login?next=/u/alice/t/{twit.id}"
    assert services.get_twit(twit.id).text == "stays"


def test_delete_needs_post(alice_client: Client) -> None:
    # A GET is the confirmation page (issue 11): it deletes nothing.
    alice_client.post("/", {"text": "stays"})
    twit = services.timeline("alice").items[0]
    response = alice_client.get(f"/u/alice/t/{twit.id}/delete")
    assert response.status_code == 200
    assert "Delete this twit?" in response.content.decode()
    assert services.get_twit(twit.id).text == "stays"
    assert alice_client.put(f"/u/alice/t/{twit.id}/delete").status_code == 405
