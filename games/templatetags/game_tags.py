"""Small template filters for the game pages (``{% load game_tags %}``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Protocol, SupportsIndex, SupportsInt, runtime_checkable

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games.components import DEFAULT_CONTENT, OPTION_NAMES, content_of
from games.engine import ActionType, CardKind
from games.rulebook import SECTIONS, link_rules
from games.selectors import LogEntry

register = template.Library()


@register.simple_tag
def content_numbers(spec: object = DEFAULT_CONTENT) -> dict[str, object]:
    """``{% content_numbers page.view.content.id as nums %}``: the fixed numbers of content set ``spec``
    (``nums.dice_per_player`` = 10 dice, ``nums.default_capacity`` = 6 knights, …, content.md §1) plus
    ``deck_size`` (cards in each deck), so the page's sentences follow the content data (issue 15). An
    unknown set gives the default set's numbers."""
    content = content_of(str(spec or DEFAULT_CONTENT)) or content_of(DEFAULT_CONTENT)
    if content is None:  # the shipped default set always loads; nothing to show otherwise
        return {}
    return {**content.numbers, "deck_size": len(content.cards)}


@runtime_checkable
class _Indexable(Protocol):
    """Anything a template indexes: a dict, a list or another object with ``__getitem__``."""

    def __getitem__(self, key: object, /) -> object:
        """The item at ``key`` (``KeyError``, ``IndexError`` or ``TypeError`` when there is none)."""
        ...


@register.filter
def get(mapping: object, key: object) -> object:
    """``{{ mapping|get:key }}``: a dict item or list index, ``None`` when missing."""
    if not isinstance(mapping, _Indexable):  # indexing it would raise TypeError: nothing to get
        return None
    try:
        return mapping[key]
    except (KeyError, IndexError, TypeError):
        if isinstance(key, str) and key.isdigit():
            try:
                return mapping[int(key)]
            except (KeyError, IndexError, TypeError):
                return None
        return None


@runtime_checkable
class _TalkMixer(Protocol):
    """The page's chat panel as :func:`with_talk` uses it (``games.web.presenters.chat.ChatPanel``)."""

    def mixed_log(self, log: list[LogEntry], /) -> list[object]:
        """``log`` (newest first) with the table talk interleaved, or ``log`` itself."""
        ...


@register.filter
def with_talk(log: list[LogEntry], chat: object) -> list[object] | list[LogEntry]:
    """``{{ page.log|with_talk:chat }}``: the game log with the table talk interleaved when the reader
    asked for it (``ChatPanel.mixed_log``, issue 19), else the log itself.

    Raises:
        TypeError: a ``chat`` that is not the page's chat panel (nothing to interleave the log with).
    """
    if not chat:
        return log
    if not isinstance(chat, _TalkMixer):
        raise TypeError(f"with_talk needs the page's chat panel, not {type(chat).__name__}")
    return chat.mixed_log(log)


@register.filter
def card_value(card: Mapping[str, object] | None) -> str:
    """A card's value as printed: ``+2`` for support, ``d6`` for Ambush, ``4`` for conflict, ``""`` else."""
    if not card:
        return ""
    value = card.get("value")
    if value is None:
        return ""
    if card.get("kind") == CardKind.SUPPORT:
        return f"+{value}"
    return str(value)


@register.filter
def signed(value: object) -> str:
    """``3`` -> ``+3``, ``-1`` -> ``−1`` (combat score parts)."""
    if not isinstance(value, str | bytes | bytearray | SupportsInt | SupportsIndex):
        return str(value)  # not a number: ``int`` would raise TypeError
    try:
        number = int(value)
    except (TypeError, ValueError):
        return str(value)
    return f"+{number}" if number >= 0 else f"−{-number}"


@register.filter
def pip_x(index: int, count: int) -> float:
    """Horizontal offset of VP pip ``index`` of ``count`` pips centred on 0 (8 units apart)."""
    return (int(index) - (int(count) - 1) / 2) * 8


@register.filter
def action_type(name: str) -> str:
    """The engine action type named ``name`` (an :class:`~games.engine.ActionType` member name), so a
    decision form posts ``value="{{ "END_TURN"|action_type }}"`` instead of spelling the type.

    Raises:
        KeyError: no such member: a misspelt name fails the page instead of posting an unknown action.
    """
    return ActionType[name].value


@register.filter
def option_name(key: str) -> str:
    """The name of an optional rule by its option key: ``"castle_siege"`` -> "Castle Siege" (translated)."""
    return str(OPTION_NAMES.get(key, key))


@register.filter
def rule_links(text: object) -> SafeString:
    """``{{ error|rule_links }}``: the text escaped, with each rule number it cites ("— R46") linked to its
    section of the rules reference (``/rules/#redistribution``, issue 15)."""
    url = reverse("games:rules")
    return format_html_join(
        "",
        "{}",
        (
            (format_html('<a href="{}#{}">{}</a>', url, anchor, part) if anchor else part,)
            for part, anchor in link_rules(str(text))
        ),
    )


@register.filter
def json_attr(value: object) -> str:
    """``data-x="{{ value|json_attr }}"``: ``value`` as compact JSON (autoescaping makes it safe there)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


@register.simple_tag
def rule_ids(anchor: str) -> SafeString:
    """``{% rule_ids "advance" %}``: an empty element per rule the section explains (``id="R52"`` …), so
    ``/rules/#R53`` opens that rule's section as ``/rules/#advance`` does."""
    section = next(s for s in SECTIONS if s.anchor == anchor)
    return format_html_join(
        "", '<span id="R{}" class="rule-id"></span>', ((n,) for n in range(section.first, section.last + 1))
    )
