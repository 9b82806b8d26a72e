# The TwitBase app image: web (gunicorn), worker, beat and createtables run
# it, with the same code. It holds the product only: the packages named in
# PRODUCT below, which tests/deploy/test_images.py holds to pyproject.toml's
# list of product packages, so that the two cannot drift apart.
#
# The base is a build argument so that a machine without an image registry
# can build on a local stand-in (devtools/stack.py); elsewhere it is the
# official image.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
# A C compiler builds storage/_bulk.pyx (the batch put requests); without it
# the app runs the same, only slower (setup.py).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
# The dependencies first, so that a change of code alone reuses this layer.
COPY pyproject.toml setup.py README.md ./
RUN python3 -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" > /tmp/requirements.txt \
 && pip install --no-cache-dir -r /tmp/requirements.txt
# PRODUCT: the app's packages, its templates and manage.py.
COPY twitbase twitbase
COPY feeds feeds
COPY storage storage
COPY worker worker
COPY hbasethrift hbasethrift
COPY templates templates
COPY manage.py ./
# Editable: the code runs from /app (templates and static files are found
# beside it), with the compiled module built in place.
RUN pip install --no-cache-dir --no-deps -e . \
 && DJANGO_DEBUG=0 DJANGO_SECRET_KEY="$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')" \
    python manage.py collectstatic --noinput \
 && python -m compileall -q twitbase feeds storage worker hbasethrift

FROM ${PYTHON_IMAGE}
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
WORKDIR /app
RUN useradd --system --home-dir /app --shell /usr/sbin/nologin twitbase
USER twitbase
EXPOSE 8000
CMD ["gunicorn", "-c", "python:twitbase.gunicorn_conf", "twitbase.wsgi", "--bind", "0.0.0.0:8000", "--workers", "2"]
