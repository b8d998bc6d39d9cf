"""Page URLs of The Anarchy's app, included at ``/anarchy/`` (namespace ``anarchy``)."""

from __future__ import annotations

from django.urls import path, re_path

from . import views

app_name = "anarchy"
urlpatterns = [
    path("", views.index, name="index"),
    path("daily/", views.daily, name="daily"),
    path("daily/leaderboard/", views.leaderboard, name="leaderboard_today"),
    re_path(r"^daily/(?P<day>\d{4}-\d{2}-\d{2})/leaderboard/$", views.leaderboard, name="leaderboard"),
    path("planner/", views.planner, name="planner"),
    path("daily/email/", views.mail_optin, name="mail_optin"),
    path("daily/email/stop/<str:token>/", views.mail_stop, name="mail_stop"),
]
