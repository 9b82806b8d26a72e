"""The capacity scenario (issue 39): signed-in readers on the web pages while
10,000-follower accounts post and their fan-out runs.

Run by ``manage.py benchcapacity`` (bench/capacity.py), which starts the
stack as deployed, seeds it, and hands this file its accounts in the JSON
file named by ``TWITBASE_CAPACITY_SEED``:

- **Readers** (``readers``: a signed session cookie each, minted by the
  seeding step, so the run measures reading, not password hashing) load
  their home page, as a browser does, at ``TWITBASE_CAPACITY_RATE`` pages a
  second between them. Now and then one acts on what the page showed, at
  ratios after what public figures suggest for such services (for every 100
  home pages: 5 likes, 2 permalinks read and 1 reply posted from one, half a
  follow), through the same HTML forms a browser posts (CSRF token and
  all), without following the redirect.
- **The poster** signs the stars in through the API and posts as each in
  turn, ``TWITBASE_CAPACITY_POSTS_S`` twits a second in all. After each
  post a watcher (one of the stars' followers, signed in through the API)
  reads its stream until the twit is there: the post-to-visible time is
  reported as a request of type ``LAG``, so locust counts it like any other.

With ``TWITBASE_CAPACITY_PAGE`` set to another path (``benchcapacity
--page /favicon.ico``), the readers load that page instead of their home
page, taking any answer below 400 as served and acting on nothing: the
ceiling of the stack itself, measured with the same load, the same posting
and fan-out, on the same cores. It is still reported as "home page", so the
two runs' tables and charts read alike.

Every response time is also written, per ``TWITBASE_CAPACITY_WINDOW_S``
window and request name, to the CSV file named by ``TWITBASE_CAPACITY_OUT``
(count, errors, p50, p99): locust's own history is cumulative, and a flat
latency over half an hour has to be read window by window.
"""

from __future__ import annotations

import csv
import functools
import http.cookiejar
import json
import os
import random
import threading
import time
import urllib.parse
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gevent
from locust import FastHttpUser, HttpUser, constant_pacing, events, task
from locust.env import Environment
from pages import COMPOSER, CSRF, LIKE, SIGNED_IN, TWIT  # beside this file

RATE = float(os.environ.get("TWITBASE_CAPACITY_RATE", "200"))  # home pages a second, all readers
POSTS_S = float(os.environ.get("TWITBASE_CAPACITY_POSTS_S", "1"))
WINDOW_S = float(os.environ.get("TWITBASE_CAPACITY_WINDOW_S", "10"))
OUT = os.environ.get("TWITBASE_CAPACITY_OUT", "")
PAGE = os.environ.get("TWITBASE_CAPACITY_PAGE", "/")  # what the readers load: their home page


_lock = threading.Lock()


@functools.cache
def seed() -> dict[str, Any]:
    """The accounts bench/capacity.py seeded (read once, when the run starts)."""
    return dict(json.loads(Path(os.environ["TWITBASE_CAPACITY_SEED"]).read_text()))


@functools.cache
def _readers() -> Iterator[dict[str, str]]:
    return iter(seed()["readers"])


class _Windows:
    """Response times per window and request name, written as each window ends."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.start = time.time()
        self.times: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.window = 0
        if path:
            with open(path, "w", newline="") as f:
                csv.writer(f).writerow(["t_s", "name", "count", "errors", "p50_ms", "p99_ms"])

    def add(self, name: str, ms: float, failed: bool) -> None:
        window = int((time.time() - self.start) // WINDOW_S)
        if window != self.window:
            self.flush(window)
        self.times[name].append(ms)
        if failed:
            self.errors[name] += 1

    def flush(self, next_window: int) -> None:
        if self.path and self.times:
            with open(self.path, "a", newline="") as f:
                out = csv.writer(f)
                for name, values in sorted(self.times.items()):
                    values.sort()
                    p50 = values[len(values) // 2]
                    p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
                    t = (self.window + 1) * WINDOW_S
                    out.writerow(
                        [t, name, len(values), self.errors[name], f"{p50:.1f}", f"{p99:.1f}"]
                    )
        self.times.clear()
        self.errors.clear()
        self.window = next_window


WINDOWS = _Windows(OUT)


@events.request.add_listener  # type: ignore[untyped-decorator]
def _record(name: str, response_time: float, exception: Any, **_: Any) -> None:
    WINDOWS.add(name, response_time, exception is not None)


@events.quitting.add_listener  # type: ignore[untyped-decorator]
def _last_window(environment: Environment, **_: Any) -> None:
    WINDOWS.flush(WINDOWS.window + 1)


class Reader(FastHttpUser):
    """A signed-in reader: the home page, and what a reader does from it.

    A FastHttpUser (geventhttpclient), not an HttpUser (requests): the load
    generator runs on the same two cores as the stack it measures, and at a
    hundred pages a second requests took a fifth to a third of a core of
    them (docs/benchmarks.md, "Capacity")."""

    weight = 100

    def wait_time(self) -> float:
        """Paced so the readers load RATE home pages a second between them,
        their other tasks on top (a reader's task is its home page 100 times
        in 108: paced at RATE tasks, as until 2026-11-30, they loaded 185
        home pages a second when 200 were asked)."""
        users = self.environment.runner.user_count if self.environment.runner else 1
        tasks_per_home = len(self.tasks) / self.tasks.count(Reader.home)
        return constant_pacing(max(1, users - 1) / (RATE * tasks_per_home))(self)

    def on_start(self) -> None:
        with _lock:
            me = next(_readers())
        self.client.cookiejar.set_cookie(_cookie(self.host, me["cookie_name"], me["cookie"]))
        self.page = ""

    def _form_post(self, action: str, name: str, data: dict[str, str] | None = None) -> None:
        token = CSRF.search(self.page)
        if token is None:
            return
        with self.client.post(
            action,
            data={"csrfmiddlewaretoken": token.group(1), **(data or {})},
            name=name,
            allow_redirects=False,
            catch_response=True,
        ) as resp:
            if resp.status_code in (200, 302, 303):
                resp.success()
            else:
                resp.failure(f"{resp.status_code}: {resp.text[:200]}")

    @task(100)
    def home(self) -> None:
        if PAGE != "/":
            self._floor()
            return
        with self.client.get("/", name="home page", catch_response=True) as resp:
            if resp.status_code != 200 or SIGNED_IN not in resp.text:
                resp.failure(f"not a signed-in home page: {resp.status_code}")
            else:
                self.page = resp.text

    def _floor(self) -> None:
        """The page named by PAGE in the home page's place (the module's
        docstring says why): served when it answers below 400."""
        with self.client.get(
            PAGE, name="home page", allow_redirects=False, catch_response=True
        ) as resp:
            if resp.status_code >= 400:
                resp.failure(f"{PAGE}: {resp.status_code}")
            else:
                resp.success()

    @task(5)
    def like(self) -> None:
        likes = LIKE.findall(self.page)
        if likes:
            self._form_post(random.choice(likes), "like (form)")

    @task(2)
    def permalink_and_reply(self) -> None:
        twits = TWIT.findall(self.page)
        if not twits:
            return
        with self.client.get(random.choice(twits), name="permalink", catch_response=True) as resp:
            if resp.status_code != 200:
                resp.failure(f"{resp.status_code}")
                return
            page = resp.text
        if random.random() < 0.5:
            composer = COMPOSER.search(page)
            if composer:
                self.page = page
                self._form_post(
                    composer.group(1), "reply (form)", {"text": f"a reply {random.random():.6f}"}
                )

    @task(1)
    def follow(self) -> None:
        if random.random() < 0.5:
            self._form_post(f"/u/{random.choice(seed()['others'])}/follow", "follow (form)")


def _cookie(base_url: str | None, name: str, value: str) -> http.cookiejar.Cookie:
    """The cookie ``name`` set to ``value`` for the host of ``base_url``, as
    the site's own Set-Cookie would have it."""
    host = urllib.parse.urlsplit(base_url or "").hostname or "localhost"
    return http.cookiejar.Cookie(
        version=0,
        name=name,
        value=value,
        port=None,
        port_specified=False,
        domain=host,
        domain_specified=False,
        domain_initial_dot=False,
        path="/",
        path_specified=True,
        secure=False,
        expires=None,
        discard=True,
        comment=None,
        comment_url=None,
        rest={},
    )


class Poster(HttpUser):
    """The stars, posting in turn, and the post-to-visible time each post takes."""

    fixed_count = 1
    wait_time = constant_pacing(1.0 / POSTS_S)

    def _token(self, userid: str, password: str) -> str:
        for _ in range(10):
            resp = self.client.post(
                "/api/login", json={"userid": userid, "password": password}, name="login (API)"
            )
            if resp.status_code == 429:
                gevent.sleep(float(resp.headers.get("Retry-After", "1")))
                continue
            resp.raise_for_status()
            return str(resp.json()["token"])
        raise RuntimeError(f"could not sign {userid} in")

    def on_start(self) -> None:
        password = seed()["password"]
        self.tokens = [self._token(s, password) for s in seed()["stars"]]
        self.watcher = self._token(seed()["watcher"], password)
        self.turn = 0

    @task
    def post(self) -> None:
        token = self.tokens[self.turn % len(self.tokens)]
        self.turn += 1
        resp = self.client.post(
            "/api/twits",
            json={"text": f"news {self.turn} for everyone #capacity"},
            headers={"Authorization": f"Bearer {token}"},
            name="post (API)",
        )
        if resp.status_code in (200, 201):
            gevent.spawn(self._watch, resp.json()["id"], time.monotonic())

    def _watch(self, twit: str, posted: float) -> None:
        """Read the watcher's stream until ``twit`` is on it, then report how long."""
        deadline = posted + 120
        while time.monotonic() < deadline:
            resp = self.client.get(
                "/api/stream?limit=5",
                headers={"Authorization": f"Bearer {self.watcher}"},
                name="watcher stream (API)",
            )
            if resp.ok and any(i["id"] == twit for i in resp.json()["items"]):
                self._lag("post-to-visible", posted, None)
                return
            gevent.sleep(0.05)
        self._lag("post-to-visible", posted, RuntimeError("not visible within 120 s"))

    def _lag(self, name: str, since: float, exc: Exception | None) -> None:
        events.request.fire(  # type: ignore[no-untyped-call]
            request_type="LAG",
            name=name,
            response_time=(time.monotonic() - since) * 1000,
            response_length=0,
            exception=exc,
            context={},
        )
