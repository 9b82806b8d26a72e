# The TwitBase app image: web (gunicorn) or worker (celery), same code.
FROM python:3.11-slim-bookworm
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY twitbase twitbase
COPY feeds feeds
COPY storage storage
COPY worker worker
COPY templates templates
COPY manage.py ./
RUN pip install --no-cache-dir . \
 && DJANGO_DEBUG=1 python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["gunicorn", "twitbase.wsgi", "--bind", "0.0.0.0:8000", "--workers", "2"]
