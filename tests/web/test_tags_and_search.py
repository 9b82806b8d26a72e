"""Hashtag pages, the trending box and the search page, through Django's test client."""

from __future__ import annotations

import re

from django.test import Client

from feeds import services
from feeds.types import User
from tests.helpers import ServerAddr

from .test_home import older_link
from .test_home import twit_texts as marked_up_texts


def twit_texts(html: str) -> list[str]:
    """The texts of the twits on a page, their links' markup taken out."""
    return [re.sub(r"<[^>]+>", "", t) for t in marked_up_texts(html)]


def test_a_hashtag_in_a_twit_links_to_its_page_newest_first(alice_client: Client) -> None:
    for i in range(3):
        alice_client.post("/", {"text": f"cup {i} of #Tea"})
    html = alice_client.get("/").content.decode()
    assert '<a class="twit-hashtag" href="/tags/tea">#Tea</a>' in html
    page = Client().get("/tags/tea")
    assert page.status_code == 200
    assert twit_texts(page.content.decode()) == ["cup 2 of #Tea", "cup 1 of #Tea", "cup 0 of #Tea"]


def test_a_tag_page_pages_by_cursor(web: ServerAddr, alice: User) -> None:
    for i in range(23):
        services.post_twit("alice", f"number {i} #many")
    first = Client().get("/tags/many").content.decode()
    assert len(twit_texts(first)) == 20
    link = older_link(first)
    assert link is not None and link.startswith("/tags/many?cursor=")
    second = Client().get(link).content.decode()
    assert twit_texts(second) == ["number 2 #many", "number 1 #many", "number 0 #many"]


def test_any_spelling_of_a_tag_redirects_to_its_one_url(web: ServerAddr) -> None:
    response = Client().get("/tags/TEA")
    assert (response.status_code, response["Location"]) == (302, "/tags/tea")


def test_a_bad_tag_is_a_400_page_saying_why(web: ServerAddr) -> None:
    response = Client().get("/tags/no-such")
    assert response.status_code == 400
    assert "A hashtag is letters, digits and underscores only." in response.content.decode()


def test_an_empty_tag_page_says_so(web: ServerAddr) -> None:
    assert "No twits with #quiet yet." in Client().get("/tags/quiet").content.decode()


def test_a_deleted_twit_leaves_the_tag_page(alice_client: Client) -> None:
    twit = services.post_twit("alice", "gone soon #tea")
    alice_client.post(f"/u/alice/t/{twit.id}/delete")
    assert twit_texts(Client().get("/tags/tea").content.decode()) == []


def test_the_home_page_shows_trending_tags_most_used_first(alice_client: Client, bob: User) -> None:
    html = alice_client.get("/").content.decode()
    assert "No hashtags in the last hour." in html
    for _ in range(2):
        services.post_twit("bob", "#second")
    for _ in range(3):
        services.post_twit("bob", "#first")
    html = alice_client.get("/").content.decode()
    box = html[html.index('class="card trending"') :]
    assert box.index('href="/tags/first"') < box.index('href="/tags/second"')
    assert "3 twits" in box and "2 twits" in box


def test_the_search_box_is_in_the_top_bar(alice_client: Client) -> None:
    html = alice_client.get("/").content.decode()
    assert 'class="nav-search"' in html and 'action="/search"' in html
    assert 'class="nav-search"' in Client().get("/login").content.decode()
    # Not where a page has its own search box.
    assert 'class="nav-search"' not in Client().get("/search").content.decode()


def test_search_finds_people_by_userid_or_name(web: ServerAddr, alice: User, bob: User) -> None:
    services.update_profile("bob", name="Albert Bobson")
    html = Client().get("/search", {"q": "AL"}).content.decode()
    assert 'href="/u/alice"' in html and 'href="/u/bob"' in html
    html = Client().get("/search", {"q": "albert b"}).content.decode()
    assert 'href="/u/bob"' in html and 'href="/u/alice"' not in html
    html = Client().get("/search", {"q": "zed"}).content.decode()
    assert "No one's userid or name starts with “zed”." in html


def test_search_pages_keep_the_query(web: ServerAddr) -> None:
    for i in range(22):
        services.register(f"user{i:02}", f"User {i}", f"u{i}@example.com", "password-123")
    html = Client().get("/search", {"q": "user"}).content.decode()
    link = older_link(html)
    assert link is not None and link.startswith("/search?q=user&cursor=")
    rest = Client().get(link).content.decode()
    assert rest.count('class="person"') == 2


def test_a_hash_query_goes_to_the_tag_page(web: ServerAddr) -> None:
    response = Client().get("/search", {"q": " #HBase "})
    assert (response.status_code, response["Location"]) == (302, "/tags/hbase")


def test_bad_queries_get_a_message_on_the_search_page(web: ServerAddr) -> None:
    for q, message in [
        ("", "Type the start of a name or userid to search for."),
        ("x" * 51, "A search is at most 50 characters; this is 51."),
        ("#no-tag", "A hashtag is letters, digits and underscores only."),
    ]:
        response = Client().get("/search", {"q": q})
        assert response.status_code == 400, q
        html = response.content.decode()
        assert message in html and 'id="search-q"' in html, q
    response = Client().get("/search")
    assert response.status_code == 200
    assert 'id="search-q"' in response.content.decode()


def test_a_tag_page_shows_the_repost_count_and_marks_what_the_reader_liked(
    alice: User, bob_client: Client, charlie: User
) -> None:
    """The tag page goes through the same hydrate step as the home page: it
    counts reposts and marks the reader's likes and reposts."""
    twit = services.post_twit("alice", "a pot of #tea")
    services.like("bob", twit.id)
    services.repost("bob", twit.id)
    services.repost("charlie", twit.id)
    anonymous = re.sub(r"<[^>]+>", "", Client().get("/tags/tea").content.decode())
    assert "1 like" in anonymous and "2 reposts" in anonymous
    html = bob_client.get("/tags/tea").content.decode()
    assert 'title="Unlike"' in html and 'title="Undo repost"' in html


def test_search_finds_twits_by_their_words_on_the_twits_tab(web: ServerAddr, alice: User) -> None:
    services.post_twit("alice", "Regions split as tables grow")
    services.post_twit("alice", "tables")
    people = Client().get("/search", {"q": "regions tables"}).content.decode()
    assert 'href="/search?q=regions%20tables&amp;in=twits"' in people
    html = Client().get("/search", {"q": "TABLES regions", "in": "twits"}).content.decode()
    assert marked_up_texts(html) == ["Regions split as tables grow"]
    assert 'aria-current="page">Twits</a>' in html
    assert 'name="in" value="twits"' in html  # a new search stays on the tab
    none = Client().get("/search", {"q": "zebra", "in": "twits"}).content.decode()
    assert "No twit has all of “zebra”." in none
    bad = Client().get("/search", {"q": "a", "in": "twits"})
    assert bad.status_code == 400 and "at least 2 letters" in bad.content.decode()
