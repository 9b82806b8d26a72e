"""``POST /api/reports``: report a twit or an account to the staff, with a
reason. On the same :data:`~feeds.api.endpoint.api` as :mod:`.views`, so
``GET /api/schema`` documents it with the rest."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Status
from pydantic import BaseModel, Field, StrictStr

from feeds.services import ratelimit, reports

from .endpoint import api, caller, operation
from .schemas import TWIT_ID_PATTERN, USERID_PATTERN, Answer, Timestamp, Userid


class NewReport(BaseModel):
    twit: StrictStr | None = Field(
        default=None,
        description="The id of the twit you report; give this or `userid`.",
        json_schema_extra=dict(pattern=TWIT_ID_PATTERN),
    )
    userid: StrictStr | None = Field(
        default=None,
        description="The account you report; give this or `twit`.",
        json_schema_extra=dict(pattern=USERID_PATTERN),
    )
    reason: StrictStr = Field(
        description=f"One of: {', '.join(reports.REASONS)}.",
        json_schema_extra=dict(enum=list(reports.REASONS)),
    )
    text: StrictStr | None = Field(
        default=None,
        description=f"What else staff should know; trimmed, at most {reports.TEXT_MAX} "
        "characters, newlines allowed.",
        json_schema_extra=dict(maxLength=reports.TEXT_MAX),
    )


class ReportAnswer(Answer):
    subject: Literal["twit", "user"] = Field(description="What was reported.")
    twit: str | None = Field(
        description="The twit reported (null for an account).",
        json_schema_extra=dict(pattern=TWIT_ID_PATTERN),
    )
    userid: Userid = Field(description="The account reported, or the twit's author.")
    reason: Literal["spam", "abuse", "other"]
    text: str
    created: Timestamp = Field(description="When you reported it (the first time, if again).")


_OPERATION = operation(
    {201: ReportAnswer},
    400,
    404,
    429,
    descriptions={
        201: "Reported. Reporting the same thing again before staff have dealt with it "
        "counts once and answers with your first report.",
        400: "Neither or both of `twit` and `userid`, a reason not in the list, text too "
        "long, or a report of yourself or your own twit.",
        404: "No such twit or account.",
        429: ratelimit.REPORTS.describe(),
    },
    auth=True,
    body=True,
)
# No Location: a report is not a resource a client reads back.
_OPERATION["openapi_extra"]["responses"][201].pop("headers", None)


@api.post(
    "/reports",
    operation_id="report",
    summary="Report a twit or an account to the staff, with a reason",
    **_OPERATION,
)
def report(request: HttpRequest, new: NewReport) -> Status[dict[str, Any]]:
    done = reports.report(
        caller(request).user,
        twit_id=new.twit,
        userid=new.userid,
        reason=new.reason,
        text=new.text,
    )
    return Status(
        201,
        {
            "subject": done.kind,
            "twit": done.twit_id,
            "userid": done.userid,
            "reason": done.reason,
            "text": done.text,
            "created": done.created,
        },
    )
