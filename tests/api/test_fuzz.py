"""Schemathesis fuzzes every operation of the OpenAPI document against the WSGI app.

Each operation gets two runs of EXAMPLES cases, derandomized: inputs that
fit the document (positive) and inputs that break it (negative: wrong types,
missing fields, out-of-range limits, junk in path and query, bodies that are
not objects, missing or forged bearer tokens). Cases go with alice's valid
token or without one, and some positive cases name real users and twits, so
the happy paths run too. Whatever comes in, the answer must not be a server
error, must have a documented status, and must match the document's schema
for that status (errors are ``{"error": ...}`` JSON); input that breaks the
document must be refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_django.fixtures import Settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from feeds import services
from feeds.api import openapi
from feeds.services import lists
from tests.helpers import PASSWORD, ServerAddr, register
from twitbase.wsgi import application

EXAMPLES = 50
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
# A multipart form's fields are text whatever the document says their type
# is: a negative case that turns `alt` into a boolean sends the text "true",
# which is good alt text. Every other check still holds for it.
FORM_CHECKS = [check for check in CHECKS if check is not negative_data_rejection]
FORM_BODIES = {("POST", "/api/media")}

# A negative run needs something to break: parameters, a body or a token.
NEGATABLE = {"parameters", "requestBody", "security"}
RUNS = [
    (method.upper(), path, mode)
    for path, operations in openapi.PATHS.items()
    for method, operation in operations.items()
    for mode in GenerationMode
    if mode.is_positive or operation.keys() & NEGATABLE
]


@dataclass
class World:
    schema: Any
    token: str
    # Inputs naming things that exist.
    real_path_parameters: list[dict[str, str]]
    real_bodies: dict[str, dict[str, str]]


@pytest.fixture
def world(local_twitbase: ServerAddr, settings: Settings) -> World:
    # Fuzzing posts hundreds of twits a minute: lift the limit (tested on its own).
    settings.TWITBASE_POSTS_PER_MINUTE = 1_000_000
    settings.TWITBASE_LIST_CHANGES_PER_MINUTE = 1_000_000
    settings.TWITBASE_IMAGE_UPLOADS_PER_MINUTE = 1_000_000
    register("alice")
    register("bob")
    services.follow("alice", "bob")
    mine = services.post_twit("alice", "alice's own twit")
    theirs = services.post_twit("bob", "bob's twit")
    issued = services.issue_token("alice", PASSWORD)
    assert issued is not None
    mine_list = lists.create_list("alice", "alice's list")
    lists.add_member("alice", mine_list.id, "bob")
    # Loaded as a client sees it, through GET /api/schema.
    schema = schemathesis.openapi.from_wsgi("/api/schema", application)
    return World(
        schema,
        issued[0],
        [
            {"userid": "bob", "twit_id": theirs.id, "list_id": mine_list.id},
            {"userid": "alice", "twit_id": mine.id, "list_id": mine_list.id},
        ],
        {
            "/api/login": {"userid": "alice", "password": PASSWORD},
            "/api/twits": {"text": "a reply", "reply_to": theirs.id, "quote_of": theirs.id},
            "/api/lists": {"name": "a list", "description": "of people"},
        },
    )


def cases(world: World, method: str, path: str, mode: GenerationMode) -> Any:
    """Generated cases; a positive run also gets some that name real users,
    twits and credentials, so that more requests get past the lookups."""
    operation = world.schema[path][method]
    strategies = [operation.as_strategy(generation_mode=mode)]
    if mode.is_positive:
        for real in world.real_path_parameters:
            params = {name: value for name, value in real.items() if f"{{{name}}}" in path}
            if params:
                strategies.append(operation.as_strategy(path_parameters=params))
        # Bodies for the POST of a path (GET /api/lists, beside POST, has none).
        if path in world.real_bodies and method.upper() == "POST":
            strategies.append(operation.as_strategy(body=world.real_bodies[path]))
    return st.one_of(strategies)


@pytest.mark.parametrize(
    ("method", "path", "mode"), RUNS, ids=[f"{m} {p} {mode.value}" for m, p, mode in RUNS]
)
def test_no_input_makes_an_operation_fail(
    world: World, method: str, path: str, mode: GenerationMode
) -> None:
    bearer = {"Authorization": f"Bearer {world.token}"}

    @given(
        case=cases(world, method, path, mode), with_token=st.sampled_from([True, True, True, False])
    )
    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    def fuzz(case: Any, with_token: bool) -> None:
        # Without our token, the case's own Authorization is sent: forged,
        # or left out on purpose by a negative case, which must stay so.
        with_token = with_token and not world.schema.is_security_param_negated(case)
        response = case.call(headers=bearer if with_token else None)
        form = (method, path) in FORM_BODIES and not mode.is_positive
        case.validate_response(response, checks=FORM_CHECKS if form else CHECKS)

    fuzz()
