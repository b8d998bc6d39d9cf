"""Page URLs of the tournaments, included at ``/events/`` (namespace ``tournaments``)."""

from __future__ import annotations

from django.urls import path

from . import views

app_name = "tournaments"
urlpatterns = [
    path("", views.event_list, name="list"),
    path("new/", views.event_new, name="new"),
    path("<int:event_id>/", views.event_detail, name="detail"),
    path("<int:event_id>/live/", views.event_live, name="live"),
    path("<int:event_id>/signup/", views.event_signup, name="signup"),
    path("<int:event_id>/withdraw/", views.event_withdraw, name="withdraw"),
    path("<int:event_id>/withdraw/<int:user_id>/", views.player_withdraw, name="player_withdraw"),
    path("<int:event_id>/standings.csv", views.standings_csv, name="standings_csv"),
]
