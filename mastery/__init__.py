"""The Django project package of Medieval Mastery online (the Celery app is loaded with Django)."""

from .celery import app as celery_app

__all__ = ["celery_app"]
