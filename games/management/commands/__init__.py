"""``manage.py demo`` and ``manage.py verify_game``."""
