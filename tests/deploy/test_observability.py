"""Production as a deployment runs it: gunicorn with several worker processes
(twitbase/gunicorn_conf.py), DJANGO_DEBUG=0. /metrics adds up every
worker's requests, whichever worker serves the scrape, and every line the
processes log is one JSON object."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from devtools.processes import free_port
from tests.deploy.test_production import ROOT, production_env
from tests.waiting import eventually

# Starts a devstack, gunicorn or Redis: not in the fast tier.
pytestmark = pytest.mark.servers

WORKERS = 3
REQUESTS = 40


@dataclass
class Gunicorn:
    url: str
    proc: subprocess.Popen[bytes]
    log: Path
    metrics_dir: Path


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture
def gunicorn(tmp_path: Path) -> Iterator[Gunicorn]:
    port = free_port()
    log = tmp_path / "gunicorn.log"
    metrics_dir = tmp_path / "metrics"
    env = production_env(
        DJANGO_SECURE_SSL_REDIRECT="0",
        # Nothing listens there: the scrape reports the broker down.
        CELERY_BROKER_URL=f"redis://127.0.0.1:{free_port()}/0",
        PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
        TWITBASE_METRICS_TIMEOUT_MS="1000",
    )
    env["DJANGO_ALLOWED_HOSTS"] = "127.0.0.1"
    command = [
        *(sys.executable, "-m", "gunicorn", "-c", "python:twitbase.gunicorn_conf"),
        *("twitbase.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", str(WORKERS)),
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if get(url + "/login")[0] == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "gunicorn did not answer in 60 s"
            time.sleep(0.2)
        yield Gunicorn(url, proc, log, metrics_dir)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def requests_counted(body: bytes, route: str) -> float:
    for family in text_string_to_metric_families(body.decode()):
        for s in family.samples:
            if s.name == "twitbase_http_request_duration_seconds_count" and s.labels == {
                "route": route,
                "method": "GET",
                "status": "2xx",
            }:
                return s.value
    return 0.0


def test_metrics_add_up_the_requests_of_every_worker_process(gunicorn: Gunicorn) -> None:
    # The readiness probe's requests, counted already: more than one when a
    # loaded machine made the probe give up on an answer it then counted.
    before = requests_counted(get(gunicorn.url + "/metrics")[1], "/login")
    assert before >= 1
    # Many at once, so that several worker processes serve them.
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda _: get(gunicorn.url + "/login")[0], range(REQUESTS)))
    assert statuses == [200] * REQUESTS
    # Each worker keeps its own file of counts; more than one served.
    pids = {p.stem.rsplit("_", 1)[-1] for p in gunicorn.metrics_dir.glob("histogram_*.db")}
    assert len(pids) >= 2, pids
    # Whichever worker answers the scrape, it counts them all (the readiness
    # probe's included).
    for _ in range(6):
        started = time.monotonic()
        status, body = get(gunicorn.url + "/metrics")
        took = time.monotonic() - started
        assert status == 200
        assert requests_counted(body, "/login") == before + REQUESTS
        # Neither HBase nor Redis answers here: a gauge says so, and the
        # scrape does not wait for either beyond its timeout.
        assert 'twitbase_scrape_source_up{source="hbase"} 0.0' in body.decode()
        assert 'twitbase_scrape_source_up{source="broker"} 0.0' in body.decode()
        assert took < 5, took


def test_every_log_line_is_a_json_object_with_the_request_fields(gunicorn: Gunicorn) -> None:
    assert get(gunicorn.url + "/no-such-page", {"X-Request-ID": "probe-42"})[0] == 404
    assert get(gunicorn.url + "/healthz")[0] == 503  # HBase down: logged as an error
    eventually(
        lambda: all(
            line in gunicorn.log.read_text()
            for line in ("Not Found: /no-such-page", "Service Unavailable: /healthz")
        ),
        what="both requests logged",
    )
    gunicorn.proc.terminate()
    gunicorn.proc.wait(timeout=30)
    lines = gunicorn.log.read_text().splitlines()
    records = [json.loads(line) for line in lines]  # every line, or this raises
    assert all(isinstance(r, dict) for r in records)
    for record in records:
        assert {"time", "level", "logger", "message"} <= record.keys(), record
    # gunicorn's own lines too.
    booted = [r for r in records if r["logger"] == "gunicorn.error" and "Booting" in r["message"]]
    assert len(booted) == WORKERS
    missing = next(r for r in records if r["message"] == "Not Found: /no-such-page")
    assert missing["level"] == "WARNING" and missing["logger"] == "django.request"
    assert missing["method"] == "GET" and missing["path"] == "/no-such-page"
    assert missing["request_id"] == "probe-42"
    assert missing["status_code"] == 404
    assert missing["remote_addr"] == "127.0.0.1"
    down = next(r for r in records if r["message"] == "Service Unavailable: /healthz")
    assert down["level"] == "ERROR" and down["route"] == "/healthz"
    assert len(down["request_id"]) == 16  # made up when the client sends none


@pytest.mark.parametrize(("debug", "json_lines"), [("0", True), ("1", False)])
def test_a_celery_worker_logs_as_the_web_does(
    redis_broker: Any, tmp_path: Path, debug: str, json_lines: bool
) -> None:
    """Production: the worker's lines are JSON objects too (Celery's own
    format otherwise); development: plain lines, with Celery's "ready" line
    that devstack waits for."""
    log = tmp_path / "worker.log"
    env = {**production_env(CELERY_BROKER_URL=redis_broker.url), "DJANGO_DEBUG": debug}
    celery = str(Path(sys.executable).with_name("celery"))
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [celery, "-A", "twitbase", "worker", "-l", "info", "-c", "1", "--without-gossip",
             "--without-mingle", "--hostname", f"logs{debug}@%h"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while b" ready." not in log.read_bytes():
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    logged = [line for line in log.read_text().splitlines() if line.startswith("{")]
    ready = [line for line in logged if " ready." in line]
    if json_lines:
        records = [json.loads(line) for line in logged]
        assert any(r["message"].endswith(" ready.") for r in records), records
        assert {r["level"] for r in records} >= {"INFO"}
    else:
        assert logged == [] and ready == []
        assert any(" ready." in line and " INFO " in line for line in log.read_text().splitlines())
