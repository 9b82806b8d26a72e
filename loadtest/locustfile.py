"""Load test of the JSON API with locust: sign up, follow, post, read the home stream.

Each simulated user signs up (a unique userid per run), logs in for a bearer
token, follows a few users signed up before it, then loops: read the home
stream (most often), post a twit, follow someone new, read a profile. It
talks to a running server over HTTP, as any client would; nothing here
imports the app.

Against a running devstack (``make run``, or ``manage.py devstack``), on
loopback, for 60 s, stopping by itself::

    .venv/bin/locust -f loadtest/locustfile.py --headless -u 50 -r 10 -t 60s \\
        --host http://127.0.0.1:8000 --csv var/loadtest/run --only-summary

The devstack's posting limit is 30 twits a minute per user; the waits below
keep each simulated user well under it. docs/reliability.md records a run.

With ``TWITBASE_LOADTEST_ROUNDS=N`` the run ends by itself once every user
has signed up, logged in, read its stream and run N more tasks (``-t`` is
then only a bound): what tests/reliability/test_loadtest.py waits for, on a
machine however loaded, instead of a fixed time.
"""

from __future__ import annotations

import os
import random
import time
import uuid

import gevent
from locust import HttpUser, task

PASSWORD = "Vq7-lantern-orbit-52"  # passes Django's password validators
RUN = uuid.uuid4().hex[:6]  # userids unique to this run: a devstack keeps its data
signed_up: list[str] = []  # userids of this locust process, to follow
_counter = iter(range(1, 1_000_000))
ROUNDS = int(os.environ.get("TWITBASE_LOADTEST_ROUNDS", "0"))  # 0: until -t
_done: set[str] = set()  # users that have run their ROUNDS


class TwitBaseUser(HttpUser):
    def on_start(self) -> None:
        self.userid = f"lt{RUN}_{next(_counter)}"
        self.client.post(
            "/api/users",
            json={
                "userid": self.userid,
                "name": f"Load {self.userid}",
                "email": f"{self.userid}@example.com",
                "password": PASSWORD,
            },
            name="/api/users (sign up)",
        )
        self.token = self._login()
        self.client.headers["Authorization"] = f"Bearer {self.token}"
        for other in random.sample(signed_up, min(5, len(signed_up))):
            self.follow(other)
        signed_up.append(self.userid)
        self.read_stream()

    def wait_time(self) -> float:
        """Between tasks, 0.5 to 2 s; with ROUNDS set, the run ends once
        every user has run that many tasks."""
        self.rounds = getattr(self, "rounds", 0) + 1
        if ROUNDS and self.rounds == ROUNDS:
            _done.add(self.userid)
            runner = self.environment.runner
            if runner is not None and len(_done) >= runner.target_user_count:
                gevent.spawn(runner.quit)
        return random.uniform(0.5, 2.0)

    def _login(self) -> str:
        """A token; a throttled login (429) waits its Retry-After and tries again."""
        for _ in range(5):
            with self.client.post(
                "/api/login",
                json={"userid": self.userid, "password": PASSWORD},
                name="/api/login",
                catch_response=True,
            ) as resp:
                if resp.status_code == 429:
                    resp.success()
                    time.sleep(float(resp.headers.get("Retry-After", "1")))
                    continue
                resp.raise_for_status()
                return str(resp.json()["token"])
        raise RuntimeError(f"could not log {self.userid} in")

    def follow(self, other: str) -> None:
        self.client.put(f"/api/follows/{other}", name="/api/follows/[userid]")

    @task(6)
    def read_stream(self) -> None:
        self.client.get("/api/stream?limit=20", name="/api/stream")

    @task(2)
    def post_twit(self) -> None:
        self.client.post("/api/twits", json={"text": f"load test twit {uuid.uuid4().hex[:12]}"})

    @task(1)
    def follow_someone(self) -> None:
        others = [u for u in signed_up if u != self.userid]
        if others:
            self.follow(random.choice(others))

    @task(1)
    def read_profile(self) -> None:
        if signed_up:
            self.client.get(f"/api/users/{random.choice(signed_up)}", name="/api/users/[userid]")
