"""Replies on the web: the Reply form on a permalink, the chain above the
twit, its replies below (oldest first, paged), "replying to @x" in streams."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.types import User

from .helpers import logged_in
from .test_home import twit_texts


def test_reply_form_posts_a_reply_and_comes_back_to_the_thread_at_it(
    alice: User, bob_client: Client
) -> None:
    parent = services.post_twit("alice", "who is coming?")
    response = bob_client.post(f"/u/alice/t/{parent.id}", {"text": "me!"})
    (reply,) = services.replies(parent.id).items
    assert response.status_code == 302
    assert response["Location"] == f"/u/alice/t/{parent.id}?reply={reply.id}#t-{reply.id}"
    assert (reply.text, reply.reply_to) == ("me!", parent.id)
    # The thread: the parent, the reply among its replies, listed once.
    html = bob_client.get(response["Location"]).content.decode()
    assert twit_texts(html) == ["who is coming?", "me!"]
    assert f'id="t-{reply.id}"' in html
    assert "my-reply" not in html
    assert "Your reply is posted." in html
    # The reply's own page: the parent above, the reply, no replies yet.
    html = bob_client.get(f"/u/bob/t/{reply.id}").content.decode()
    assert twit_texts(html) == ["who is coming?", "me!"]
    assert "thread-more" not in html  # the whole chain is shown
    assert "No replies yet." in html


def test_a_reply_past_the_first_page_of_replies_shows_above_them(
    alice: User, bob: User, charlie: User
) -> None:
    parent = services.post_twit("alice", "count with me")
    for i in range(21):
        services.post_twit("bob", f"number {i}", reply_to=parent.id)
    charlie_client = logged_in("charlie")
    response = charlie_client.post(f"/u/alice/t/{parent.id}", {"text": "twenty-two"})
    html = charlie_client.get(response["Location"]).content.decode()
    texts = twit_texts(html)
    assert texts[:3] == ["count with me", "twenty-two", "number 0"]
    assert texts.count("twenty-two") == 1
    assert 'class="my-reply"' in html
    # Only one's own reply to this twit is pinned so: not someone else's, not another twit's.
    other = services.post_twit("bob", "number 21", reply_to=parent.id)
    for reply_id in (other.id, parent.id, "not-an-id"):
        html = charlie_client.get(f"/u/alice/t/{parent.id}", {"reply": reply_id}).content.decode()
        assert "my-reply" not in html, reply_id


def test_permalink_lists_replies_oldest_first_with_paging(alice: User, bob: User) -> None:
    parent = services.post_twit("alice", "count with me")
    for i in range(23):
        services.post_twit("bob", f"number {i}", reply_to=parent.id)
    html = Client().get(f"/u/alice/t/{parent.id}").content.decode()
    assert twit_texts(html) == ["count with me"] + [f"number {i}" for i in range(20)]
    assert "23 replies" in html
    cursor = services.replies(parent.id).next_cursor
    assert cursor is not None and f"cursor={cursor}" in html
    html = Client().get(f"/u/alice/t/{parent.id}", {"cursor": cursor}).content.decode()
    assert twit_texts(html) == ["count with me"] + [f"number {i}" for i in range(20, 23)]
    # Visitors see the thread, and a way to log in to reply, not the form.
    assert "Log in</a> to reply" in html
    assert 'name="text"' not in html


def test_a_deleted_parent_reads_as_deleted(alice: User, bob: User) -> None:
    parent = services.post_twit("alice", "soon gone")
    reply = services.post_twit("bob", "still here", reply_to=parent.id)
    services.delete_twit("alice", parent.id)
    html = Client().get(f"/u/bob/t/{reply.id}").content.decode()
    assert "This twit was deleted." in html
    assert twit_texts(html) == ["still here"]


def test_streams_say_whom_a_reply_answers(alice: User, bob_client: Client) -> None:
    parent = services.post_twit("alice", "hello")
    services.post_twit("bob", "hi there", reply_to=parent.id)
    html = bob_client.get("/").content.decode()
    assert f'Replying to <a href="/u/alice/t/{parent.id}">@alice</a>' in html
    assert twit_texts(html) == ["hi there"]
    # And the parent shows its count: on its Reply action, which opens the
    # thread's reply box; to visitors, as a link to its replies.
    html = bob_client.get("/u/alice").content.decode()
    reply_link = f'href="/u/alice/t/{parent.id}#reply" title="Reply">'
    assert reply_link + '<span aria-hidden="true">↩</span> Reply · 1<' in html
    html = Client().get("/u/alice").content.decode()
    assert f'href="/u/alice/t/{parent.id}#replies">1 reply</a>' in html


def test_a_bad_reply_is_shown_with_its_reason_and_kept(alice: User, bob_client: Client) -> None:
    parent = services.post_twit("alice", "hello")
    response = bob_client.post(f"/u/alice/t/{parent.id}", {"text": "x" * 281})
    assert response.status_code == 400
    html = response.content.decode()
    assert "at most 280" in html
    assert "x" * 281 in html
    assert services.replies(parent.id).items == ()


def test_replying_to_a_twit_deleted_meanwhile_says_so(alice: User, bob_client: Client) -> None:
    parent = services.post_twit("alice", "hello")
    page = bob_client.get(f"/u/alice/t/{parent.id}")
    assert page.status_code == 200
    services.delete_twit("alice", parent.id)
    response = bob_client.post(f"/u/alice/t/{parent.id}", {"text": "too late"})
    assert response.status_code == 404
    assert services.timeline("bob").items == ()


def test_a_visitor_replying_is_sent_to_log_in(alice: User) -> None:
    parent = services.post_twit("alice", "hello")
    response = Client().post(f"/u/alice/t/{parent.id}", {"text": "anon"})
    assert response.status_code == 302
    assert response["Location"].startswith("/login")
    assert services.replies(parent.id).items == ()


def test_a_long_chain_links_to_where_it_goes_on(alice: User, bob: User) -> None:
    chain = [services.post_twit("alice", "root")]
    for i in range(services.THREAD_DEPTH + 1):
        chain.append(services.post_twit("bob", f"r{i}", reply_to=chain[-1].id))
    html = Client().get(f"/u/bob/t/{chain[-1].id}").content.decode()
    shown = chain[-1 - services.THREAD_DEPTH :]
    assert twit_texts(html) == [t.text for t in shown]
    assert f'<p class="thread-more"><a href="/u/alice/t/{chain[0].id}">' in html


def test_a_reply_posted_in_place_answers_with_the_reply_alone(
    alice: User, bob_client: Client
) -> None:
    parent = services.post_twit("alice", "who is coming?")
    response = bob_client.post(
        f"/u/alice/t/{parent.id}", {"text": "me, @alice!"}, headers={"X-Requested-With": "fetch"}
    )
    (reply,) = services.replies(parent.id).items
    assert response.status_code == 200
    html = response.content.decode()
    assert html.strip().startswith('<div class="my-reply">') and "<html" not in html
    assert f'id="t-{reply.id}"' in html
    assert twit_texts(html) == ['me, <a class="twit-mention" href="/u/alice">@alice</a>!']
    # No message left for the next page: the reply box said it.
    assert "Your reply is posted." not in bob_client.get("/").content.decode()
    # A refused reply is the page with the reason, as without JavaScript.
    response = bob_client.post(
        f"/u/alice/t/{parent.id}", {"text": "x" * 281}, headers={"X-Requested-With": "fetch"}
    )
    assert response.status_code == 400
    assert "at most 280" in response.content.decode()
