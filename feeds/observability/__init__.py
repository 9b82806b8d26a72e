"""Observability for production: the Prometheus endpoint ``/metrics`` and the
request timing and log fields behind it (docs/deploy.md, "Observability").

- :mod:`.middleware` times every request into a histogram labelled by the
  URL pattern (not the path: a label per user or twit would be unbounded),
  the method and the status class, and names the request in log lines;
- :mod:`.collector` reads, at scrape time and within a short deadline, what
  the staff console shows of the fan-out (its lag, the pending fan-outs and
  their leases, the workers' heartbeats) and the broker's queue length, by
  the console's own services;
- :mod:`.views` serves it all, to private addresses or a bearer token.

The HBase error counter lives where storage errors are handled:
``storage.connection``.

Built on prometheus_client itself rather than django-prometheus: the latter
would work without a SQL database (its database and model metrics are
opt-in), but its request histograms are labelled by view name and method
only, not by status class, and it adds nothing we need beyond what the
client library gives: multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``,
aggregated at scrape time by ``MultiProcessCollector``) and custom
collectors. One middleware and one view are less to learn than an app.

Like the pages, nothing here imports storage: the figures come through
the services.
"""
