# The two commands a new machine needs are `make run` and `make test`;
# everything else here is what they are made of.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml setup.py localhbase/_wire.pyx localhbase/_rows.pyx storage/_bulk.pyx | cksum | cut -d' ' -f1)

.PHONY: run test test-fast install redis-server lint typecheck hbase-fetch bench loadtest clean

$(STAMP): pyproject.toml setup.py localhbase/_wire.pyx localhbase/_rows.pyx storage/_bulk.pyx
	@echo "==> installing TwitBase and its dependencies into $(VENV)"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@# uv installs what pip would, from the same pyproject.toml, in 15 s against
	@# pip's 39 (a fresh clone, 2026-11-26); it comes from PyPI like the rest.
	@# Bytecode is compiled now, as pip does: where PYTHONDONTWRITEBYTECODE is
	@# set, every process would compile each module it imports (a test run
	@# without it took 95 s longer).
	$(BIN)/pip install --disable-pip-version-check -q uv==0.13.9
	$(BIN)/uv pip install --python $(BIN)/python -q --compile-bytecode -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

# The broker devstack runs: Debian's redis-server, installed once if missing.
redis-server:
	@command -v redis-server >/dev/null || test -x /usr/bin/redis-server || { \
	  echo "==> installing redis-server (Debian package)"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -q --no-install-recommends redis-server; }

## run: install, then start the whole app on the embedded default (Ctrl-C stops it)
run: $(STAMP) redis-server
	$(BIN)/python manage.py devstack $(ARGS)

## test: install, fetch Apache HBase, then run the whole suite, lint and type checks beside it
test: $(STAMP)
	$(BIN)/python scripts/testall.py $(ARGS)

## test-fast: what a developer runs while editing: the tests that start no server (about 20 s)
test-fast: $(STAMP)
	TWITBASE_SKIP_HBASE=1 $(BIN)/python -m pytest -m "not servers" -n 2 -q $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy .

hbase-fetch: $(STAMP)
	$(BIN)/python -m devtools.realhbase fetch

bench: $(STAMP)
	$(BIN)/python manage.py benchstorage $(ARGS)

## loadtest: locust, 50 users for 60 s, against the devstack of `make run` (docs/reliability.md)
loadtest: $(STAMP)
	@mkdir -p var/loadtest
	$(BIN)/locust -f loadtest/locustfile.py --headless -u 50 -r 10 -t 60s \
		--host http://127.0.0.1:8000 --csv var/loadtest/run --only-summary $(ARGS)

clean:
	rm -rf $(VENV) var hbase/target .pytest_cache .mypy_cache .ruff_cache build localhbase/_wire.c localhbase/_wire.*.so localhbase/_rows.c localhbase/_rows.*.so storage/_bulk.c storage/_bulk.*.so
