"""issue 28 §4: a provider webhook (django-anymail, mounted at ``/anymail/`` through :mod:`mastery.webhooks`)
whose body cannot be parsed answers 400 with one warning line and stores nothing, on every route; an error
while storing a mail that was read stays a 500, which the provider retries.
"""

from __future__ import annotations

import json
import logging
from base64 import b64encode
from typing import Any

import pytest
from anymail.exceptions import (
    AnymailAPIError,
    AnymailConfigurationError,
    AnymailImproperlyInstalled,
    AnymailWebhookValidationFailure,
)
from django.test import Client
from pytest_django import Settings
from requests.exceptions import JSONDecodeError as RequestsJSONDecodeError

from games.models import InboundMail
from mastery import webhooks

pytestmark = pytest.mark.django_db

#: Keys some providers' views need before they read a request (dummies: no signature here is valid).
KEYS = {
    name: "whsec_" + "A" * 32
    for name in (
        "BREVO_API_KEY",
        "MAILERSEND_INBOUND_SECRET",
        "MAILERSEND_SIGNING_SECRET",
        "MAILGUN_WEBHOOK_SIGNING_KEY",
        "MAILTRAP_API_TOKEN",
        "MANDRILL_WEBHOOK_KEY",
        "POSTAL_WEBHOOK_KEY",
        "RESEND_API_KEY",
        "SENDINBLUE_API_KEY",
        "UNISENDER_GO_API_KEY",
    )
}
POSTMARK = "/anymail/postmark/inbound/"


def _path(route: Any) -> str:
    return "/anymail/" + str(route.pattern).lstrip("^").rstrip("$").replace("(_mime)?", "")


def view_class(route: Any) -> type:
    """The class of a route's view (``View.as_view`` keeps it on the function)."""
    cls: type = route.callback.view_class
    return cls


ROUTES: dict[str, str] = {str(route.name): _path(route) for route in webhooks.urlpatterns}


@pytest.fixture
def keyed(settings: Settings) -> str:
    """The providers' keys set; returns the ``Authorization`` header of the webhook secret."""
    settings.ANYMAIL = {**settings.ANYMAIL, **KEYS}
    return "Basic " + b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()


def _post(path: str, body: str | bytes, auth: str, content_type: str = "application/json") -> Any:
    return Client(raise_request_exception=False).post(
        path, body, content_type=content_type, HTTP_AUTHORIZATION=auth
    )


def test_every_anymail_route_is_mounted_guarded() -> None:
    assert "postmark_inbound_webhook" in ROUTES and len(ROUTES) >= 20
    for route in webhooks.urlpatterns:
        assert issubclass(view_class(route), webhooks.MalformedBodyIs400), route.name


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_a_malformed_body_is_400_on_every_webhook(
    name: str, keyed: str, caplog: pytest.LogCaptureFixture
) -> None:
    view = view_class(next(r for r in webhooks.urlpatterns if r.name == name))
    try:
        view()
    except AnymailImproperlyInstalled:
        pytest.skip(f"{name}: its provider's optional package is not installed (amazon-ses: boto3)")
    with caplog.at_level(logging.WARNING):
        response = _post(ROUTES[name], "{bad json", keyed)
    assert response.status_code == 400, (name, response.status_code)
    assert not InboundMail.objects.exists()
    records = [(r.name, r.levelname) for r in caplog.records]
    if any(n.startswith("django.security.AnymailWebhookValidationFailure") for n, _level in records):
        return  # a provider that signs its posts: the missing signature is refused before the body is read
    assert records == [("mastery.webhooks", "WARNING")], records  # one line, no "Bad Request" besides
    assert caplog.records[0].exc_info is None  # no traceback
    assert "answered 400" in caplog.records[0].getMessage()


@pytest.mark.parametrize(
    "body",
    ["{bad json", "[]", '"text"', "null", "7", '{"RawEmail": 5}', b"\xff\xfe{", '{"Headers": "x"}'],
)
def test_postmark_inbound_refuses_what_it_cannot_read(
    body: str | bytes, keyed: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        response = _post(POSTMARK, body, keyed)
    assert response.status_code == 400
    assert response.content == b"malformed webhook body"
    assert not InboundMail.objects.exists()
    [record] = caplog.records
    assert record.name == "mastery.webhooks" and record.exc_info is None
    assert record.getMessage().startswith("malformed Postmark webhook body at /anymail/postmark/inbound/")


def test_the_secret_is_still_checked_first(keyed: str) -> None:
    wrong = "Basic " + b64encode(b"dev:wrong").decode()
    assert _post(POSTMARK, "{bad json", wrong).status_code == 400
    assert not InboundMail.objects.exists()


def test_an_error_storing_a_mail_read_stays_a_500(keyed: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard covers reading the body only: a failure of the inbound signal's receiver (here a
    ``ValueError``, a parse error's own class) is a 500, so the provider posts the mail again later."""

    def broken(**kwargs: Any) -> None:
        raise ValueError("the database said no")

    monkeypatch.setattr("games.receiver.mail_store", broken)
    raw = "From: a@example.org\r\nTo: play@example.org\r\nSubject: hi\r\n\r\nend\r\n"
    body = json.dumps({"RawEmail": raw, "OriginalRecipient": "play@example.org"})
    assert _post(POSTMARK, body, keyed).status_code == 500


def test_which_errors_mean_a_malformed_body() -> None:
    def raised_from(exc: BaseException, cause: BaseException) -> BaseException:
        exc.__cause__ = cause
        return exc

    assert webhooks.is_malformed(json.JSONDecodeError("x", "{", 1))
    assert webhooks.is_malformed(KeyError("email"))
    assert webhooks.is_malformed(raised_from(AnymailAPIError("Malformed SNS message body"), ValueError()))
    assert webhooks.is_malformed(raised_from(AnymailWebhookValidationFailure("bad payload"), KeyError()))
    # a provider's API failing or answering nonsense while a mail is fetched: retried
    assert not webhooks.is_malformed(RequestsJSONDecodeError("x", "<html>", 0))
    assert not webhooks.is_malformed(raised_from(AnymailAPIError("S3 said no"), ConnectionError()))
    assert not webhooks.is_malformed(AnymailWebhookValidationFailure("wrong signature"))
    assert not webhooks.is_malformed(AnymailConfigurationError("set a key"))
