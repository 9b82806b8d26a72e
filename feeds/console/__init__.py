"""The staff console at /console/: tables, rows, key design, fan-out, moderation."""
