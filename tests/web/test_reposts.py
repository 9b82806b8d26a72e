"""Likes and reposts on the web: the buttons under each twit (forms that
POST, no JavaScript), "reposted by" in the home stream, the counts, and the
reader's own state on every page that lists twits."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.types import User

from .helpers import logged_in


def test_repost_button_reposts_and_home_shows_reposted_by(
    alice: User, bob_client: Client, charlie: User
) -> None:
    services.follow("charlie", "bob")
    twit = services.post_twit("alice", "good news")
    response = bob_client.post(f"/u/alice/t/{twit.id}/repost", {"next": "/u/alice"})
    assert (response.status_code, response["Location"]) == (302, "/u/alice")
    assert services.get_twit(twit.id).reposts == 1
    html = logged_in("charlie").get("/").content.decode()
    assert 'Reposted by <a href="/u/bob">Bob' in html
    assert "good news" in html
    # bob sees his own repost as his, and the button as undo.
    html = bob_client.get("/").content.decode()
    assert 'Reposted by <a href="/u/bob">you</a>' in html
    assert f'action="/u/alice/t/{twit.id}/unrepost"' in html
    assert "Reposted · 1" in html
    bob_client.post(f"/u/alice/t/{twit.id}/unrepost", {"next": "/"})
    assert "good news" not in logged_in("charlie").get("/").content.decode()


def test_like_button_toggles_and_every_list_shows_the_readers_state(
    alice: User, bob_client: Client
) -> None:
    services.follow("bob", "alice")
    twit = services.post_twit("alice", "like this")
    reply = services.post_twit("alice", "and this reply", reply_to=twit.id)
    bob_client.post(f"/u/alice/t/{twit.id}/like", {"next": "/"})
    bob_client.post(f"/u/alice/t/{reply.id}/like", {"next": "/"})
    for path in ("/", "/u/alice", f"/u/alice/t/{twit.id}"):
        html = bob_client.get(path).content.decode()
        assert f'action="/u/alice/t/{twit.id}/unlike"' in html, path
        assert f'action="/u/alice/t/{reply.id}/unlike"' in html, path
        assert "Liked · 1" in html, path
    bob_client.post(f"/u/alice/t/{twit.id}/unlike", {"next": "/"})
    html = bob_client.get("/u/alice").content.decode()
    assert f'action="/u/alice/t/{twit.id}/like"' in html
    assert services.get_twit(twit.id).likes == 0


def test_own_twits_have_no_repost_button_and_visitors_see_counts(
    alice_client: Client, bob: User
) -> None:
    twit = services.post_twit("alice", "mine")
    services.like("bob", twit.id)
    html = alice_client.get("/u/alice").content.decode()
    assert f"/u/alice/t/{twit.id}/repost" not in html
    assert f'action="/u/alice/t/{twit.id}/like"' in html
    html = Client().get("/u/alice").content.decode()
    assert "1 like" in html and "/like" not in html
    # The refusal, if asked anyway, is a page that says why.
    response = alice_client.post(f"/u/alice/t/{twit.id}/repost")
    assert response.status_code == 403
    assert "your own" in response.content.decode()


def test_a_get_or_a_visitor_does_not_repost(alice: User, bob: User) -> None:
    twit = services.post_twit("alice", "not by a link")
    response = logged_in("bob").get(f"/u/alice/t/{twit.id}/repost")
    assert (response.status_code, response["Allow"]) == (405, "POST")
    response = Client().post(f"/u/alice/t/{twit.id}/repost")
    assert response.status_code == 302 and response["Location"].startswith("/login")
    assert services.get_twit(twit.id).reposts == 0
