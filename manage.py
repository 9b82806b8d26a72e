#!/usr/bin/env python
"""Django's command-line utility for TwitBase (see twitbase/cli.py)."""

from __future__ import annotations

from twitbase.cli import main

if __name__ == "__main__":
    main()
