"""The OpenAPI document: valid, served, and true to the routes and services."""

from __future__ import annotations

import re

import schemathesis
from schemathesis.core.result import Ok

from feeds.api import openapi, urls
from feeds.services import accounts, twits
from feeds.types import User

from .conftest import Api


def test_the_document_is_valid_openapi() -> None:
    schema = schemathesis.openapi.from_dict(openapi.SCHEMA)
    schema.validate()  # against the OpenAPI 3.0 meta-schema
    operations = list(schema.get_all_operations())
    assert all(isinstance(op, Ok) for op in operations)
    assert len(operations) == 16  # 14, plus logout/everywhere and password (issue 9)


def test_the_document_is_served_at_api_schema(api: Api) -> None:
    response = api.get("/api/schema")
    assert response.status_code == 200
    assert response.json() == openapi.SCHEMA


def _documented_path(route: str) -> str:
    return "/api/" + re.sub(r"<str:(\w+)>", r"{\1}", route)


def test_every_route_is_documented_with_exactly_its_methods(api: Api, alice: User) -> None:
    routes = [str(p.pattern) for p in urls.urlpatterns if p.name]  # not the catch-all
    documented = {path: set(methods) for path, methods in openapi.PATHS.items()}
    assert {_documented_path(r) for r in routes} == set(documented)
    for path, methods in documented.items():
        concrete = path.replace("{userid}", "alice").replace("{twit_id}", "0" * 56)
        allow = {m.lower() for m in api.request("OPTIONS", concrete)["Allow"].split(", ")}
        # HEAD goes with GET (RFC 9110) and is not documented on its own.
        assert ("head" in allow) == ("get" in allow), path
        assert allow - {"head"} == methods, path


def test_constraints_match_what_the_services_enforce() -> None:
    assert openapi.USERID_PATTERN.strip("^$") == accounts.USERID_RE.pattern
    schemas = openapi.SCHEMAS
    assert schemas["NewTwit"]["properties"]["text"]["maxLength"] == twits.TEXT_MAX
    signup = schemas["SignUp"]["properties"]
    assert signup["name"]["maxLength"] == accounts.NAME_MAX
    assert signup["password"]["minLength"] == accounts.PASSWORD_MIN
    limit = openapi.PARAMETERS["limit"]["schema"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 100, 20)
