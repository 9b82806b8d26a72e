"""Editing a twit (services.twits.edit_twit): within 15 minutes, by its
author, at most EDITS_MAX times; the texts kept as versions of h:text and
read back newest first; every list that shows the twit shows the current
text and the "edited" mark; its words and tags follow the edit. Exact
under several processes editing at once, and with a delete racing them.
On both servers."""

from __future__ import annotations

import pytest

from feeds import services
from feeds.errors import Conflict, Forbidden, InvalidInput, NotFound
from feeds.services import _clock, search, twits
from feeds.services.textparse import hashtags, words
from feeds.types import User
from storage import keys, rows
from storage.connection import connection, table_name
from tests.services import hammer as hammers
from tests.services.test_model import all_pages


def searched(q: str) -> list[str]:
    return [t.id for t in all_pages(lambda c: search.search_twits(q, c))]


def tagged(tag: str) -> list[tuple[str, str]]:
    return [(t.id, t.text) for t in all_pages(lambda c: services.tag_twits(tag, c))]


def test_an_edit_changes_the_text_everywhere_and_keeps_the_history(alice: User, bob: User) -> None:
    services.follow("bob", "alice")
    twit = services.post_twit("alice", "teh quick fox #typo")
    services.repost("bob", twit.id)
    services.like("bob", twit.id)
    reply = services.post_twit("bob", "nice", reply_to=twit.id)
    assert not twit.edited

    edited = twits.edit_twit("alice", twit.id, "the quick fox #fixed")
    assert edited.text == "the quick fox #fixed" and edited.edited
    assert edited.likes == 1 and edited.reposts == 1 and edited.replies == 1
    twits.edit_twit("alice", twit.id, "the quick brown fox #fixed")

    history = twits.history(twit.id)
    assert [v.text for v in history] == [
        "the quick brown fox #fixed",
        "the quick fox #fixed",
        "teh quick fox #typo",
    ]
    assert history[-1].at == int(twit.created.timestamp() * 1000)
    assert history[0].at > history[1].at > history[2].at

    # Every list that shows it, from whichever copy it holds.
    now = "the quick brown fox #fixed"
    shown = {
        "own page": services.get_twit(twit.id),
        "timeline": services.timeline("alice").items[0],
        "home": next(t for t in services.home_stream("bob").items if t.id == twit.id),
        "likes": services.user_likes("bob").items[0],
        "thread": services.thread(services.get_twit(reply.id)).chain[0],
    }
    for where, t in shown.items():
        assert (t.text, bool(t.edited)) == (now, True), where
    # Words and tags follow: old ones out, new ones in.
    assert searched("teh") == [] and searched("brown") == [twit.id]
    assert searched("quick fox") == [twit.id]
    assert tagged("typo") == [] and tagged("fixed") == [(twit.id, now)]


def test_only_the_author_edits_within_the_window_and_the_allowed_times(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    twit = services.post_twit("alice", "first")
    with pytest.raises(Forbidden):
        twits.edit_twit("bob", twit.id, "mine now")
    with pytest.raises(InvalidInput):
        twits.edit_twit("alice", twit.id, "   ")
    with pytest.raises(InvalidInput):
        twits.edit_twit("alice", twit.id, "x" * 281)
    with pytest.raises(NotFound):
        twits.edit_twit("alice", "ab" * 28, "none")
    # The same text again is no edit.
    assert not twits.edit_twit("alice", twit.id, "first").edited
    for n in range(twits.EDITS_MAX):
        twits.edit_twit("alice", twit.id, f"edit {n}")
    with pytest.raises(Conflict, match="at most"):
        twits.edit_twit("alice", twit.id, "one too many")
    assert len(twits.history(twit.id)) == twits.EDITS_MAX + 1
    assert twits.history(twit.id)[0].text == f"edit {twits.EDITS_MAX - 1}"

    late = services.post_twit("alice", "posted")
    posted = int(late.created.timestamp() * 1000)
    monkeypatch.setattr(_clock, "now_millis", lambda: posted + twits.EDIT_WINDOW_MS + 1)
    with pytest.raises(Conflict, match="15 minutes"):
        twits.edit_twit("alice", late.id, "too late")
    assert services.get_twit(late.id).text == "posted"
    assert [v.text for v in twits.history(late.id)] == ["posted"]


def test_a_deleted_edited_twit_leaves_nothing(alice: User) -> None:
    twit = services.post_twit("alice", "alpha #one")
    twits.edit_twit("alice", twit.id, "beta #two")
    services.delete_twit("alice", twit.id)
    with pytest.raises(NotFound):
        twits.history(twit.id)
    with pytest.raises(NotFound):
        twits.edit_twit("alice", twit.id, "gamma")
    assert searched("alpha") == searched("beta") == searched("gamma") == []
    assert tagged("one") == tagged("two") == []
    with connection() as conn:
        assert conn.table(table_name("twits")).row(keys.twit_key_from_id(twit.id)) == {}


def _raw_index_rows(twit_id: str, texts: list[str], but: str = "") -> list[bytes]:
    """The hashtags and twitWords rows of ``texts``' words and tags (but
    those ``but`` has too) under the twit, as the tables hold them (not as
    a page filters them)."""
    key = keys.twit_key_from_id(twit_id)
    found = []
    with connection() as conn:
        for table, wanted in (
            ("twitWords", {keys.word_key(w, key) for t in texts for w in words(t)}),
            ("hashtags", {keys.tag_key(h, key) for t in texts for h in hashtags(t)}),
        ):
            wanted -= {keys.word_key(w, key) for w in words(but)}
            wanted -= {keys.tag_key(h, key) for h in hashtags(but)}
            found += [k for k, _ in conn.table(table_name(table)).rows(sorted(wanted))]
    return found


PROCESSES = 4


def _run_editors(twit_id: str, budget: str) -> list[str]:
    procs = hammers.start(PROCESSES, budget, "--edits", twit_id, "alice", eager=True)
    accepted = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        lines = out.splitlines()
        texts = [line.removeprefix("accepted ") for line in lines[:-1]]
        assert len(texts) == int(lines[-1])
        accepted += texts
    return accepted


def test_concurrent_edits_are_each_kept_once_and_the_copies_agree(alice: User, bob: User) -> None:
    services.follow("bob", "alice")
    twit = services.post_twit("alice", "original wz0 #tz0")
    accepted = _run_editors(twit.id, "ops=3")
    # 4 processes x 3 tries; 5 edits allowed: exactly 5 accepted.
    assert len(accepted) == twits.EDITS_MAX == len(set(accepted))
    history = twits.history(twit.id)
    assert sorted(v.text for v in history[:-1]) == sorted(accepted)
    assert history[-1].text == "original wz0 #tz0"
    final = history[0].text
    assert services.get_twit(twit.id).text == final
    assert next(t for t in services.home_stream("bob").items if t.id == twit.id).text == final
    with connection() as conn:
        row = conn.table(table_name("twits")).row(keys.twit_key_from_id(twit.id))
    assert row[rows.TEXT].decode() == final
    # Only the final text's words and tag find it; no other text's rows are left.
    word, tag = final.split()[1], final.split()[2][1:]
    assert searched(word) == [twit.id] and tagged(tag) == [(twit.id, final)]
    others = [t for t in [*accepted, "original wz0 #tz0"] if t != final]
    assert _raw_index_rows(twit.id, others, but=final) == []
    every = len(words(final)) + len(hashtags(final))
    assert len(_raw_index_rows(twit.id, [final])) == every


def test_edits_racing_a_delete_leave_no_ghost(alice: User) -> None:
    for _ in range(3):
        twit = services.post_twit("alice", "doomed wz0 #tz0")
        procs = hammers.start(PROCESSES, "ops=3", "--edits", twit.id, "alice", eager=True)
        services.delete_twit("alice", twit.id)
        accepted = []
        for proc in procs:
            out, err = proc.communicate(timeout=600)
            assert proc.returncode == 0, err
            accepted += [line.removeprefix("accepted ") for line in out.splitlines()[:-1]]
        with pytest.raises(NotFound):
            services.get_twit(twit.id)
        with connection() as conn:
            assert conn.table(table_name("twits")).row(keys.twit_key_from_id(twit.id)) == {}
        assert _raw_index_rows(twit.id, [*accepted, "doomed wz0 #tz0"]) == []
        assert searched("doomed") == []


def _delete_first(monkeypatch: pytest.MonkeyPatch, where: str, twit_id: str) -> None:
    """Make the twit's delete run, once, just before the edit's step
    ``where`` (a name in services.twits): the interleavings a race can hit
    only now and then, made certain."""
    real = getattr(twits, where) if where != "check_and_put" else twits.ops.check_and_put
    done: list[bool] = []

    def step(*args: object, **kwargs: object) -> object:
        if not done:
            done.append(True)
            services.delete_twit("alice", twit_id)
        return real(*args, **kwargs)

    if where == "check_and_put":
        monkeypatch.setattr(twits.ops, "check_and_put", step)
    else:
        monkeypatch.setattr(twits, where, step)


@pytest.mark.parametrize("where", ["check_and_put", "_apply_edit"])
@pytest.mark.parametrize("edited_before", [0, 1])
def test_a_delete_between_the_edits_steps_leaves_no_ghost(
    alice: User, monkeypatch: pytest.MonkeyPatch, where: str, edited_before: int
) -> None:
    twit = services.post_twit("alice", "doomed wz0 #tz0")
    texts = ["doomed wz0 #tz0"]
    for n in range(edited_before):
        texts.append(twits.edit_twit("alice", twit.id, f"doomed again wb{n} #tb{n}").text)
    # The edit's time is later than the delete's: its cells would outlive
    # the delete's markers if nothing took them back.
    ahead = _clock.now_millis() + 60_000
    monkeypatch.setattr(_clock, "now_millis", lambda: ahead)
    _delete_first(monkeypatch, where, twit.id)
    with pytest.raises(NotFound):
        twits.edit_twit("alice", twit.id, "late edit wl #tl")
    with pytest.raises(NotFound):
        services.get_twit(twit.id)
    with connection() as conn:
        assert conn.table(table_name("twits")).row(keys.twit_key_from_id(twit.id)) == {}
    assert _raw_index_rows(twit.id, [*texts, "late edit wl #tl"]) == []


def test_a_delete_as_a_stalled_edit_is_written_again_leaves_no_ghost(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor that finds an edit accepted but not written (its editor
    crashed, or is slow) writes it before its own. A delete that begins just
    then drops the rows of the text it read, the one before that edit: the
    edit written again takes its own rows back, as its first editor would."""
    twit = services.post_twit("alice", "doomed wz0 #tz0")
    key = keys.twit_key_from_id(twit.id)
    # Ahead of the clock, as an edit made in a burst of them is: the
    # delete's markers, at the clock's time, do not hide its cells.
    stalled = rows.Edit(1, _clock.now_millis() + 60_000, "stalled edit ws #ts", twit.text)
    with connection() as conn:
        conn.table(table_name("twits")).put(key, {rows.EDIT: rows.encode_edit(stalled)})
    _delete_first(monkeypatch, "_apply_edit", twit.id)
    with pytest.raises(NotFound):
        twits.edit_twit("alice", twit.id, "late edit wl #tl")
    with connection() as conn:
        assert conn.table(table_name("twits")).row(key) == {}
    assert _raw_index_rows(twit.id, [twit.text, stalled.text, "late edit wl #tl"]) == []
    assert searched("stalled") == []


def test_an_edit_between_the_deletes_read_and_its_mark_leaves_no_ghost(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The delete reads the twit, then marks it deleting. An edit that
    finishes between the two (the mark not there yet, so it keeps what it
    wrote) leaves rows of a text the delete did not read."""
    twit = services.post_twit("alice", "doomed wz0 #tz0")
    real = twits.mark_deleting

    def edit_first(conn: object, key: bytes) -> None:
        twits.edit_twit("alice", twit.id, "edited meanwhile wm #tm")
        real(conn, key)  # type: ignore[arg-type]

    monkeypatch.setattr(twits, "mark_deleting", edit_first)
    services.delete_twit("alice", twit.id)
    with connection() as conn:
        assert conn.table(table_name("twits")).row(keys.twit_key_from_id(twit.id)) == {}
    assert _raw_index_rows(twit.id, [twit.text, "edited meanwhile wm #tm"]) == []
    assert searched("meanwhile") == []


def test_a_finished_edit_ahead_of_the_clock_leaves_no_ghost(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edits in a burst are timed a millisecond after the one before, so
    the last can be ahead of the clock when the delete comes: the delete's
    markers must reach its cells."""
    twit = services.post_twit("alice", "doomed wz0 #tz0")
    now = _clock.now_millis()
    monkeypatch.setattr(_clock, "now_millis", lambda: now + 60_000)
    twits.edit_twit("alice", twit.id, "edited ahead wa #ta")
    monkeypatch.setattr(_clock, "now_millis", lambda: now)
    services.delete_twit("alice", twit.id)
    with pytest.raises(NotFound):
        services.get_twit(twit.id)
    with connection() as conn:
        assert conn.table(table_name("twits")).row(keys.twit_key_from_id(twit.id)) == {}
    assert _raw_index_rows(twit.id, [twit.text, "edited ahead wa #ta"]) == []
