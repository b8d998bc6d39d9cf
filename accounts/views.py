"""Profile page: display name, language, time zone; API token creation."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

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
