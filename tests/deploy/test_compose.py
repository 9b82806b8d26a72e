"""docker-compose.yml, read as Docker Compose reads it (no Docker engine here):
beat runs, Redis keeps an append-only file, every service has a healthcheck
that tests what it serves, and the app waits for healthy dependencies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"
# Jobs that run once and exit; the services that need them wait for
# service_completed_successfully, so a healthcheck would mean nothing.
ONE_SHOT = {"createtables"}


@pytest.fixture(scope="module")
def services() -> dict[str, dict[str, Any]]:
    compose = yaml.safe_load(COMPOSE.read_text())
    found: dict[str, dict[str, Any]] = compose["services"]
    return found


def command(service: dict[str, Any]) -> list[str]:
    cmd = service["command"]
    return cmd.split() if isinstance(cmd, str) else list(cmd)


def check(service: dict[str, Any]) -> str:
    test = service["healthcheck"]["test"]
    assert test[0] in ("CMD", "CMD-SHELL"), test
    return " ".join(test[1:])


def test_there_is_one_celery_beat(services: dict[str, dict[str, Any]]) -> None:
    beats = [
        name
        for name, s in services.items()
        if "command" in s and command(s)[:4] == ["celery", "-A", "twitbase", "beat"]
    ]
    assert beats == ["beat"]
    # and no worker runs an embedded beat as well (two beats send twice)
    assert not any(
        "--beat" in command(s) or "-B" in command(s) for s in services.values() if "command" in s
    )


def test_the_worker_runs_the_tasks(services: dict[str, dict[str, Any]]) -> None:
    assert command(services["worker"])[:4] == ["celery", "-A", "twitbase", "worker"]


def test_redis_keeps_an_append_only_file_on_a_volume(services: dict[str, dict[str, Any]]) -> None:
    redis = services["redis"]
    cmd = command(redis)
    assert cmd[0] == "redis-server"
    assert cmd[cmd.index("--appendonly") + 1] == "yes"
    assert any(v.endswith(":/data") for v in redis["volumes"])


def test_every_service_has_a_healthcheck(services: dict[str, dict[str, Any]]) -> None:
    missing = [
        name for name in services if name not in ONE_SHOT and "healthcheck" not in services[name]
    ]
    assert missing == []
    for name in ONE_SHOT:
        assert "healthcheck" not in services[name]
        assert "command" in services[name]


def test_each_healthcheck_tests_what_the_service_serves(
    services: dict[str, dict[str, Any]],
) -> None:
    assert "9090" in check(services["hbase"]) and ".tables()" in check(services["hbase"])
    assert check(services["redis"]) == "redis-cli ping"
    assert "http://127.0.0.1:8000/healthz" in check(services["web"])
    assert "celery -A twitbase inspect ping" in check(services["worker"])
    assert "$$(hostname)" in check(services["worker"])  # this container's worker, escaped
    assert "/beat/schedule" in check(services["beat"])
    assert "/beat/schedule" in command(services["beat"])


def test_the_app_waits_for_healthy_dependencies(services: dict[str, dict[str, Any]]) -> None:
    for name in ("web", "worker", "beat"):
        deps = services[name]["depends_on"]
        assert deps["redis"] == {"condition": "service_healthy"}, name
        assert deps["createtables"] == {"condition": "service_completed_successfully"}, name
    assert services["createtables"]["depends_on"]["hbase"] == {"condition": "service_healthy"}


def test_long_running_services_restart(services: dict[str, dict[str, Any]]) -> None:
    for name, service in services.items():
        if name not in ONE_SHOT:
            assert service.get("restart") == "unless-stopped", name


def test_the_app_services_run_in_production_mode(services: dict[str, dict[str, Any]]) -> None:
    for name in ("createtables", "web", "worker", "beat"):
        assert services[name]["environment"]["DJANGO_DEBUG"] == "0", name
