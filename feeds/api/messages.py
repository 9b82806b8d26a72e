"""Direct messages over the API: ``GET /api/conversations`` (the inbox),
``GET``/``POST /api/conversations/{userid}`` (a conversation, newest first;
send one) and ``GET /api/messages/unread``. The caller is always one
of a conversation's two: the path names only the other. On the same
:data:`~feeds.api.endpoint.api` as :mod:`.views`, so ``GET /api/schema``
documents them with the rest."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest, HttpResponse
from ninja import Header
from ninja.responses import Status
from pydantic import BaseModel, Field, StrictStr, WithJsonSchema

from feeds.services import idempotency, messages, ratelimit
from feeds.services.twits import TEXT_MAX
from feeds.types import Conversation, Message, Page

from .endpoint import api, caller, get, operation
from .schemas import Answer, Count, Cursor, Limit, Timestamp, Userid
from .views import Userid as UseridPath
from .views import created


class NewMessage(BaseModel):
    text: StrictStr = Field(
        description=f"Trimmed, then 1 to {TEXT_MAX} characters; newlines allowed, "
        "other control characters not.",
        json_schema_extra=dict(minLength=1, maxLength=TEXT_MAX),
    )


class MessageOut(Answer):
    id: str = Field(description="Unique in the conversation (opaque).")
    userid: Userid = Field(description="Who sent it.")
    text: str
    created: Timestamp


class MessagePage(Answer):
    items: list[MessageOut]
    next_cursor: str | None = Field(description="Where the next page starts; null on the last.")


class ConversationOut(Answer):
    userid: Userid = Field(description="The other participant.")
    name: str
    last_from: Userid = Field(description="Who sent the latest message.")
    text: str = Field(description="The start of the latest message.")
    updated: Timestamp
    unread: Count = Field(description="Their messages you have not read yet.")


class ConversationPage(Answer):
    items: list[ConversationOut]
    next_cursor: str | None = Field(description="Where the next page starts; null on the last.")


class UnreadMessages(Answer):
    unread: Count = Field(description="Messages to you not yet read, in all conversations.")


MessageKey = Annotated[
    str | None,
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": idempotency.MAX_LEN}),
    Header(
        None,
        alias=idempotency.HEADER,
        description="Any string of yours, new for each new message and the same when you "
        "send that message again after an unclear answer: for a day, the same key from you "
        "sends at most one message, and a repeat answers 201 with that message and "
        "`Idempotent-Replayed: true`.",
    ),
]


@get(
    "/conversations",
    operation_id="getConversations",
    summary="Your conversations, the latest message first",
    **operation({200: ConversationPage}, 400, descriptions={200: "One page."}, auth=True),
)
def conversations(request: HttpRequest, limit: Limit, cursor: Cursor) -> Page[Conversation]:
    return messages.inbox(caller(request).user.userid, cursor, limit)


# Not /conversations/unread, which would hide the conversation with a user
# called "unread" (as /notifications/unread counts notifications).
@get(
    "/messages/unread",
    operation_id="getUnreadMessages",
    summary="How many messages to you are unread, in all conversations",
    **operation({200: UnreadMessages}, descriptions={200: "The count."}, auth=True),
)
def unread(request: HttpRequest) -> dict[str, int]:
    return {"unread": messages.unread_total(caller(request).user.userid)}


@get(
    "/conversations/{str:userid}",
    operation_id="getConversation",
    summary="Your conversation with a user, newest message first",
    description="Reading its first page (no cursor) marks it read.",
    **operation(
        {200: MessagePage},
        400,
        404,
        descriptions={200: "One page.", 404: "There is no such user."},
        auth=True,
    ),
)
def conversation(
    request: HttpRequest, userid: UseridPath, limit: Limit, cursor: Cursor
) -> Page[Message]:
    return messages.conversation(caller(request).user, userid, cursor, limit)[1]


@api.post(
    "/conversations/{str:userid}",
    operation_id="sendMessage",
    summary="Send a user a direct message",
    **operation(
        {201: MessageOut},
        400,
        403,
        404,
        409,
        429,
        descriptions={
            201: "The message; with an Idempotency-Key seen before, the message it sent then.",
            429: ratelimit.MESSAGES.describe(),
            403: "You are suspended, or one of you blocks the other (the message says who).",
            404: "There is no such user (or the account is suspended).",
            409: "A message with this Idempotency-Key is still being sent: send it again "
            "in a moment.",
        },
        auth=True,
        body=True,
    ),
)
def send(
    request: HttpRequest,
    response: HttpResponse,
    userid: UseridPath,
    new: NewMessage,
    idempotency_key: MessageKey = None,
) -> Status[Message]:
    sender = caller(request).user
    if idempotency_key is None:
        message = messages.send(sender, userid, new.text)
    else:
        message, first = idempotency.send_message_once(sender, userid, new.text, idempotency_key)
        if not first:
            response["Idempotent-Replayed"] = "true"
    return created(response, f"/api/conversations/{userid}", message)
