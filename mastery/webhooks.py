"""django-anymail's webhook URLs (``/anymail/<provider>/inbound/`` and the rest of ``anymail.urls``), with a
body that cannot be parsed answered 400 (issue 28 §4).

Anymail's views (anymail/webhooks/base.py, ``AnymailCoreWebhookView.post``) run the request's validators
(basic auth, a provider's signature), parse the body into events (``parse_events``), then send each event to
the ``inbound`` or ``tracking`` signal. Their own comment says every error but a validation failure becomes
a 500, "which ESPs generally treat as 'try again later'". For a body that is not what the provider sends
(``{bad json`` to ``/anymail/postmark/inbound/`` raised ``JSONDecodeError`` inside anymail), a retry fails
the same way: the provider posted the poisoned request again for hours, each time with a traceback in the
log. Here each view is a subclass whose validators and parsing turn such an error into a 400 and one
warning line. The signal's receivers run after the parsing, outside the guard: an error while storing a
mail (the database away) stays a 500, and the provider tries again later.
"""

from __future__ import annotations

import email.errors
import logging
from typing import Any, cast

from anymail import urls as anymail_urls
from anymail.exceptions import AnymailAPIError, AnymailWebhookValidationFailure
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.http.multipartparser import MultiPartParserError
from django.urls import URLPattern
from django.views import View

log = logging.getLogger(__name__)

#: What parsing a malformed body raises: bad JSON (``JSONDecodeError``) or encoding (``UnicodeDecodeError``,
#: ``binascii.Error``) are ``ValueError``; a missing or mistyped field is a ``LookupError``, ``TypeError`` or
#: ``AttributeError`` (a JSON list where an object belongs); a broken form is ``MultiPartParserError``.
PARSE_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    LookupError,
    TypeError,
    AttributeError,
    MultiPartParserError,
    email.errors.MessageError,
)


class MalformedWebhook(Exception):
    """A webhook's body could not be parsed (the parse error is its ``__cause__``)."""


def is_malformed(exc: BaseException) -> bool:
    """Whether ``exc``, raised by a webhook view's validators or parsing, says the body is malformed: one of
    :data:`PARSE_ERRORS`, or an anymail error raised from one (Amazon SES's "Malformed SNS message body",
    Mailgun's "invalid payload format" where its signature should be). A wrong basic auth or signature is
    not: anymail answers it 400 and Django logs it as a security event. Anything else (a configuration
    error, a provider's API failing or answering nonsense while a mail is fetched: an ``OSError``) is not
    either: it stays a 500, which the provider retries."""
    if isinstance(exc, OSError):  # a provider's API answering badly (requests' JSONDecodeError is both)
        return False
    if isinstance(exc, PARSE_ERRORS):
        return True
    wrapped = isinstance(exc, (AnymailAPIError, AnymailWebhookValidationFailure))
    return wrapped and is_malformed_cause(exc.__cause__)


def is_malformed_cause(cause: BaseException | None) -> bool:
    """Whether ``cause`` (an error another was raised from) is a parse error of :data:`PARSE_ERRORS`."""
    return isinstance(cause, PARSE_ERRORS) and not isinstance(cause, OSError)


class MalformedBodyIs400:
    """A mixin for an anymail webhook view (before it in the bases): a body its validators or parsing cannot
    read answers 400 "malformed webhook body", logged as one warning line without a traceback, and no event
    is sent to the signal."""

    esp_name: str

    def run_validators(self, request: HttpRequest) -> None:
        """Anymail's validators, with a parse error raised as :class:`MalformedWebhook`.

        Raises:
            MalformedWebhook: a validator could not parse the body.
            AnymailWebhookValidationFailure: the basic auth or signature is wrong (anymail's 400).
        """
        try:
            super().run_validators(request)  # type: ignore[misc]
        except Exception as exc:
            if is_malformed(exc):
                raise MalformedWebhook from exc
            raise

    def parse_events(self, request: HttpRequest) -> list[Any]:
        """Anymail's events of the body, all parsed before the first is sent (a list, even where anymail
        yields them), with a parse error raised as :class:`MalformedWebhook`.

        Raises:
            MalformedWebhook: the body could not be parsed.
        """
        try:
            return list(super().parse_events(request))  # type: ignore[misc]
        except Exception as exc:
            if is_malformed(exc):
                raise MalformedWebhook from exc
            raise

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        """Anymail's ``post``; a :class:`MalformedWebhook` answers 400 and logs one warning line."""
        try:
            response: HttpResponse = super().post(request, *args, **kwargs)  # type: ignore[misc]
        except MalformedWebhook as exc:
            cause = exc.__cause__
            log.warning(
                "malformed %s webhook body at %s (%s bytes) answered 400: %s: %s",
                self.esp_name,
                request.path,
                request.META.get("CONTENT_LENGTH") or "?",  # (the body itself may have been streamed)
                type(cause).__name__,
                " ".join(str(cause).split())[:200],  # one line, whatever the error quotes
            )
            bad = HttpResponseBadRequest("malformed webhook body", content_type="text/plain")
            bad._has_been_logged = True  # type: ignore[attr-defined]  # (django.utils.log.log_response)
            return bad
        return response


def guarded(pattern: URLPattern) -> URLPattern:
    """``pattern`` (one of ``anymail.urls``) with its view class wrapped in :class:`MalformedBodyIs400`
    (same route, name and view arguments)."""
    view = pattern.callback
    cls: type[View] = getattr(view, "view_class")  # noqa: B009  (set by View.as_view; untyped)
    initkwargs: dict[str, Any] = getattr(view, "view_initkwargs", {})
    subclass = cast("type[View]", type(cls.__name__, (MalformedBodyIs400, cls), {"__module__": __name__}))
    return URLPattern(pattern.pattern, subclass.as_view(**initkwargs), pattern.default_args, pattern.name)


app_name = anymail_urls.app_name
#: Every route of ``anymail.urls`` (inbound and tracking), guarded; included at ``anymail/``.
urlpatterns = [guarded(p) for p in anymail_urls.urlpatterns if isinstance(p, URLPattern)]
