"""Django's password validators at sign-up (issue 9)."""

from __future__ import annotations

import pytest
from django.test import Client

from feeds import services
from tests.helpers import ServerAddr


@pytest.mark.parametrize(
    ("password", "reasons"),
    [
        ("12345678", ["This password is too common.", "This password is entirely numeric."]),
        ("password", ["This password is too common."]),
        ("doraexplorer", ["The password is too similar to the userid."]),
        ("inbox@dora.example", ["The password is too similar to the email address."]),
        ("93820417362", ["This password is entirely numeric."]),
    ],
)
def test_sign_up_refuses_weak_passwords_on_the_password_field(
    web: ServerAddr, password: str, reasons: list[str]
) -> None:
    response = Client().post(
        "/signup",
        {
            "userid": "doraexplorer",
            "name": "Dora the Explorer",
            "email": "inbox@dora.example",
            "password": password,
        },
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="id_password_error">' in html
    for reason in reasons:
        assert reason in html
    assert services.find_user("doraexplorer") is None
