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
"""

from __future__ import annotations

import random
import time
import uuid

from locust import HttpUser, between, task

PASSWORD = "Vq7-lantern-orbit-52"  # passes Django's password validators
RUN = uuid.uuid4().hex[:6]  # userids unique to this run: a devstack keeps its data
signed_up: list[str] = []  # userids of this locust process, to follow
_counter = iter(range(1, 1_000_000))


class TwitBaseUser(HttpUser):
    wait_time = between(0.5, 2.0)

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
