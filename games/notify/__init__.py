"""Notification email (architecture §3 ``games/notify/``): :mod:`~games.notify.links` (signed links),
:mod:`~games.notify.content` (one email's text and HTML from the recipient's view) and
:mod:`~games.notify.send` (delivering the outbox and the daily digests)."""
