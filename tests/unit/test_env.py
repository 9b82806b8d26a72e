from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from twitbase.env import env_bool, env_choice, env_header, env_int, env_list, env_str


def test_unset_and_empty_variables_give_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TB_X", raising=False)
    assert env_int("TB_X", 5) == 5
    monkeypatch.setenv("TB_X", "  ")
    assert env_str("TB_X", "d") == "d"
    assert env_list("TB_X", ["a"]) == ["a"]


def test_values_are_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TB_X", "42")
    assert env_int("TB_X", 0) == 42
    monkeypatch.setenv("TB_X", "Off")
    assert env_bool("TB_X", True) is False
    monkeypatch.setenv("TB_X", "a, b,,c")
    assert env_list("TB_X", []) == ["a", "b", "c"]
    monkeypatch.setenv("TB_X", "framed")
    assert env_choice("TB_X", "buffered", ["buffered", "framed"]) == "framed"


@pytest.mark.parametrize(
    ("reader", "value", "message"),
    [
        (lambda: env_int("TB_X", 1), "nine", "TB_X='nine' is not an integer"),
        (lambda: env_int("TB_X", 1, minimum=1), "0", "TB_X=0 is below the minimum 1"),
        (lambda: env_int("TB_X", 1, maximum=9), "10", "TB_X=10 is above the maximum 9"),
        (lambda: env_bool("TB_X", True), "maybe", "TB_X='maybe' is not a boolean"),
        (lambda: env_choice("TB_X", "a", ["a", "b"]), "c", "TB_X='c' is not one of: a, b"),
    ],
)
def test_a_bad_value_names_the_variable_and_the_value(
    monkeypatch: pytest.MonkeyPatch, reader: object, value: str, message: str
) -> None:
    monkeypatch.setenv("TB_X", value)
    with pytest.raises(ImproperlyConfigured, match=message.replace("(", r"\(")):
        reader()  # type: ignore[operator]


def test_settings_refuse_to_start_without_a_secret_key_in_production() -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": ""}
    proc = subprocess.run(
        [sys.executable, "-c", "import twitbase.settings"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in proc.stderr


def test_a_proxy_header_is_read_as_django_wants_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TB_X", raising=False)
    assert env_header("TB_X") is None
    monkeypatch.setenv("TB_X", " X-Forwarded-Proto:  https ")
    assert env_header("TB_X") == ("HTTP_X_FORWARDED_PROTO", "https")


@pytest.mark.parametrize("value", ["X-Forwarded-Proto", "X-Forwarded-Proto:", ": https", "X Y: z"])
def test_a_malformed_proxy_header_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("TB_X", value)
    with pytest.raises(ImproperlyConfigured, match="TB_X"):
        env_header("TB_X")


@pytest.mark.parametrize(
    ("entry", "key", "line"),
    [
        (
            ["manage.py", "check"],
            "",
            "manage.py: configuration error: DJANGO_SECRET_KEY is not set",
        ),
        (
            ["-c", "import twitbase.wsgi"],
            "short-key",
            "twitbase.wsgi: configuration error: DJANGO_SECRET_KEY is unsafe: 9 characters, "
            "under 50",
        ),
        (
            ["-m", "celery", "-A", "twitbase", "worker"],
            "django-insecure-" + "x1y2z3w4v5" * 5,
            "celery: configuration error: DJANGO_SECRET_KEY is unsafe: it starts with",
        ),
        (
            ["-m", "gunicorn", "-c", "python:twitbase.gunicorn_conf", "twitbase.wsgi"],
            "ab" * 30,
            "gunicorn: configuration error: DJANGO_SECRET_KEY is unsafe: fewer than 5 different",
        ),
    ],
)
def test_a_bad_secret_key_stops_each_entry_point_with_one_line(
    entry: list[str], key: str, line: str
) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": key}
    if entry[:2] == ["-m", "celery"]:
        # Celery's own command line is how the check knows it runs as celery.
        entry = [str(Path(sys.executable).with_name("celery")), *entry[2:]]
        cmd = entry
    else:
        cmd = [sys.executable, *entry]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()], proc.stderr
    assert proc.stderr.startswith(line), proc.stderr
