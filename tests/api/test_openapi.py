"""The OpenAPI document: valid, served, and true to the routes and services."""

from __future__ import annotations

import json
import re

import schemathesis
from schemathesis.core.result import Ok

from feeds.api import openapi, urls
from feeds.types import User

from .helpers import Api, error


def test_the_document_is_valid_openapi() -> None:
    schema = schemathesis.openapi.from_dict(openapi.SCHEMA)
    schema.validate()  # against the OpenAPI 3.0 meta-schema
    operations = list(schema.get_all_operations())
    assert all(isinstance(op, Ok) for op in operations)
    # Every documented operation parsed (no count to keep by hand: the routes
    # and the document are compared below, so a module registered in one and
    # not the other fails there).
    assert len(operations) == sum(len(methods) for methods in openapi.PATHS.values())


def test_the_document_is_served_at_api_schema(api: Api) -> None:
    response = api.get("/api/schema")
    assert response.status_code == 200
    # As JSON: once the fuzz test has read the document in this process, its
    # response codes are int keys in the dict (JSON's keys are strings).
    assert response.json() == json.loads(json.dumps(openapi.SCHEMA))


def _documented_path(route: str) -> str:
    return "/api/" + re.sub(r"<str:(\w+)>", r"{\1}", route)


def test_every_route_is_documented_with_exactly_its_methods(api: Api, alice: User) -> None:
    # Not the catch-all, nor /api/docs: that page shows this document, it is no operation.
    routes = [str(p.pattern) for p in urls.urlpatterns if p.name and p.name != "api-docs"]
    documented = {path: set(methods) for path, methods in openapi.PATHS.items()}
    assert {_documented_path(r) for r in routes} == set(documented)
    for path, methods in documented.items():
        concrete = path.replace("{userid}", "alice").replace("{twit_id}", "0" * 56)
        concrete = concrete.replace("{list_id}", "0" * 56)
        allow = {m.lower() for m in api.request("OPTIONS", concrete)["Allow"].split(", ")}
        # HEAD goes with GET (RFC 9110) and is not documented on its own.
        assert ("head" in allow) == ("get" in allow), path
        assert allow - {"head"} == methods, path


def test_the_documented_page_limits_are_where_validation_refuses(api: Api, alice: User) -> None:
    operation = openapi.PATHS["/api/users/{userid}/twits"]["get"]
    params = {p["name"]: p["schema"] for p in operation["parameters"]}
    low, top = params["limit"]["minimum"], params["limit"]["maximum"]
    for limit in (low, top, params["limit"]["default"]):
        assert api.get("/api/users/alice/twits", limit=str(limit)).status_code == 200
    for limit in (low - 1, top + 1):
        response = api.get("/api/users/alice/twits", limit=str(limit))
        assert f"from {low} to {top}" in error(response, 400)
        assert response.json()["field"] == "limit"
    longest = params["cursor"]["maxLength"]
    response = api.get("/api/users/alice/twits", cursor="A" * (longest + 1))
    assert f"at most {longest} characters" in error(response, 400)
    assert response.json()["field"] == "cursor"
    # As long as allowed: past the length check, refused by the service as garbage.
    response = api.get("/api/users/alice/twits", cursor="A" * longest)
    assert "at most" not in error(response, 400)
