"""Development tooling, apart from the product: devstack (every part on one
machine, supervised), the launchers of the local HBase server, Redis, Celery
workers and the web server, and the real-HBase launcher from Maven Central.

Nothing in twitbase/, feeds/, storage/, worker/ or localhbase/ imports this
package; it imports them. Its management commands (devstack, localhbase and
the benchmarks) come with it as a Django app.
"""
