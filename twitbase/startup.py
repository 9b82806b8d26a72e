"""A process's start-up, and Python's cyclic garbage collector.

Setting Django up for TwitBase imports Django, Celery, django-ninja with
pydantic, happybase and every service: some 90,000 objects that live as long
as the process. The collector walks all of them in each full pass: during
the imports, each time allocations cross its threshold, and once more at
exit, while the interpreter tears the modules down. Those passes cost a
process about 0.6 of its 1.8 CPU seconds of start-up and exit on this
machine (`python -m bench.startup`; docs/benchmarks.md, "Start-up"), and a
test run starts hundreds of processes (hammers, commands, workers, servers).

- :func:`pause` turns the collector off. The entry points that set Django up
  straight after call it first: ``manage.py`` (twitbase/cli.py), the WSGI
  application, Celery's command line (twitbase/celery.py) and the test
  hammers. Nothing is freed late: a cycle made during the imports lives
  until the process ends anyway.
- :func:`settle` runs when every app is ready (:class:`twitbase.apps.
  TwitBaseConfig` is the last of INSTALLED_APPS): ``gc.freeze()`` moves
  everything alive into the permanent generation, which later passes skip,
  so the process never walks its imports again (and a forked child, a
  Celery or gunicorn worker, does not write to their pages), then the
  collector runs again as before for what the process makes from then on.

The standard library's ``gc`` module is the tool; this module only says
when to call it, which no library knows for an app.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Turn the collector off until :func:`settle`. A no-op if it is off
    already (whoever turned it off turns it on), or if Django is set up
    already: runserver imports the WSGI module after its apps are ready,
    and no ``ready()`` would come to turn it on again."""
    global _paused
    from django.apps import apps

    if gc.isenabled() and not apps.ready:
        gc.disable()
        _paused = True


def settle() -> None:
    """Keep what is alive now out of every later pass, and turn the collector
    back on if :func:`pause` turned it off."""
    global _paused
    gc.freeze()
    if _paused:
        _paused = False
        gc.enable()
