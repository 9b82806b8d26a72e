"""Production settings (DJANGO_DEBUG=0 with a secret key and ALLOWED_HOSTS),
in a fresh process each, as a deployment starts them: `check --deploy` has
nothing to say, and responses carry HSTS, a CSP and secure cookies."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

from devtools.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
HOST = "twitbase.example"


def production_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "TWITBASE_"))}
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS=HOST,
        # Nothing listens there: these tests need no HBase.
        TWITBASE_HBASE_PORT=str(free_port()),
        DJANGO_SETTINGS_MODULE="twitbase.settings",
        **extra,
    )
    return env


def test_check_deploy_has_no_warnings() -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNING" not in result.stderr, result.stderr


# Runs in the production process: a few requests through Django's test
# client, reported as JSON.
PROBE = """
import json, django
django.setup()
from django.test import Client
c = Client(raise_request_exception=False)
out = {}
for name, path, secure, headers in [
    ("login", "/login", True, {}),
    ("plain", "/login", False, {}),
    ("proxied", "/login", False, {"X-Forwarded-Proto": "https"}),
    ("healthz", "/healthz", False, {}),
]:
    r = c.get(path, secure=secure, headers={"Host": "HOST", **headers})
    out[name] = {
        "status": r.status_code,
        "headers": dict(r.headers),
        "cookies": {k: {"secure": bool(m["secure"]), "httponly": bool(m["httponly"])}
                    for k, m in r.cookies.items()},
    }
print(json.dumps(out))
""".replace("HOST", HOST)


def probe(**extra: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=production_env(**extra),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    found: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


def test_production_responses_carry_hsts_csp_and_secure_cookies() -> None:
    found = probe()
    login = found["login"]
    assert login["status"] == 200
    headers = login["headers"]
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    csp = headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "DENY"
    assert login["cookies"]["csrftoken"]["secure"]


def test_plain_http_is_redirected_but_the_health_check_is_not() -> None:
    found = probe()
    assert found["plain"]["status"] == 301
    assert found["plain"]["headers"]["Location"] == f"https://{HOST}/login"
    # X-Forwarded-Proto means nothing unless the deployment says it trusts it.
    assert found["proxied"]["status"] == 301
    assert found["healthz"]["status"] == 503  # not redirected; no HBase here
    assert "Strict-Transport-Security" not in found["plain"]["headers"]


def test_behind_a_proxy_its_header_says_https() -> None:
    found = probe(DJANGO_SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto: https")
    assert found["proxied"]["status"] == 200
    assert "Strict-Transport-Security" in found["proxied"]["headers"]
    assert found["plain"]["status"] == 301


def test_each_protection_can_be_turned_off_for_a_deployment_that_must() -> None:
    found = probe(
        DJANGO_SECURE_SSL_REDIRECT="0", DJANGO_SECURE_HSTS_SECONDS="0", DJANGO_SECURE_COOKIES="0"
    )
    assert found["plain"]["status"] == 200
    assert "Strict-Transport-Security" not in found["login"]["headers"]
    assert not found["plain"]["cookies"]["csrftoken"]["secure"]
