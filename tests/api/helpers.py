"""Helpers of the api tests; their fixtures are in conftest.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.http import HttpResponse
from django.test import Client

from tests.helpers import PASSWORD


@dataclass
class Api:
    """JSON requests through the test client, with a bearer token once logged in."""

    client: Client
    token: str | None = None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        raw: bytes | str | None = None,
        headers: dict[str, str] | None = None,
        query: dict[str, str] | None = None,
    ) -> HttpResponse:
        """``body`` is sent as JSON, ``raw`` as is; ``headers`` replace the token's."""
        if headers is None:
            headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        data = raw if raw is not None else "" if body is None else json.dumps(body)
        if method == "GET":
            return self.client.get(path, query or {}, headers=headers)
        response: HttpResponse = self.client.generic(
            method, path, data, content_type="application/json", headers=headers
        )
        return response

    def get(self, path: str, **query: str) -> HttpResponse:
        return self.request("GET", path, query=query)

    def post(self, path: str, body: Any = None) -> HttpResponse:
        return self.request("POST", path, body)

    def put(self, path: str) -> HttpResponse:
        return self.request("PUT", path)

    def delete(self, path: str) -> HttpResponse:
        return self.request("DELETE", path)

    def login(self, userid: str, password: str = PASSWORD) -> Api:
        """A client for ``userid``, logged in through the API."""
        response = self.post("/api/login", {"userid": userid, "password": password})
        assert response.status_code == 200, response.content
        return Api(Client(), response.json()["token"])


def error(response: HttpResponse, status: int) -> str:
    """The message of a JSON error response with ``status``."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert isinstance(body["error"], str) and body["error"]
    return str(body["error"])
