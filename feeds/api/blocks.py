"""Block and mute over the API: ``PUT``/``DELETE /api/users/{userid}/block``
and ``/mute``, ``GET /api/blocks`` and ``GET /api/mutes``, and muted words
under ``/api/mutes/words``. On the same :data:`~feeds.api.endpoint.api` as
:mod:`.views`, so ``GET /api/schema`` documents them with the rest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Path
from pydantic import Field, WithJsonSchema

from feeds.services import blocking, blocks, ratelimit
from feeds.types import Page, UserRef

from . import schemas
from .endpoint import api, caller, get, operation
from .schemas import Answer, Cursor, Limit
from .views import Userid

Word = Annotated[
    str,
    Path(description="The word, phrase or #hashtag, URL-encoded (`%23tea` for #tea)."),
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": blocks.WORD_MAX}),
]


class Blocked(Answer):
    userid: str = Field(description="The other user, as given in the URL.")
    blocking: bool = Field(description="Whether you block them now.")
    changed: bool = Field(description="False if it already was so.")


class Muted(Answer):
    userid: str = Field(description="The other user, as given in the URL.")
    muting: bool = Field(description="Whether you mute them now.")
    changed: bool = Field(description="False if it already was so.")


class MutedWord(Answer):
    word: str = Field(description="The word as stored: trimmed, spaces collapsed.")
    muting: bool = Field(description="Whether you mute it now.")


class MutedWords(Answer):
    words: list[str] = Field(description="Your muted words and hashtags, alphabetically.")


_LIMIT = {429: ratelimit.BLOCKS.describe()}
_BLOCK = (
    "Blocking ends your follows of each other and takes back their likes and reposts of "
    "your twits; neither of you can then follow the other, nor like, repost or reply to "
    "the other's twits; their twits and reposts leave your streams and yours leave theirs, "
    "and while they are signed in they cannot see your profile or twits. Idempotent."
)
_MUTE = (
    "Muting hides their twits, reposts and notifications from your home stream and your "
    "notifications; they are not told, and their profile still shows when you visit it. "
    "Idempotent."
)


def _endpoint(flag: str, fn: Callable[..., bool], now: bool) -> Callable[..., Any]:
    def endpoint(request: HttpRequest, userid: Userid) -> dict[str, Any]:
        changed = fn(caller(request).user, userid)
        return {"userid": userid, flag: now, "changed": changed}

    return endpoint


def _toggle(
    noun: str,
    flag: str,
    act: tuple[Callable[..., bool], Callable[..., bool]],
    model: type[Answer],
    about: tuple[str, str],
) -> None:
    """``PUT`` and ``DELETE /users/{userid}/<noun>``."""
    on, off = act
    for method, verb, fn, now in (("PUT", noun, on, True), ("DELETE", f"un{noun}", off, False)):
        endpoint = _endpoint(flag, fn, now)
        endpoint.__name__ = endpoint.__qualname__ = verb
        api.default_router.add_api_operation(
            f"/users/{{str:userid}}/{noun}",
            [method],
            endpoint,
            operation_id=verb,
            summary=f"{verb.title()} a user (idempotent)",
            description=about[0] if now else about[1],
            **operation(
                {200: model},
                400,
                404,
                429,
                descriptions={200: f"You {'' if now else 'no longer '}{noun} them.", **_LIMIT},
                auth=True,
            ),
        )


_toggle(
    "block",
    "blocking",
    (blocking.block, blocking.unblock),
    Blocked,
    (_BLOCK, "Stop blocking them. The follows the block ended stay ended. Idempotent."),
)
_toggle("mute", "muting", (blocking.mute, blocking.unmute), Muted, (_MUTE, "Stop muting them."))


def _listing(path: str, operation_id: str, summary: str, fn: Callable[..., Page[UserRef]]) -> None:
    @get(
        path,
        operation_id=operation_id,
        summary=summary,
        **operation({200: schemas.UserPage}, 400, descriptions={200: "One page."}, auth=True),
    )
    def endpoint(request: HttpRequest, limit: Limit, cursor: Cursor) -> Page[UserRef]:
        return fn(caller(request).user.userid, cursor, limit)

    endpoint.__name__ = endpoint.__qualname__ = operation_id


_listing("/blocks", "getBlocks", "Whom you block", blocks.blocked)
_listing("/mutes", "getMutes", "Whom you mute", blocks.muted)


@get(
    "/mutes/words",
    operation_id="getMutedWords",
    summary="Your muted words and hashtags",
    **operation({200: MutedWords}, descriptions={200: "All of them."}, auth=True),
)
def muted_words(request: HttpRequest) -> dict[str, Any]:
    return {"words": blocks.muted_words(caller(request).user.userid)}


_WORD = (
    "A muted word or phrase hides twits that contain it as whole words, in any case, from "
    "your home stream and notifications (`tea` also hides `#tea`; `#tea` only the hashtag). "
    f"At most {blocks.MUTED_WORDS_MAX} words."
)


@api.put(
    "/mutes/words/{str:word}",
    operation_id="muteWord",
    summary="Mute a word, phrase or hashtag (idempotent)",
    description=_WORD,
    **operation({200: MutedWord}, 400, 429, descriptions={200: "Muted.", **_LIMIT}, auth=True),
)
def mute_word(request: HttpRequest, word: Word) -> dict[str, Any]:
    return {"word": blocking.mute_word(caller(request).user, word), "muting": True}


@api.delete(
    "/mutes/words/{str:word}",
    operation_id="unmuteWord",
    summary="Unmute a word, phrase or hashtag (idempotent)",
    **operation({200: MutedWord}, 400, 429, descriptions={200: "Not muted.", **_LIMIT}, auth=True),
)
def unmute_word(request: HttpRequest, word: Word) -> dict[str, Any]:
    checked = blocks.check_word(word)
    blocking.unmute_word(caller(request).user, checked)
    return {"word": checked, "muting": False}
