"""Block and mute on the web: the profile's buttons, what a blocked
visitor meets, and the Muted and blocked page."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.services import blocks
from feeds.types import User
from tests.console.helpers import text_of


def test_blocking_from_a_profile_goes_back_with_a_message(alice_client: Client, bob: User) -> None:
    services.follow("alice", "bob")
    page = text_of(alice_client.get("/u/bob"))
    assert "Block @bob" in page and "Mute @bob" in page
    done = alice_client.post("/u/bob/block", {"next": "/u/bob"})
    assert done.status_code == 302 and done["Location"] == "/u/bob"
    after = text_of(alice_client.get("/u/bob"))
    assert "You blocked @bob" in after and "You block @bob" in after
    assert "Unblock @bob" in after and "Following" not in after
    assert not services.is_following("alice", "bob")
    alice_client.post("/u/bob/unblock", {"next": "/u/bob"})
    assert blocks.blocked("alice").items == ()


def test_a_blocked_visitor_is_told_and_sees_no_twits(
    alice_client: Client, bob_client: Client, client: Client
) -> None:
    twit = services.post_twit("alice", "not for bob")
    alice_client.post("/u/bob/block")
    for url in ("/u/alice", f"/u/alice/t/{twit.id}", "/u/alice/followers"):
        refused = bob_client.get(url)
        assert refused.status_code == 403, url
        page = text_of(refused)
        assert "@alice has blocked you" in page and "not for bob" not in page
        assert client.get(url).status_code == 200  # not signed in: public
    followed = bob_client.post("/u/alice/follow", {"next": "/u/alice"})
    assert followed.status_code == 403
    assert "@alice has blocked you" in text_of(followed)


def test_a_tag_page_hides_the_twits_of_whom_the_visitor_blocks_or_is_blocked_by(
    alice_client: Client, bob_client: Client, charlie: User
) -> None:
    """The page passes the visitor's marks to its hydrate step: a visitor
    with none is asked nothing, and one who blocks or is blocked is asked."""
    for author in ("alice", "bob", "charlie"):
        services.post_twit(author, f"by {author} #tea")
    shown = {"by alice", "by bob", "by charlie"}
    assert {t for t in shown if t in text_of(bob_client.get("/tags/tea"))} == shown
    alice_client.post("/u/bob/block")
    assert "by alice" not in text_of(bob_client.get("/tags/tea"))
    assert "by bob" not in text_of(alice_client.get("/tags/tea"))
    for page in (bob_client.get("/tags/tea"), alice_client.get("/tags/tea")):
        assert "by charlie" in text_of(page)


def test_a_twit_page_leaves_out_the_ancestors_of_whom_the_visitor_blocks_or_is_blocked_by(
    alice_client: Client, bob_client: Client, client: Client, charlie: User
) -> None:
    """The chain above a twit is hydrated with its replies, and what the
    hydrate step hides, both ways, is left out of it (as a suspended
    author's twit is), not shown as it was read."""
    root = services.post_twit("bob", "by bob, the root")
    middle = services.post_twit("alice", "by alice, the middle", reply_to=root.id)
    leaf = services.post_twit("charlie", "by charlie, the leaf", reply_to=middle.id)
    url = f"/u/charlie/t/{leaf.id}"
    every = {"by bob, the root", "by alice, the middle", "by charlie, the leaf"}
    assert {t for t in every if t in text_of(bob_client.get(url))} == every
    alice_client.post("/u/bob/block")
    seen = {
        who: {t for t in every if t in text_of(visitor.get(url))}
        for who, visitor in (("alice", alice_client), ("bob", bob_client), ("nobody", client))
    }
    assert seen == {
        "alice": every - {"by bob, the root"},
        "bob": every - {"by alice, the middle"},
        "nobody": every,
    }


def test_a_twit_of_whom_the_visitor_blocks_says_so_and_offers_no_reply_like_or_repost(
    alice_client: Client, bob_client: Client
) -> None:
    """Opened by its own link, the twit shows (a block hides it from the
    blocker's lists, not from its page), with why the page differs and
    without the actions the block would refuse."""
    twit = services.post_twit("bob", "by bob, then blocked")
    services.post_twit("alice", "a reply before the block", reply_to=twit.id)
    url = f"/u/bob/t/{twit.id}"
    like = f'action="/u/bob/t/{twit.id}/like"'
    before = alice_client.get(url).content.decode()
    assert like in before and 'id="reply"' in before and "You block @bob" not in before
    alice_client.post("/u/bob/block")
    after = alice_client.get(url)
    assert after.status_code == 200
    html, page = after.content.decode(), text_of(after)
    assert "by bob, then blocked" in page and "You block @bob" in page
    assert "Unblock @bob to reply" in page and 'id="reply"' not in html
    assert like not in html and f'action="/u/bob/t/{twit.id}/repost"' not in html
    assert "1 reply" in page  # the counts, as the twit row holds them
    # Its author, and a reader who blocks nobody, see the page as before.
    own = bob_client.get(url).content.decode()
    assert "You block" not in own and 'id="reply"' in own


def test_muting_hides_from_home_and_the_muted_page_lists_and_undoes(
    alice_client: Client, bob: User
) -> None:
    services.follow("alice", "bob")
    services.post_twit("bob", "bob's twit about #tea")
    assert "bob's twit" in text_of(alice_client.get("/"))
    alice_client.post("/u/bob/mute", {"next": "/u/bob"})
    assert "bob's twit" not in text_of(alice_client.get("/"))
    assert "bob's twit" in text_of(alice_client.get("/u/bob"))  # the profile still shows
    listed = text_of(alice_client.get("/account/muted"))
    assert "@bob" in listed and "Unmute" in listed and "You block nobody" in listed
    alice_client.post("/u/bob/unmute", {"next": "/account/muted"})
    assert "bob's twit" in text_of(alice_client.get("/"))


def test_muted_words_are_added_refused_with_a_reason_and_removed(
    alice_client: Client, bob: User
) -> None:
    services.follow("alice", "bob")
    services.post_twit("bob", "a #Tea party")
    added = alice_client.post("/account/muted/words", {"word": " #tea "})
    assert added.status_code == 302 and added["Location"] == "/account/muted"
    assert "You muted “#tea”" in text_of(alice_client.get("/account/muted"))
    assert "a #Tea party" not in text_of(alice_client.get("/"))
    refused = alice_client.post("/account/muted/words", {"word": "x" * 51})
    assert refused.status_code == 400
    assert "1 to 50 characters" in text_of(refused)
    alice_client.post("/account/muted/words/remove", {"word": "#tea"})
    assert blocks.muted_words("alice") == []
    assert "a #Tea party" in text_of(alice_client.get("/"))


def test_the_muted_page_needs_a_login(client: Client) -> None:
    response = client.get("/account/muted")
    assert response.status_code == 302 and "/login" in response["Location"]
    assert client.post("/account/muted/words", {"word": "x"}).status_code in (302, 403)


def test_mute_posted_in_place_answers_with_the_unmute_button(
    alice_client: Client, bob: User
) -> None:
    fetch = {"HTTP_X_REQUESTED_WITH": "fetch"}
    answer = alice_client.post("/u/bob/mute", {"next": "/u/bob"}, **fetch)
    assert answer.status_code == 200
    html = answer.content.decode()
    assert html.lstrip().startswith("<form") and 'action="/u/bob/unmute"' in html
    assert "data-in-place" in html and "Unmute @bob" in html
    assert [u.userid for u in blocks.muted("alice").items] == ["bob"]
    back = alice_client.post("/u/bob/unmute", {"next": "/u/bob"}, **fetch).content.decode()
    assert 'action="/u/bob/mute"' in back
    assert blocks.muted("alice").items == ()
