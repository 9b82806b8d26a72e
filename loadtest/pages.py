"""What the capacity scenario (capacity.py) reads off TwitBase's pages, as a
browser would find it: kept apart from the locustfile so that a test can
hold these to the real pages without importing locust (which patches the
process it is imported in, with gevent)."""

from __future__ import annotations

import re

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
LIKE = re.compile(r'action="(/u/[^/"]+/t/[0-9a-f]+/like)"')
TWIT = re.compile(r'href="(/u/[^/"]+/t/[0-9a-f]+)"')
COMPOSER = re.compile(r'class="card composer[^"]*"[^>]*>\s*<form method="post" action="([^"]+)"')
SIGNED_IN = 'action="/logout"'
