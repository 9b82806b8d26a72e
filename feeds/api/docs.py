"""``GET /api/docs``: the API's OpenAPI document (``GET /api/schema``) as a
browsable page, django-ninja's Swagger UI.

ninja renders it from its own template and its own static files
(``ninja/swagger-ui-bundle.js`` and the rest, served like this site's),
because "ninja" is an installed app: no CDN, and the page's one piece of
script besides the bundle is ninja's ``swagger-ui-init.js``, a static file
too, so it runs under the site's Content-Security-Policy. One addition, on this
page only: Swagger UI's stylesheet draws a few icons (a select's arrow, the
copy and download buttons) as ``data:`` SVG images, which ``img-src 'self'``
would block; images cannot run script, so ``data:`` is allowed for them.
"""

from __future__ import annotations

from typing import Any

from csp.decorators import csp_update
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from ninja import NinjaAPI
from ninja.openapi.docs import Swagger

from .endpoint import api


class SchemaSwagger(Swagger):
    """Swagger UI on the document ``GET /api/schema`` serves (ninja's own
    ``openapi_url`` is off: that operation is the one document)."""

    def get_openapi_url(self, api: NinjaAPI, path_params: dict[str, Any]) -> str:
        return reverse("schema")


# validatorUrl: Swagger UI would otherwise load a badge from swagger.io,
# which the policy (img-src 'self') blocks.
SWAGGER = SchemaSwagger(settings={"validatorUrl": None})


# Exempt like every /api/ view, so that a POST gets the JSON 405, not the CSRF page.
@csrf_exempt
@require_safe
@csp_update({"img-src": ["data:"]})
def docs(request: HttpRequest) -> HttpResponse:
    return SWAGGER.render_page(request, api)
