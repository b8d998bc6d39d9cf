"""Account URLs beyond allauth's."""

from django.urls import path

from . import views

app_name = "accounts"
urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("language/", views.language, name="language"),
    path("profile/token/", views.token_create, name="token_create"),
    path("profile/notifications/", views.notifications, name="notifications"),
]
