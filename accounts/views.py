"""Profile page: display name, language, time zone; API token creation; the language switcher."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language

from games import services
from games.models import Notification
from games.notify.links import LinkError, unsubscribe_load

from .forms import NotificationForm, ProfileForm
from .models import TIME_ZONES, ApiToken, User


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """GET shows the profile form; POST saves it (language applied at once)."""
    user = request.user
    assert isinstance(user, User)
    form = ProfileForm(request.POST or None, instance=user)
    if request.method == "POST" and form.is_valid():
        form.save()
        translation.activate(user.language)
        messages.success(request, _("Profile saved."))
        response = redirect("accounts:profile")
        response.set_cookie("django_language", user.language, samesite="Lax")
        return response
    return render(request, "accounts/profile.html", _context(user, form))


@require_POST
def language(request: HttpRequest) -> HttpResponse:
    """The language switcher of every page (fields ``language`` and ``next``): Django's ``set_language``
    (language cookie, redirect back to ``next``), and for a logged-in user the choice is also saved to the
    profile, which :class:`accounts.middleware.UserLanguageMiddleware` applies on every later request."""
    code = request.POST.get("language", "")
    user = request.user
    if isinstance(user, User) and code in dict(settings.LANGUAGES) and code != user.language:
        user.language = code
        user.save(update_fields=["language"])
    return set_language(request)


def _context(user: User, form: ProfileForm, **extra: object) -> dict[str, object]:
    return {
        "form": form,
        "tokens": user.api_tokens.all(),
        "notify_form": extra.pop("notify_form", None) or NotificationForm(user=user),
        "time_zones": TIME_ZONES,
        **extra,
    }


@login_required
@require_POST
def notifications(request: HttpRequest) -> HttpResponse:
    """Save the notification settings; a changed away period re-times the clocks of open decisions in
    games that allow vacations (:func:`games.services.vacation_apply`). Invalid input: 400, nothing saved."""
    user = request.user
    assert isinstance(user, User)
    notify_form = NotificationForm(request.POST, user=user)
    if not notify_form.is_valid():
        context = _context(user, ProfileForm(instance=user), notify_form=notify_form)
        return render(request, "accounts/profile.html", context, status=400)
    away = (user.away_from, user.away_until)
    with transaction.atomic():  # the settings and the re-timed clocks are stored together or not at all
        notify_form.save()
        if (user.away_from, user.away_until) != away:
            services.vacation_apply(user=user)
    messages.success(request, _("Notification settings saved."))
    return redirect(reverse("accounts:profile") + "#notifications")


@login_required
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    """Issue an API token and show it once."""
    user = request.user
    assert isinstance(user, User)
    token = ApiToken.issue(user)
    return render(
        request, "accounts/profile.html", _context(user, ProfileForm(instance=user), new_token=token)
    )


@csrf_exempt  # RFC 8058 one-click: the mail client POSTs "List-Unsubscribe=One-Click" with no CSRF token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """Turn off one kind of notification email from its ``List-Unsubscribe`` link: GET asks, POST (from
    the page or a mail client's one-click, RFC 8058) sets that kind to "off". An invalid token is a 400."""
    try:
        user, kind = unsubscribe_load(token)
    except LinkError:
        return render(
            request, "accounts/unsubscribe.html", {"error": _("This link is not valid.")}, status=400
        )
    context: dict[str, object] = {"kind_label": Notification.Kind(kind).label}
    if request.method == "POST":
        user.notify = {**(user.notify or {}), kind: "off"}
        user.save(update_fields=["notify"])
        context["done"] = True
    return render(request, "accounts/unsubscribe.html", context)
