"""A twit pinned on top of its author's profile: one cell in the users row
(``info:pinned``, the twit's id), set here after checking the twit is the
user's own. The twit is read from its row when the profile is shown, so a
pinned twit since deleted (or hidden from the reader) shows nothing: the
cell is a pointer, and the twit row the truth."""

from __future__ import annotations

from feeds.errors import Forbidden, NotFound
from feeds.types import Twit, User

from . import accounts, twits
from .hydration import hydrate


def pin(userid: str, twit_id: str) -> Twit:
    """Pin ``twit_id`` on ``userid``'s profile (replacing any pinned before);
    NotFound if there is no such twit, Forbidden if it is someone else's."""
    twit = twits.get_twit(twit_id)
    if twit.userid.lower() != userid.lower():
        raise Forbidden("You can pin only your own twits.")
    accounts.set_pinned(twit.userid, twit.id)
    return twit


def unpin(userid: str) -> None:
    accounts.set_pinned(accounts.get_user(userid).userid, None)


def pinned_twit(user: User, reader: User | str | None) -> Twit | None:
    """The twit ``user`` pinned, as ``reader`` sees it; None when there is
    none, it was deleted, or the reader may not see it."""
    if not user.pinned:
        return None
    try:
        twit = twits.get_twit(user.pinned)
    except NotFound:
        return None
    shown = hydrate((twit,), reader, counted=True)
    return shown[0] if shown else None
