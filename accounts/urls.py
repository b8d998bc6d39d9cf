"""Account URLs beyond allauth's."""

from django.urls import path

from . import calendar, push, views

app_name = "accounts"
urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("language/", views.language, name="language"),
    path("profile/token/", views.token_create, name="token_create"),
    path("profile/notifications/", views.notifications, name="notifications"),
    path("profile/push/key/", push.push_key, name="push_key"),  # issue 32: Web Push
    path("profile/push/subscribe/", push.push_subscribe, name="push_subscribe"),
    path("profile/push/unsubscribe/", push.push_unsubscribe, name="push_unsubscribe"),
    path("profile/calendar/new/", calendar.calendar_new, name="calendar_new"),  # issue 32
    path("profile/calendar/off/", calendar.calendar_off, name="calendar_off"),  # issue 32
]
