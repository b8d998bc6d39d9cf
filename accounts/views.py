"""Profile page: display name, language, time zone; API token creation."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from .forms import ProfileForm
from .models import ApiToken, User


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
    return render(request, "accounts/profile.html", {"form": form, "tokens": user.api_tokens.all()})


@login_required
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    """Issue an API token and show it once."""
    user = request.user
    assert isinstance(user, User)
    token = ApiToken.issue(user)
    form = ProfileForm(instance=user)
    return render(
        request, "accounts/profile.html", {"form": form, "tokens": user.api_tokens.all(), "new_token": token}
    )


@csrf_exempt  # RFC 8058 one-click: the mail client POSTs "List-Unsubscribe=One-Click" with no CSRF token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """Turn off one kind of notification email from its ``List-Unsubscribe`` link: GET asks, POST (from
    the page or a mail client's one-click, RFC 8058) sets that kind to "off". An invalid token is a 400."""
    from games.models import Notification
    from games.notifications import LinkError, unsubscribe_load

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
