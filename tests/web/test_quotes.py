"""Quotes on the web: the Quote page posts a twit that quotes the one it
shows; the quote shows its card wherever twits are listed; the quoted
twit's page lists its newest quotes, and its quotes page all of them."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.services import blocking
from feeds.types import User
from tests.console.helpers import text_of
from tests.helpers import register


def test_quote_from_the_twit_page_then_see_card_count_and_quotes(
    bob_client: Client, alice: User, client: Client
) -> None:
    quoted = services.post_twit("alice", "a line worth quoting")
    url = f"/u/alice/t/{quoted.id}"
    assert f'href="{url}/quote"' in bob_client.get(url).content.decode()
    form = text_of(bob_client.get(f"{url}/quote"))
    assert "Quote this twit" in form and "a line worth quoting" in form
    done = bob_client.post(f"{url}/quote", {"text": "this, exactly"})
    assert done.status_code == 302
    posted = services.timeline("bob").items[0]
    assert done["Location"] == f"/u/bob/t/{posted.id}" and posted.quote_of == quoted.id
    # The quote's page shows the card; the quoted twit's page its count and the quote.
    mine = text_of(bob_client.get(done["Location"]))
    assert "this, exactly" in mine and "a line worth quoting" in mine
    page = text_of(client.get(url))
    assert "1 quote" in page and "this, exactly" in page
    assert "this, exactly" in text_of(client.get(f"{url}/quotes"))
    # Deleted: the quote stays, its card says so.
    services.delete_twit("alice", quoted.id)
    assert "This twit was deleted." in text_of(client.get("/u/bob"))


def test_a_refused_quote_keeps_the_text_and_says_why(bob_client: Client, alice: User) -> None:
    quoted = services.post_twit("alice", "short-lived")
    url = f"/u/alice/t/{quoted.id}/quote"
    empty = bob_client.post(url, {"text": "   "})
    assert empty.status_code == 400 and "Write something to post." in text_of(empty)
    too_long = bob_client.post(url, {"text": "x" * 281})
    assert too_long.status_code == 400 and "at most 280" in text_of(too_long)
    blocking.block("bob", "alice")
    blocked = bob_client.post(url, {"text": "still"})
    assert blocked.status_code == 403 and "unblock them to quote them" in text_of(blocked)
    assert services.get_user("bob").twits == 0


def test_a_card_of_a_muted_author_is_unavailable(bob_client: Client, alice: User) -> None:
    register("carol")
    quoted = services.post_twit("alice", "muted words of alice")
    services.post_twit("carol", "look at alice", quote_of=quoted.id)
    blocking.mute("bob", "alice")
    page = text_of(bob_client.get("/u/carol"))
    assert "look at alice" in page and "This twit is unavailable." in page
    assert "muted words of alice" not in page
