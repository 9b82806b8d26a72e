"""Real Redis and real Celery worker processes, against each server in turn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from devtools.processes import CeleryWorkerProcess, RedisProcess
from tests.helpers import ServerAddr
from tests.worker.helpers import worker_stack


@pytest.fixture
def stack(
    server: ServerAddr, redis_broker: RedisProcess, settings: Settings, tmp_path: Path
) -> Iterator[CeleryWorkerProcess]:
    """Fresh tables on ``server`` and a worker, fanning out CHUNK followers a task."""
    with worker_stack(server, redis_broker, settings, tmp_path) as worker:
        yield worker
