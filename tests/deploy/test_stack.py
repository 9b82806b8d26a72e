"""docker-compose.yml, run for real: the images built under a real container
engine (Debian's podman, devtools/stack.py), the whole stack started with
TLS in front, then driven only through its published ports as a user and an
operator would: sign up, post, a follower sees it (the worker container's
fan-out), like and reply; the worker killed and restarted with nothing
lost; Redis stopped while a twit is posted, then the sweep delivers it; the
stack taken down and brought up again with every row kept.

One scenario in one test, in order: each step needs the state the last one
left, and the stack takes a minute to start. Every wait is for a condition,
bounded. In CI a failure to build or start fails the test; elsewhere, with
no podman and no root to install it, it skips.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import psutil
import pytest
import requests

from devtools import stack

T = TypeVar("T")

PASSWORD = "stack-test-pass-9"
# The sweep and its lease, short here so that a twit posted while Redis was
# down is delivered within seconds of Redis coming back.
SWEEP_S = 5


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _log_in(s: Stack, userid: str) -> str:
    """``userid``'s new API token; an AssertionError with the answer's status
    and text while the stack does not give one (so a wait that ends names it)."""
    answer = s.api("POST", "/api/login", json={"userid": userid, "password": PASSWORD})
    assert answer.status_code == 200, (answer.status_code, answer.text[:300])
    token: str = answer.json()["token"]
    return token


def _wait(what: str, probe: Callable[[], T | None], timeout: float, every: float = 0.5) -> T:
    """``probe()`` until it returns something other than None (an exception
    counts as not yet); that value. Fails naming ``what`` and the last error."""
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        try:
            got = probe()
            if got is not None:
                return got
        except (requests.RequestException, AssertionError, KeyError) as exc:
            last = exc
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:.0f} s (last: {last!r})")
        time.sleep(every)


@dataclass
class Stack:
    project: str
    env: dict[str, str]
    http: str  # web's own port, plain HTTP
    https: str  # through the TLS proxy
    proxy_http: str  # the proxy's plain HTTP port
    ca: str  # the self-signed certificate, trusted by this test's requests
    createtables_output: list[str] = field(default_factory=list)  # one per start

    def compose(self, *args: str, timeout: float = 600) -> str:
        return stack.compose(self.project, *args, env=self.env, timeout=timeout).stdout

    def container(self, service: str) -> str:
        return stack.container(self.project, service)

    def up(self, *services: str) -> None:
        self.compose("--profile", "tls", "up", "-d", "--no-build", "--no-deps", *services)

    def healthy(self, *services: str, timeout: float = 240) -> None:
        for service in services:
            stack.wait_healthy(self.project, service, timeout)

    def start(self) -> None:
        """Up in dependency order, each waited for: podman does not run
        healthchecks by itself, so `depends_on` conditions are ours to honour."""
        self.up("hbase", "redis")
        self.healthy("hbase", "redis")
        self.up("createtables")
        code = stack.podman("wait", self.container("createtables")).strip()
        logs = stack.podman("logs", self.container("createtables"), check=False)
        assert code == "0", f"createtables exited {code}:\n{logs}"
        self.createtables_output.append(logs)
        self.up("web", "worker", "beat")
        self.healthy("web", "worker")
        self.up("proxy")
        self.healthy("proxy")

    def api(self, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return requests.request(
            method, self.https + path, headers=headers, verify=self.ca, timeout=30, **kw
        )


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if shutil.which("podman") is None and os.geteuid() != 0 and os.environ.get("CI") != "true":
        pytest.skip("podman is not installed and this user cannot install it")
    try:
        stack.ensure_bases()
    except stack.StackError as exc:
        pytest.fail(f"the container engine or base images: {exc}")
    tmp = tmp_path_factory.mktemp("stack")
    tls = tmp / "tls"
    tls.mkdir()
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            "-keyout", str(tls / "key.pem"), "-out", str(tls / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    tls.chmod(0o755)
    (tls / "key.pem").chmod(0o644)  # nginx's workers read it as another user
    env_file = tmp / "env"
    env_file.write_text(
        f"DJANGO_SECRET_KEY={secrets.token_urlsafe(50)}\n"
        "DJANGO_ALLOWED_HOSTS=localhost,127.0.0.1\n"
        f"TWITBASE_SWEEP_AFTER_S={SWEEP_S}\n"
        f"TWITBASE_SWEEP_EVERY_S={SWEEP_S}\n"
    )
    ports = {"http": _free_port(), "https": _free_port(), "proxy_http": _free_port()}
    project = f"tbstack{uuid.uuid4().hex[:6]}"
    deployed = Stack(
        project=project,
        env={
            "TWITBASE_ENV_FILE": str(env_file),
            "TWITBASE_TLS_DIR": str(tls),
            "TWITBASE_HTTP_PORT": str(ports["http"]),
            "TWITBASE_HTTPS_PORT": str(ports["https"]),
            "TWITBASE_PROXY_HTTP_PORT": str(ports["proxy_http"]),
            # TLS as deployed: the proxy says HTTPS, Django redirects the rest.
            "DJANGO_SECURE_SSL_REDIRECT": "1",
            "DJANGO_SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto: https",
        },
        http=f"http://127.0.0.1:{ports['http']}",
        https=f"https://localhost:{ports['https']}",
        proxy_http=f"http://127.0.0.1:{ports['proxy_http']}",
        ca=str(tls / "cert.pem"),
    )
    try:
        t0 = time.monotonic()
        # One build of the app image serves createtables, web, worker and beat.
        deployed.compose("build", "hbase", "createtables", timeout=1800)
        print(f"stack: images built in {time.monotonic() - t0:.0f} s", flush=True)
        t0 = time.monotonic()
        deployed.start()
        print(f"stack: up and healthy in {time.monotonic() - t0:.0f} s", flush=True)
        yield deployed
    except stack.StackError as exc:
        pytest.fail(str(exc))
    finally:
        stack.compose(project, "--profile", "tls", "down", "-v", env=deployed.env, check=False)


def _sign_up(s: Stack, userid: str) -> str:
    made = s.api(
        "POST",
        "/api/users",
        json={"userid": userid, "name": userid.title(), "email": f"{userid}@example.com",
              "password": PASSWORD},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    logged_in = s.api("POST", "/api/login", json={"userid": userid, "password": PASSWORD})
    assert logged_in.status_code == 200, logged_in.text
    return str(logged_in.json()["token"])


def _stream_ids(s: Stack, token: str) -> list[str]:
    page = s.api("GET", "/api/stream", token, params={"limit": "50"})
    assert page.status_code == 200, page.text
    return [item["id"] for item in page.json()["items"]]


def _post(s: Stack, token: str, text: str, **extra: str) -> str:
    posted = s.api("POST", "/api/twits", token, json={"text": text, **extra})
    assert posted.status_code == 201, posted.text
    return str(posted.json()["id"])


def _sees(s: Stack, token: str, twit_id: str, timeout: float) -> None:
    _wait(
        f"twit {twit_id} in the follower's stream",
        lambda: True if twit_id in _stream_ids(s, token) else None,
        timeout,
    )


def test_the_stack_serves_fans_out_survives_faults_and_keeps_its_rows(deployed: Stack) -> None:
    s = deployed
    # -- createtables pre-split the hash-keyed tables through Thrift2 ----------
    first_start = s.createtables_output[0]
    assert re.search(r"^created table twitbase_users \(16 regions\)$", first_start, re.M), (
        first_start
    )
    # -- the parts answer, in production mode, behind TLS ----------------------
    health = requests.get(s.http + "/healthz", timeout=10)
    assert health.status_code == 200, health.text
    check = subprocess.run(
        ["podman", "exec", s.container("web"), "python", "manage.py", "check", "--deploy",
         "--fail-level", "WARNING"],
        env=stack.engine_env(), capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert check.returncode == 0 and "no issues" in check.stdout, check.stdout + check.stderr
    moved = requests.get(s.proxy_http + "/login", allow_redirects=False, timeout=10)
    assert moved.status_code == 301
    assert moved.headers["Location"].startswith("https://")
    page = requests.get(s.https + "/login", verify=s.ca, timeout=10)
    assert page.status_code == 200
    assert page.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    assert "Secure" in page.headers["Set-Cookie"]
    # Without the proxy's word, web itself redirects plain HTTP to HTTPS.
    direct = requests.get(s.http + "/login", allow_redirects=False, timeout=10)
    assert direct.status_code == 301 and direct.headers["Location"].startswith("https://")

    # -- sign up, follow, post; the worker container fans out -----------------
    alice, bob = _sign_up(s, "alice"), _sign_up(s, "bob")
    assert s.api("PUT", "/api/follows/alice", bob).status_code in (200, 204)
    first = _post(s, alice, "Hello from the compose stack")
    _sees(s, bob, first, timeout=60)
    liked = s.api("PUT", f"/api/twits/{first}/like", bob)
    assert liked.status_code in (200, 204), liked.text
    reply = _post(s, bob, "Welcome!", reply_to=first)
    replies = s.api("GET", f"/api/twits/{first}/replies", alice)
    assert replies.status_code == 200
    assert [t["id"] for t in replies.json()["items"]] == [reply]
    shown = s.api("GET", f"/api/twits/{first}", alice).json()
    assert (shown["likes"], shown["replies"]) == (1, 1)

    # -- the worker killed: restarted by its policy, nothing lost --------------
    worker = s.container("worker")
    started = stack.podman("inspect", "-f", "{{.State.StartedAt}}", worker).strip()
    # SIGKILL to its main process from outside, as the kernel's OOM killer
    # would: `podman kill` counts as stopped by the user, and no policy
    # restarts what its user stopped.
    pid = int(stack.podman("inspect", "-f", "{{.State.Pid}}", worker))
    # Only the worker's own process: never a pid of 0 (this process group)
    # or one the engine reported stale.
    assert pid > 1 and "celery" in " ".join(psutil.Process(pid).cmdline()), pid
    os.kill(pid, signal.SIGKILL)
    during = _post(s, alice, "Posted while the worker was dead")
    _wait(
        "the worker container restarted",
        lambda: (
            True
            if stack.podman("inspect", "-f", "{{.State.StartedAt}}", worker).strip() != started
            else None
        ),
        timeout=60,
    )
    _sees(s, bob, during, timeout=120)

    # -- Redis stopped: the post is kept (201), the sweep delivers it ----------
    stack.podman("stop", s.container("redis"))
    try:
        while_down = _post(s, alice, "Posted while Redis was down")
    finally:
        stack.podman("start", s.container("redis"))
    s.healthy("redis")
    _sees(s, bob, while_down, timeout=120)

    # -- down, then up: the volumes keep every row ------------------------------
    before = _stream_ids(s, bob)
    assert {first, during, while_down, reply} <= set(before)
    s.compose("--profile", "tls", "down")
    s.start()
    bob_again = _wait("bob logs in after the restart", lambda: _log_in(s, "bob"), timeout=180)
    assert _stream_ids(s, bob_again) == before
    # The second createtables found every table as the schema has it.
    assert "the tables match the schema" in s.createtables_output[-1], s.createtables_output[-1]
    shown = s.api("GET", f"/api/twits/{first}", bob_again).json()
    assert (shown["likes"], shown["replies"], shown["liked"]) == (1, 1, True)
