from __future__ import annotations

from django.apps import AppConfig


class WorkerConfig(AppConfig):
    name = "worker"
    verbose_name = "Fan-out workers"

    def ready(self) -> None:
        # Here, not at import: worker.tasks imports the services, which need
        # the app registry ready. From now on feeds.jobs.dispatch queues
        # Celery tasks, in web processes and workers alike.
        from feeds import jobs

        from . import jobs as registry

        jobs.register(registry.dispatch)
