"""Integration tests against real services: PostgreSQL, Redis, a Celery worker subprocess, an SMTP sink."""
