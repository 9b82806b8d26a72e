"""Password reset by email and two-factor sign-in, through the JSON API. On
the same :data:`~feeds.api.endpoint.api` as :mod:`.views`, so
``GET /api/schema`` documents them with the rest. (``POST /api/login``
takes the two-factor ``code``: :mod:`.views`.)"""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Status
from pydantic import BaseModel, Field, StrictStr

from feeds.errors import InvalidInput
from feeds.services import accounts, passwordreset, ratelimit, tokens, twofactor
from feeds.viewhelpers import client_address

from .endpoint import api, caller, get, operation
from .schemas import PASSWORD_MAX, PASSWORD_RULES, USERID_PATTERN, Answer

NoContent = Status[None]
NO_CONTENT: NoContent = Status(204, None)

CODE = (
    "A code: the 6 digits the authenticator app shows now (each accepted once), "
    "or one of the account's recovery codes (each works once)."
)


class ResetRequest(BaseModel):
    userid: StrictStr | None = Field(
        None,
        description="The account whose password to reset; the link goes to its email "
        "address. Send this or `email`.",
        json_schema_extra=dict(pattern=USERID_PATTERN),
    )
    email: StrictStr | None = Field(
        None,
        description="For who forgot their userid, instead of `userid`: each account "
        "registered with this address is sent a link, to it, naming its userid.",
        json_schema_extra=dict(format="email", maxLength=254),
    )


class ResetConfirmation(BaseModel):
    token: StrictStr = Field(description="The token in the emailed link (its last part).")
    new_password: StrictStr = Field(
        description=PASSWORD_RULES,
        json_schema_extra=dict(minLength=accounts.PASSWORD_MIN, maxLength=PASSWORD_MAX),
    )


class Code(BaseModel):
    code: StrictStr = Field(description=CODE)


class CodeOrPassword(BaseModel):
    code: StrictStr = Field(description=CODE + " Or the account's password.")


class TwoFactorStatus(Answer):
    enabled: bool = Field(description="Whether log-in asks for a code after the password.")
    recovery_codes_left: int = Field(ge=0, description="Unused recovery codes.")


class TwoFactorEnrolment(Answer):
    secret: str = Field(description="The TOTP key (base32), for an app that takes it typed.")
    uri: str = Field(description="The same as an `otpauth://totp/...` URI (or a QR code of it).")


class RecoveryCodes(Answer):
    recovery_codes: list[str] = Field(
        description="Each logs in once in place of a code. Shown this once: keep them."
    )


@api.post(
    "/password/reset",
    operation_id="requestPasswordReset",
    summary="Email a password reset link to the account's address",
    **operation(
        {202: None},
        400,
        429,
        descriptions={
            202: "Accepted, whether or not the account (or an account of the email "
            "address) exists: if it does, the link is on its way, good for "
            f"{tokens.RESET_TTL_S // 60} minutes, once.",
            429: ratelimit.PASSWORD_RESETS.describe(),
        },
        body=True,
    ),
)
def request_reset(request: HttpRequest, ask: ResetRequest) -> NoContent:
    site = request.build_absolute_uri("/").rstrip("/")
    if ask.email is not None and ask.userid is not None:
        raise InvalidInput("userid", "Send a userid or an email address, not both.")
    if ask.email is not None:
        passwordreset.request_reset_by_email(ask.email, site, client_address(request))
    else:
        passwordreset.request_reset(ask.userid, site, client_address(request))
    return Status(202, None)


@api.post(
    "/password/reset/confirm",
    operation_id="confirmPasswordReset",
    summary="Set a new password with an emailed token; every token and session is revoked",
    **operation(
        {204: None},
        400,
        409,
        descriptions={
            204: "Set. Every session and token of the account is ended: log in again.",
            400: "The token is invalid, used or expired (`field`: `token`), or the "
            "password is refused (`field`: `new_password`).",
        },
        body=True,
    ),
)
def confirm_reset(request: HttpRequest, reset: ResetConfirmation) -> NoContent:
    passwordreset.confirm_reset(reset.token, reset.new_password)
    return NO_CONTENT


@get(
    "/2fa",
    operation_id="twoFactorStatus",
    summary="Whether two-factor sign-in is on, and the recovery codes left",
    **operation({200: TwoFactorStatus}, descriptions={200: "The state."}, auth=True),
)
def status(request: HttpRequest) -> twofactor.Status:
    return twofactor.status(caller(request).user.userid)


@api.post(
    "/2fa",
    operation_id="beginTwoFactor",
    summary="Begin enrolment: a new TOTP key, on once confirmed by a first code",
    **operation(
        {200: TwoFactorEnrolment},
        409,
        descriptions={
            200: "Add the key to an authenticator app, then send its code to "
            "`POST /api/2fa/confirm`. A key begun before and unconfirmed is replaced.",
            409: "Two-factor sign-in is on already.",
        },
        auth=True,
    ),
)
def begin(request: HttpRequest) -> twofactor.Enrolment:
    return twofactor.begin(caller(request).user.userid)


@api.post(
    "/2fa/confirm",
    operation_id="confirmTwoFactor",
    summary="Turn two-factor sign-in on with a first code; returns the recovery codes",
    **operation(
        {200: RecoveryCodes},
        400,
        409,
        descriptions={
            200: "On: log-in now asks for a code.",
            400: "Wrong code (`field`: `code`).",
            409: "No enrolment to confirm.",
        },
        auth=True,
        body=True,
    ),
)
def confirm(request: HttpRequest, sent: Code) -> dict[str, list[str]]:
    codes = twofactor.confirm(caller(request).user.userid, sent.code)
    return {"recovery_codes": list(codes)}


@api.post(
    "/2fa/recovery-codes",
    operation_id="newRecoveryCodes",
    summary="Ten new recovery codes in place of the old ones",
    **operation(
        {200: RecoveryCodes},
        400,
        409,
        descriptions={
            200: "The new codes; the old ones work no more.",
            400: "Wrong code (`field`: `code`).",
            409: "Two-factor sign-in is off.",
        },
        auth=True,
        body=True,
    ),
)
def recovery_codes(request: HttpRequest, sent: Code) -> dict[str, list[str]]:
    codes = twofactor.regenerate_codes(caller(request).user.userid, sent.code)
    return {"recovery_codes": list(codes)}


@api.delete(
    "/2fa",
    operation_id="disableTwoFactor",
    summary="Turn two-factor sign-in off, with a code or the password",
    **operation(
        {204: None},
        400,
        429,
        descriptions={
            204: "Off (or it was).",
            400: "Neither a current code nor the password (`field`: `code`).",
        },
        auth=True,
        body=True,
    ),
)
def disable(request: HttpRequest, sent: CodeOrPassword) -> NoContent:
    me = caller(request)
    twofactor.disable(me.user.userid, sent.code, me.token)
    return NO_CONTENT
