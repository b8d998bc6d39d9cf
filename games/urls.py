"""Page URLs of the games app."""

from django.urls import path

from . import views

app_name = "games"
urlpatterns = [
    path("games/", views.my_games, name="my_games"),
]
