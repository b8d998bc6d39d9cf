"""``manage.py`` commands of Castle Defence."""
