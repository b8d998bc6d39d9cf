"""The ids of chat messages as clients see them (issue 28 §4 "How much others talk").

``ChatMessage`` primary keys are one sequence over the whole site: shown as they are, the gaps between the
ids a seat reads would count the other team's talk, other players' private messages and the messages the
staff hid. So no primary key of a chat message ever leaves the server. Every id a client sees (the API's
``id``, ``older`` and ``version``, the page's ``data-id`` and report forms, the poll's ``chat`` cursor, the
emails' threading keys) is :func:`public_id` of it: the key encrypted under a key derived from
``SECRET_KEY`` with a 64-bit Feistel network (8 rounds; Luby and Rackoff, "How to construct pseudorandom
permutations from pseudorandom functions", SIAM J. Comput. 17(2), 1988) whose round functions are keyed
BLAKE2b (RFC 7693 §2.5, a pseudorandom function; half the cost of HMAC-SHA256), written as 16 lower-case
hex digits. Without the key the ids are a random-looking permutation of the keys:
neither their order nor their differences say anything. The server decodes them with :func:`message_pk`;
cursors keep working there (``id < pk`` and ``id > pk``) and no column or migration is needed.

A key is below 2⁴⁸, so a decoded id whose top 16 bits are not zero was not made here: a forged or
mistyped id is refused (all but one in 65,536 of them) before any query. Ids made under a key of
``SECRET_KEY_FALLBACKS`` still decode, so pages open while the key is rotated keep polling.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from django.conf import settings

#: Keys (primary keys) below this bound have a public id; the rest of the 64-bit block checks a decode.
LIMIT: int = 1 << 48
_HALF = 32
_MASK: int = (1 << _HALF) - 1
_ROUNDS = 8
_SALT = b"games.chat.public_id"
_TOKEN = re.compile(r"[0-9a-f]{16}")


@lru_cache(maxsize=8)
def _key(secret: str) -> bytes:
    """The key of the round functions for ``secret`` (a ``SECRET_KEY``), derived as Django's
    ``salted_hmac`` derives its own: SHA-256 of a salt and the secret."""
    return hashlib.sha256(_SALT + secret.encode()).digest()


def _round(key: bytes, index: int, half: int) -> int:
    data = bytes((index,)) + half.to_bytes(4, "big")
    return int.from_bytes(hashlib.blake2b(data, key=key, digest_size=4).digest(), "big")


def _encrypt(value: int, key: bytes) -> int:
    left, right = value >> _HALF, value & _MASK
    for index in range(_ROUNDS):
        left, right = right, left ^ _round(key, index, right)
    return (left << _HALF) | right


def _decrypt(value: int, key: bytes) -> int:
    left, right = value >> _HALF, value & _MASK
    for index in reversed(range(_ROUNDS)):
        left, right = right ^ _round(key, index, left), left
    return (left << _HALF) | right


def public_id(pk: int) -> str:
    """The id clients see for the chat message with primary key ``pk`` (``0``, which names no message,
    gives the id of "no message": the chat version of a reader who has none).

    Args:
        pk: a ``ChatMessage`` primary key, or 0.

    Returns:
        16 lower-case hex digits, the same for the same ``pk`` while ``SECRET_KEY`` is the same.

    Raises:
        ValueError: ``pk`` is negative or not below :data:`LIMIT`.
    """
    if not 0 <= pk < LIMIT:
        raise ValueError(f"a chat message key out of range: {pk}")
    return f"{_encrypt(pk, _key(str(settings.SECRET_KEY))):016x}"


def message_pk(token: object) -> int | None:
    """The primary key a :func:`public_id` names (0: "no message"), or ``None`` for anything else: not a
    string of 16 lower-case hex digits, or one that no key of the site (``SECRET_KEY`` and its
    ``SECRET_KEY_FALLBACKS``) made. No query: whether the message exists, and whether the caller may read
    it, is the caller's check."""
    if not isinstance(token, str) or _TOKEN.fullmatch(token) is None:
        return None
    value = int(token, 16)
    for secret in (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ())):
        pk = _decrypt(value, _key(str(secret)))
        if pk < LIMIT:
            return pk
    return None
