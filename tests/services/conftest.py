"""Service tests use the twitbase, alice, bob and charlie fixtures of tests/conftest.py."""
