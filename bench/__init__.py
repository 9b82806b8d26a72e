"""Benchmarks: commands that print a table (run through `manage.py bench*`,
see docs/benchmarks.md). Tooling, not product: nothing in the product
packages imports them."""
