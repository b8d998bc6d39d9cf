"""JSON API under /api/ (django-ninja); the OpenAPI schema is served at /api/openapi.json."""

from __future__ import annotations

from ninja import NinjaAPI

api = NinjaAPI(title="Medieval Mastery API", version="1", urls_namespace="api")
