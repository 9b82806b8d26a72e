"""Like, repost and follow keep the reader's place. Without JavaScript the
forms POST and the redirect comes back to the twit (``#t-<id>``) or the
person (``#u-<userid>``) acted on, not the top of the page; posted with
fetch (feeds/static/feeds/inplace.js, ``X-Requested-With: fetch``), the view
answers with the form as it now is, and no message is left for a later page.
"""

from __future__ import annotations

import re

from django.test import Client

from feeds import services
from feeds.types import User

IN_PLACE = {"HTTP_X_REQUESTED_WITH": "fetch"}


def _form(html: str, action: str) -> dict[str, str]:
    """The fields of the form posting to ``action``, as a browser sends them."""
    found = re.search(rf'<form [^>]*action="{re.escape(action)}">(.*?)</form>', html, re.S)
    assert found, f"no form for {action}"
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', found.group(1)))


def test_like_and_repost_without_javascript_come_back_to_the_twit(
    alice: User, bob_client: Client
) -> None:
    services.follow("bob", "alice")
    twit = services.post_twit("alice", "far down the page")
    services.post_twit("alice", "newer, above it")
    html = bob_client.get("/").content.decode()
    assert f'<article class="twit" id="t-{twit.id}">' in html
    for verb in ("like", "repost", "unlike", "unrepost"):
        action = f"/u/alice/t/{twit.id}/{verb}"
        fields = _form(html, action)
        assert fields["next"] == f"/#t-{twit.id}"
        response = bob_client.post(action, fields)
        assert (response.status_code, response["Location"]) == (302, f"/#t-{twit.id}"), verb
        html = bob_client.get("/").content.decode()
    # On a later page of a profile, the page's own query string is kept.
    page = bob_client.get("/u/alice?cursor=").content.decode()
    assert _form(page, f"/u/alice/t/{twit.id}/like")["next"] == f"/u/alice?cursor=#t-{twit.id}"


def test_follow_without_javascript_comes_back_to_the_person_in_the_list(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("bob", "alice")
    client = Client()
    client.post("/login", {"userid": "charlie", "password": "password-123"})
    html = client.get("/u/alice/followers").content.decode()
    assert '<li class="person" id="u-bob">' in html
    fields = _form(html, "/u/bob/follow")
    assert fields["next"] == "/u/alice/followers#u-bob"
    response = client.post("/u/bob/follow", fields)
    assert response["Location"] == "/u/alice/followers#u-bob"
    assert services.is_following("charlie", "bob")


def test_posted_in_place_the_answer_is_the_form_as_it_now_is(
    alice: User, bob_client: Client
) -> None:
    twit = services.post_twit("alice", "like me in place")
    response = bob_client.post(
        f"/u/alice/t/{twit.id}/like", {"next": f"/u/alice#t-{twit.id}"}, **IN_PLACE
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith("<form") and html.count("<form") == 1
    assert f'action="/u/alice/t/{twit.id}/unlike"' in html
    assert 'aria-pressed="true"' in html and "Liked · 1" in html
    # The next post from it still comes back to the twit on the same page.
    assert _form(html, f"/u/alice/t/{twit.id}/unlike")["next"] == f"/u/alice#t-{twit.id}"
    assert services.get_twit(twit.id).likes == 1

    html = bob_client.post(
        f"/u/alice/t/{twit.id}/repost", {"next": "/u/alice"}, **IN_PLACE
    ).content.decode()
    assert f'action="/u/alice/t/{twit.id}/unrepost"' in html and "Reposted · 1" in html

    html = bob_client.post("/u/alice/follow", {"next": "/u/alice"}, **IN_PLACE).content.decode()
    assert 'action="/u/alice/unfollow"' in html and "Following" in html
    assert services.is_following("bob", "alice")
    html = bob_client.post("/u/alice/unfollow", {"next": "/u/alice"}, **IN_PLACE).content.decode()
    assert 'action="/u/alice/follow"' in html

    # No "Reposted: ..." or "You follow ..." waits for the next page.
    assert 'class="messages"' not in bob_client.get("/u/alice").content.decode()


def test_posted_in_place_an_error_is_still_the_error_page(alice: User, bob_client: Client) -> None:
    """inplace.js submits the form the ordinary way on a status other than 200."""
    mine = services.post_twit("bob", "my own")
    response = bob_client.post(f"/u/bob/t/{mine.id}/repost", {"next": "/"}, **IN_PLACE)
    assert response.status_code == 403
