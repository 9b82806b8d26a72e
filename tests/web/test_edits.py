"""Editing one's twit from its page, the "edited" mark wherever it is shown,
and the history page (feeds/views/edits.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from feeds import services
from feeds.services import _clock, twits
from feeds.types import User
from tests.console.helpers import text_of


def test_edit_from_the_twit_page_and_see_the_mark_and_the_history(
    alice_client: Client, bob: User
) -> None:
    services.follow("bob", "alice")
    twit = services.post_twit("alice", "teh first text")
    page = f"/u/alice/t/{twit.id}"
    assert "Edit" in text_of(alice_client.get(page))
    form = alice_client.get(f"{page}/edit")
    assert form.status_code == 200 and "teh first text" in form.content.decode()
    done = alice_client.post(f"{page}/edit", {"text": "the first text"})
    assert done.status_code == 302 and done["Location"] == page
    shown = text_of(alice_client.get(page))
    assert "the first text" in shown and "edited" in shown and "teh first" not in shown
    # Everywhere it is shown, the mark links to the history.
    for listing in ("/u/alice", "/"):
        html = alice_client.get(listing).content.decode()
        assert f'href="{page}/history"' in html and "teh first" not in html, listing
    history = text_of(Client().get(f"{page}/history"))
    assert history.index("the first text") < history.index("teh first text")
    assert "Current" in history and "Original" in history


def test_only_the_author_within_the_window_and_bad_text_is_kept(
    alice_client: Client, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = services.post_twit("bob", "bob's")
    assert alice_client.get(f"/u/bob/t/{theirs.id}/edit").status_code == 403
    assert alice_client.post(f"/u/bob/t/{theirs.id}/edit", {"text": "x"}).status_code == 403
    assert Client().get(f"/u/bob/t/{theirs.id}/edit").status_code == 302  # to log in
    mine = services.post_twit("alice", "mine")
    bad = alice_client.post(f"/u/alice/t/{mine.id}/edit", {"text": "x" * 281})
    assert bad.status_code == 400 and "at most 280" in text_of(bad)
    posted = int(mine.created.timestamp() * 1000)
    monkeypatch.setattr(_clock, "now_millis", lambda: posted + twits.EDIT_WINDOW_MS + 1)
    assert "Edit</a>" not in alice_client.get(f"/u/alice/t/{mine.id}").content.decode()
    late = alice_client.post(f"/u/alice/t/{mine.id}/edit", {"text": "too late"})
    assert late.status_code == 409 and "15 minutes" in text_of(late)
    assert services.get_twit(mine.id).text == "mine"
    assert "never edited" in text_of(Client().get(f"/u/alice/t/{mine.id}/history"))
