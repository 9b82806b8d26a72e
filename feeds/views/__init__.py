"""The server-rendered web UI, and the health check, one module a family of pages.

Views are thin: a form parses the input, a service does the work, a template
renders the result (or the view redirects). Service errors become pages with
the service's status code: NotFound the friendly 404 page (also with
DEBUG on), RateLimited a 429 with the form kept, InvalidInput the message
next to the field it names. Every page works without JavaScript; every
change is a POST with a CSRF token. A GET on a POST-only URL (a link
followed, an address typed) gets a page saying how to do it, with 405.

- :mod:`.site`: the health check and the favicon.
- :mod:`.sessions`: sign up, log in, log out.
- :mod:`.account`: the account page: password, avatar, deleting the account.
- :mod:`.avatars`: a user's avatar image.
- :mod:`.home`: the landing page, the home stream and its live count.
- :mod:`.people`: profiles, followers and following, follow and unfollow.
- :mod:`.twits`: a twit's page with its replies, deleting, likes and reposts.
- :mod:`.search`: hashtag pages and the user search.
- :mod:`.notifications`: the notifications page.
- :mod:`._common`: what the views share: the error pages, a page with a form.
"""

from __future__ import annotations

from feeds.viewhelpers import View

__all__ = ["View"]
