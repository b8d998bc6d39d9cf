"""Browser tests: Playwright driving Debian's Chromium against pytest-django's live server."""
