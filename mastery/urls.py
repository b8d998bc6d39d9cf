"""Root URL configuration."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from accounts import calendar as account_calendar
from accounts import views as account_views
from games.api import api
from games.web import email_links

from . import home, pwa

#: A lost database connection raised in a middleware is a 503 "try again", JSON under /api/ (issue 28).
handler500 = "mastery.unavailable.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("accounts/", include("accounts.urls")),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language (accounts:language wraps it)
    path("api/", api.urls),
    path("e/<str:token>/", email_links.email_link, name="email_link"),
    path("unsubscribe/<str:token>/", account_views.unsubscribe, name="unsubscribe"),
    path("calendar/<str:token>.ics", account_calendar.feed, name="calendar_feed"),  # issue 32
    path("sw.js", pwa.service_worker, name="service_worker"),  # issue 32: scope "/", so at the root
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("offline/", pwa.offline, name="offline"),
    path("anarchy/", include("anarchy.urls")),  # issue 33: the second game
    path("events/", include("tournaments.urls")),  # issue 34: tournaments
    path("", include("games.urls")),
    path("", home.home, name="home"),  # the platform's home: both games
]
if settings.ANYMAIL_WEBHOOK_SECRET:  # inbound mail webhooks (issue 18), e.g. /anymail/mailgun/inbound/
    # anymail's own views, with a body they cannot parse answered 400 instead of 500 (issue 28)
    urlpatterns.insert(0, path("anymail/", include("mastery.webhooks")))
