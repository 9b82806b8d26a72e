"""A repost's stream rows: written into its reposter's readers' streams,
and deleted from them (the rest of a repost is services/reactions.py's)."""

from __future__ import annotations
