"""Waiting in a test for something to happen: a condition polled until it
holds, never a fixed time, so a loaded machine makes a test slower and not
red (issue 39)."""

from __future__ import annotations

import time
from collections.abc import Callable


def eventually(
    check: Callable[[], bool],
    timeout: float = 30.0,
    what: str = "",
    every: float = 0.1,
    *,
    detail: Callable[[], str] = lambda: "",
    retry_on: tuple[type[Exception], ...] = (),
) -> float:
    """Poll ``check`` every ``every`` seconds until it is true, and return
    the seconds that took. An exception of a type in ``retry_on`` counts as
    not yet (a part that is coming back refuses connections meanwhile).
    After ``timeout``, fail saying what was awaited, ``detail()``, and the
    last exception retried, if any."""
    start = time.monotonic()
    last: Exception | None = None
    while True:
        try:
            if check():
                return time.monotonic() - start
        except retry_on as exc:
            last = exc
        if time.monotonic() - start > timeout:
            also = f" (last: {last!r})" if last is not None else ""
            raise AssertionError(f"not within {timeout}s: {what} {detail()}{also}")
        time.sleep(every)
