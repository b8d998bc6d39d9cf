"""Accounts: the custom user model, profile and API tokens (django-allauth does sign-up and login)."""
