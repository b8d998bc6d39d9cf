"""What each component is called and what it does, in the reader's language: the names of territory types,
artefacts and cards (from :mod:`games.engine.names`) and their ability texts, written from the content
set's structured data (trigger, ability, capacity, start-of-battle and conquest abilities, card kind,
value and effect) and its fixed numbers, so a content change changes the text (issue 15).

Every text says *when* as well as *what*: "When you attack (battle step 3): +1 to your combat score."
(Sceptre of Rage) and "When you defend …" (Sceptre of Loyalty) can no longer be mistaken for each other.
An ability this module does not know falls back to the content set's own English ``text``.

Used by the game page (:func:`localized_view` gives every card, artefact and territory of a view its name and
text), the log, emails and the rules reference (``/rules/``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Generic, TypeVar, overload

from django.utils import translation
from django.utils.functional import Promise

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise as StrPromise
else:
    StrPromise = Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import engine

#: The content set whose names the log and emails use when they are not given one (ids are shared by
#: every shipped set).
DEFAULT_CONTENT = "default"

#: When an artefact acts, by its ``trigger`` (content.md §1; R39, R64, R74, R91).
TRIGGERS: dict[str, Promise] = {
    "own_turn": gettext_lazy("Once in each of your turns, in a free window"),
    "attacking": gettext_lazy("When you attack (battle step 3, before conflict cards)"),
    "defending": gettext_lazy("When you defend (battle step 3, before conflict cards)"),
    "win": gettext_lazy("When you win a battle (battle step 7, after the result)"),
    "lose": gettext_lazy("When you lose a battle (battle step 7, after the result)"),
}

#: Rule of each artefact trigger, for links to the rules reference.
TRIGGER_RULES = {"own_turn": "R39", "attacking": "R64", "defending": "R64", "win": "R74", "lose": "R74"}


def language() -> str:
    """The active language's two-letter code (``"en"`` when none is active)."""
    return (translation.get_language() or "en")[:2]


@cache
def content_of(spec: str) -> engine.Content | None:
    """The content set ``spec`` (``"default"``, ``"abbey"``), or ``None`` when it does not load."""
    try:
        return engine.load_content(spec)
    except engine.ContentError:
        return None


def _content(content: engine.Content | None) -> engine.Content:
    found = content or content_of(DEFAULT_CONTENT)
    assert found is not None, "the default content set always loads"
    return found


def artefact_name(art_id: str | None, content: engine.Content | None = None) -> str:
    """The title of an artefact id in the active language: ``"crown_fury"`` -> "Crown of Fury", "Raseriets
    krona", "Korona Furii", "격분의 왕관"; ``""`` for ``None``."""
    if not art_id:
        return ""
    return engine.artefact_name(_content(content), art_id, language())


def territory_name(type_id: str, content: engine.Content | None = None) -> str:
    """The name of a territory type id in the active language: ``"mountains"`` -> "Mountains", "Berg",
    "Góry", "산지"."""
    return engine.territory_name(_content(content), type_id, language())


def card_name(card_id: str, content: engine.Content | None = None) -> str:
    """The name of a card by its content id (``"war_banner"``) in the active language."""
    return engine.card_name(_content(content), card_id, language())


def place_name(name: str, content: engine.Content | None = None) -> str:
    """A tile name as the engine's view gives it (the content's English name, e.g. "Mountains") in the
    active language; a name that is no territory type's (a castle's) is returned as it is."""
    found = _content(content)
    for type_id, tdef in found.territory_types.items():
        if tdef.name == name:
            return territory_name(type_id, found)
    return name


def card_name_of(english: str, content: engine.Content | None = None) -> str:
    """A card name as the engine's events give it (English, "War Banner") in the active language."""
    found = _content(content)
    card = next((c for c in found.cards if c.name == english), None)
    return card_name(card.id, found) if card is not None else english


# -- Ability texts ----------------------------------------------------------------------------------------


def _n(content: engine.Content, key: str, fallback: int = 1) -> int:
    value = content.numbers.get(key, fallback)
    return value if isinstance(value, int) else fallback


def _ability_effect(ability: str, content: engine.Content) -> str | None:
    """What an artefact ability does (content.md §1), or ``None`` for an ability not described here."""
    n = _n
    effects: dict[str, Callable[[], str]] = {
        "corruption": lambda: _("Destroy one face-up artefact of a player you choose (turn it face down)."),
        "fury": lambda: _("You may discard one card of your choice from your hand."),
        "insight": lambda: (
            ngettext(
                "Look at the top card of your deck and put it back.",
                "Look at the top %(n)s cards of your deck and put them back in any order (shuffle your "
                "discard pile under your deck first if it has fewer).",
                n(content, "insight_look", 4),
            )
            % {"n": n(content, "insight_look", 4)}
        ),
        "order": lambda: _(
            "Shuffle into your deck one card from your discard pile that was discarded on an earlier turn."
        ),
        "prosperity": lambda: _(
            "Look at the top card of a chosen player's deck; leave it on top or put it on their discard pile."
        ),
        "vitality": lambda: _("Redistribute your knights once more (no advance comes with it)."),
        "fear": lambda: _(
            "You may fight as if you had as many knights as your rival (for the combat score only)."
        ),
        "vigour": lambda: _(
            "You may fight as if you had as many knights as your rival (for the combat score only)."
        ),
        "influence": lambda: _("Your rival discards one card from their hand at random."),
        "defiance": lambda: _("Your rival discards one card from their hand at random."),
        "rage": lambda: _("+%(n)s to your combat score.") % {"n": n(content, "rage_bonus")},
        "loyalty": lambda: _("+%(n)s to your combat score.") % {"n": n(content, "loyalty_bonus")},
        "brutality": lambda: (
            ngettext(
                "Your rival loses %(n)s knight in the disputed territory, before the losses of the margin.",
                "Your rival loses %(n)s knights in the disputed territory, before the losses of the margin.",
                n(content, "brutality_losses"),
            )
            % {"n": n(content, "brutality_losses")}
        ),
        "greed": lambda: _draw_to(n(content, "greed_draw", 6)),
        "resurgence": lambda: _draw_to(n(content, "greed_draw", 6)),
        "preparation": lambda: _("You may discard one card of your choice from your hand."),
        "cleansing": lambda: _("You may discard one card of your choice from your hand."),
        "devotion": lambda: (
            ngettext(
                "Place %(n)s more knight in your castle.",
                "Place %(n)s more knights in your castle.",
                n(content, "devotion_knights"),
            )
            % {"n": n(content, "devotion_knights")}
        ),
    }
    make = effects.get(ability)
    return str(make()) if make is not None else None


def _draw_to(n: int) -> str:
    return ngettext("Draw until you hold %(n)s card.", "Draw until you hold %(n)s cards.", n) % {"n": n}


def artefact_text(art_id: str, content: engine.Content | None = None) -> dict[str, str]:
    """What an artefact does and when, in the active language.

    Returns:
        ``{"when": trigger phrase, "does": effect, "text": "When you …: …", "of_owner": the same said of
        its owner for any reader ("When its owner …: …", issue 29), "rule": rule number of the trigger}``;
        an unknown artefact id gives the id as ``text`` and ``of_owner`` and empty parts.
    """
    found = _content(content)
    adef = found.artefacts.get(art_id)
    if adef is None:
        return {"when": "", "does": "", "text": art_id, "of_owner": art_id, "rule": ""}
    when = str(TRIGGERS.get(adef.trigger, adef.trigger))
    does = _ability_effect(adef.ability, found)
    if does is None:
        does = str(
            next((a.get("text", "") for a in found.raw.get("artefacts", []) if a.get("id") == art_id), "")
        )
    text = _("%(when)s: %(does)s") % {"when": when, "does": does}
    owner_does = _owner_effect(adef.ability, found)
    return {
        "when": when,
        "does": does,
        "text": text,
        "of_owner": text
        if owner_does is None
        else _("%(when)s: %(does)s")
        % {"when": str(OWNER_TRIGGERS.get(adef.trigger, adef.trigger)), "does": owner_does},
        "rule": TRIGGER_RULES.get(adef.trigger, "R89"),
    }


#: When an artefact acts, said of its owner, for a reader who may not be the owner (issue 29: a response
#: window showed the attacker "When you defend" for the defender's Sceptre of Vigour).
OWNER_TRIGGERS: dict[str, Promise] = {
    "own_turn": gettext_lazy("Once in each of its owner's turns, in a free window"),
    "attacking": gettext_lazy("When its owner attacks (battle step 3, before conflict cards)"),
    "defending": gettext_lazy("When its owner defends (battle step 3, before conflict cards)"),
    "win": gettext_lazy("When its owner wins a battle (battle step 7, after the result)"),
    "lose": gettext_lazy("When its owner loses a battle (battle step 7, after the result)"),
}


def _owner_effect(ability: str, content: engine.Content) -> str | None:
    """What an artefact ability does, said of its owner (:func:`_ability_effect` says it to the owner), or
    ``None`` for an ability not described here."""
    n = _n
    discard = lambda: _("Its owner may discard one card of their choice from their hand.")  # noqa: E731
    as_many = lambda: _(  # noqa: E731
        "Its owner may fight as if they had as many knights as their rival (for the combat score only)."
    )
    random_discard = lambda: _("Its owner's rival discards one card from their hand at random.")  # noqa: E731
    draw = lambda: (  # noqa: E731
        ngettext(
            "Its owner draws until they hold %(n)s card.",
            "Its owner draws until they hold %(n)s cards.",
            n(content, "greed_draw", 6),
        )
        % {"n": n(content, "greed_draw", 6)}
    )
    effects: dict[str, Callable[[], str]] = {
        "corruption": lambda: _(
            "Its owner destroys one face-up artefact of a player they choose (turns it face down)."
        ),
        "fury": discard,
        "insight": lambda: (
            ngettext(
                "Its owner looks at the top card of their deck and puts it back.",
                "Its owner looks at the top %(n)s cards of their deck and puts them back in any order.",
                n(content, "insight_look", 4),
            )
            % {"n": n(content, "insight_look", 4)}
        ),
        "order": lambda: _(
            "Its owner shuffles into their deck one card from their discard pile that was discarded on an "
            "earlier turn."
        ),
        "prosperity": lambda: _(
            "Its owner looks at the top card of a chosen player's deck and leaves it on top or puts it on "
            "that player's discard pile."
        ),
        "vitality": lambda: _("Its owner redistributes their knights once more (no advance comes with it)."),
        "fear": as_many,
        "vigour": as_many,
        "influence": random_discard,
        "defiance": random_discard,
        "rage": lambda: _("+%(n)s to its owner's combat score.") % {"n": n(content, "rage_bonus")},
        "loyalty": lambda: _("+%(n)s to its owner's combat score.") % {"n": n(content, "loyalty_bonus")},
        "brutality": lambda: (
            ngettext(
                "Its owner's rival loses %(n)s knight in the disputed territory, before the losses of the "
                "margin.",
                "Its owner's rival loses %(n)s knights in the disputed territory, before the losses of the "
                "margin.",
                n(content, "brutality_losses"),
            )
            % {"n": n(content, "brutality_losses")}
        ),
        "greed": draw,
        "resurgence": draw,
        "preparation": discard,
        "cleansing": discard,
        "devotion": lambda: (
            ngettext(
                "Its owner places %(n)s more knight in their castle.",
                "Its owner places %(n)s more knights in their castle.",
                n(content, "devotion_knights"),
            )
            % {"n": n(content, "devotion_knights")}
        ),
    }
    make = effects.get(ability)
    return str(make()) if make is not None else None


def _start_of_battle(kind: str | None, content: engine.Content) -> str | None:
    """The sentence of a start-of-battle territory ability (R84, R85), ``None`` for none."""
    bonus = _n(content, "terrain_bonus")
    if kind == "attacker_bonus":
        return _("Start of a battle here: the attacker gets +%(n)s combat score.") % {"n": bonus}
    if kind == "defender_bonus":
        return _("Start of a battle here: the defender gets +%(n)s combat score.") % {"n": bonus}
    if kind == "arena":
        return _(
            "Start of a battle here: both players roll a die; the lower roll loses %(n)s knight here "
            "(both on a tie). The battle ends at once if either has no knight left here."
        ) % {"n": _n(content, "arena_losses")}
    return None


def _on_conquest(kind: str, content: engine.Content) -> str | None:
    """The sentence of a conquest territory ability (R86), ``None`` for an unknown one."""
    if kind == "place_knight":
        n = _n(content, "conquest_knights")
        return ngettext(
            "When conquered: the conqueror places %(n)s more knight in their castle.",
            "When conquered: the conqueror places %(n)s more knights in their castle.",
            n,
        ) % {"n": n}
    if kind == "lose_knight":
        n = _n(content, "marshlands_losses")
        return ngettext(
            "When conquered: the conqueror loses %(n)s knight here.",
            "When conquered: the conqueror loses %(n)s knights here.",
            n,
        ) % {"n": n}
    if kind == "may_discard":
        return _("When conquered: the conqueror may discard one card of their choice.")
    return None


def territory_text(type_id: str, content: engine.Content | None = None) -> list[str]:
    """The abilities of a territory type as sentences in the active language (R84–R88), from its data:
    capacity, start-of-battle ability, conquest abilities, Mountains' ban on support, Homelands' setup
    role; ``["No ability."]`` when it has none (``[]`` for an unknown type)."""
    found = _content(content)
    tdef = found.territory_types.get(type_id)
    if tdef is None:
        return []
    out: list[str | None] = []
    if tdef.homelands:
        out.append(
            _("At the start of the game, knights are shared between a castle and the Homelands next to it.")
        )
    if tdef.capacity != _n(found, "default_capacity", 6):
        out.append(
            ngettext(
                "Holds at most %(n)s knight of each player.",
                "Holds at most %(n)s knights of each player.",
                tdef.capacity,
            )
            % {"n": tdef.capacity}
        )
    out.append(_start_of_battle(tdef.start_of_battle, found))
    if tdef.no_support:
        out.append(_("No support cards may be played in a battle here."))
    out.extend(_on_conquest(kind, found) for kind in tdef.on_conquest)
    return [str(sentence) for sentence in out if sentence] or [_("No ability.")]


def card_text(card_id: str, content: engine.Content | None = None) -> str:
    """What a card does, in the active language, from its kind, value and effect (R3, R4, R32–R36)."""
    found = _content(content)
    cdef = next((c for c in found.cards if c.id == card_id), None)
    if cdef is None:
        return ""
    if cdef.kind == "conflict":
        if cdef.ambush:
            return _(
                "Conflict card, battle step 4: play it face down; when revealed, its value is one die roll."
            )
        return _("Conflict card, battle step 4: play it face down; adds %(n)s to your combat score.") % {
            "n": cdef.value
        }
    if cdef.kind == "support":
        return _(
            "Support card, battle step 5: adds +%(n)s to your combat score; you may play several. Not in "
            "Mountains."
        ) % {"n": cdef.value}
    effects = {
        "authority": lambda: (
            ngettext(
                "Played by itself as soon as you draw it: draw %(n)s more card.",
                "Played by itself as soon as you draw it: draw %(n)s more cards.",
                _n(found, "authority_draw", 2),
            )
            % {"n": _n(found, "authority_draw", 2)}
        ),
        "call_to_arms": lambda: (
            ngettext(
                "In a free window of your turn: place %(n)s knight in your castle.",
                "In a free window of your turn: place %(n)s knights in your castle.",
                _n(found, "call_to_arms_knights", 2),
            )
            % {"n": _n(found, "call_to_arms_knights", 2)}
        ),
        "tactical_advance": lambda: _(
            "In a free window of your turn: gain one more manoeuvre (a redistribution and an advance)."
        ),
        "fracture": lambda: _(
            "Destroy another player's face-up artefact, cancelling its use: in a free window of your turn, "
            "or when a crown is used or sceptres or orbs are about to apply."
        ),
    }
    make = effects.get(cdef.effect or "")
    return str(make()) if make is not None else ""


T = TypeVar("T")


class _Texts(Generic[T]):
    """Texts of one kind (a component's name, its ability sentences…) written by ``write(key, content)``
    once per process for each content set, language and component (the texts depend only on them)."""

    def __init__(self, write: Callable[[str, engine.Content], T]) -> None:
        self.write = write
        #: (id of the content set, language, component id) -> (content, value). The content set is kept in
        #: the value so its id is never reused while the entry lives.
        self.memo: dict[tuple[int, str, str], tuple[engine.Content, T]] = {}

    def __call__(self, content: engine.Content, key: str) -> T:
        """The text of component ``key`` of ``content`` in the active language."""
        memo_key = (id(content), language(), key)
        hit = self.memo.get(memo_key)
        if hit is None or hit[0] is not content:
            hit = (content, self.write(key, content))
            self.memo[memo_key] = hit
        return hit[1]


#: A territory type's name and ability sentences (joined).
_TERRITORY_TEXTS = _Texts(lambda k, c: (territory_name(k, c), " ".join(territory_text(k, c))))
#: An artefact's name.
_ARTEFACT_NAMES = _Texts(artefact_name)
#: What an artefact does and when (:func:`artefact_text`).
_ARTEFACT_TEXTS = _Texts(artefact_text)
#: A card's name and text.
_CARD_TEXTS = _Texts(lambda k, c: (card_name(k, c), card_text(k, c)))


def localized_view(view: engine.View, content: engine.Content | None) -> engine.View:
    """A copy of ``view`` whose components carry their names and texts in the active language: territories
    get ``name`` and ``text`` (their ability sentences joined), artefacts ``name``, ``text``, ``when`` and
    ``does``, and every card anywhere in the view (hands, discard piles, the battle, prompts) ``name`` and
    ``text``. The copy stays the viewer's own: nothing is added that the view did not already show.

    ``view`` itself is not changed (the game page's context keeps the engine's view as it was); every dict
    and list of the copy is new, so a presenter may change the copy freely. One walk of the view both copies
    and names the cards (it replaced ``copy.deepcopy`` and an in-place pass: docs/performance.md, session 9).

    Args:
        view: a view from :func:`games.engine.view_for` (JSON-safe: dicts, lists and scalars).
        content: the game's content set (``None``: the default).

    Returns:
        The named copy.
    """
    found = _content(content)
    named: engine.View = _named_copy(view, found)
    for tile in named["map"]:
        if tile["kind"] == "territory" and "tile" in tile:
            type_id = tile["tile"]
            tile["name"], tile["text"] = _TERRITORY_TEXTS(found, type_id)  # type: ignore[typeddict-unknown-key]
    for player in named["players"]:
        for art in player["artefacts"]:
            art_id = art["id"]
            art["name"] = _ARTEFACT_NAMES(found, art_id)
            # the page's copy carries the texts beyond engine.ArtefactView's keys ("text", "when", "does",
            # "of_owner", "rule"), as the territories' "text" above: the view type has no key for them
            art.update(_ARTEFACT_TEXTS(found, art_id))  # type: ignore[typeddict-item]
    return named


@overload
def _named_copy(node: engine.View, content: engine.Content) -> engine.View: ...
@overload
def _named_copy(node: object, content: engine.Content) -> object: ...
def _named_copy(node: object, content: engine.Content) -> object:
    """``node`` with every dict and list copied and every card dict (one with ``card`` and ``kind``) given
    its ``name`` and ``text``; scalars are shared (they are immutable)."""
    if isinstance(node, dict):
        copied: dict[object, object] = {key: _named_copy(value, content) for key, value in node.items()}
        card = copied.get("card")
        if isinstance(card, str) and copied.get("kind") in ("conflict", "support", "resource"):
            copied["name"], copied["text"] = _CARD_TEXTS(content, card)
        return copied
    if isinstance(node, list):
        items: list[object] = [_named_copy(item, content) for item in node]
        return items
    return node


#: The names of the five optional rules (content.md §5.7).
OPTION_NAMES: dict[str, Promise] = {
    "allegiance": gettext_lazy("Allegiance"),
    "castle_siege": gettext_lazy("Castle Siege"),
    "cut_throat": gettext_lazy("Cut-throat"),
    "skirmish": gettext_lazy("Skirmish"),
    "mayhem": gettext_lazy("Mayhem"),
}

#: The five optional rules (R105–R120): what each changes, for the rules reference, the new-game form and
#: the lobby.
OPTION_TEXTS: dict[str, StrPromise] = {
    "allegiance": gettext_lazy(
        "Teams of two or three (4 or 6 players). Teammates may support each other in battle but never attack "
        "each other; a team of two wins with 20 VP together, a team of three with 30. Supply never runs "
        "through a teammate's territory."
    ),
    "castle_siege": gettext_lazy(
        "Castles may be attacked like territories (at most 6 knights advance into one). The defender always "
        "counts 8 knights; an attacker who conquers a castle wins the game at once."
    ),
    "cut_throat": gettext_lazy(
        "A territory that loses its line of supply loses all its knights at once: they go back to the "
        "reserve, not to the castle, and the territory becomes uncontrolled."
    ),
    "skirmish": gettext_lazy("A shorter game: 11 VP wins instead of 13, and Homelands score 0 VP."),
    "mayhem": gettext_lazy(
        "Every castle starts with 6 more knights. After each battle result the winner rolls a die for each "
        "of their knights in the territory and loses one per 1 rolled; losing them all turns the result "
        "round."
    ),
}

#: Each optional rule's first rule number, for links to the rules reference.
OPTION_RULES = {
    "allegiance": "R105",
    "castle_siege": "R112",
    "cut_throat": "R116",
    "skirmish": "R117",
    "mayhem": "R118",
}


def optional_rules_on(options: Mapping[str, object]) -> list[tuple[str, str]]:
    """The optional rules a table plays, in the rulebook's order (:data:`games.engine.OPTIONAL_RULES`, their
    one list): ``(name, what it changes)``, translated; Allegiance is named by its team size and Skirmish
    by its target (R105, R117). Empty: the basic rules.

    Args:
        options: a table's options (``Game.options`` or a setup's), keyed as the engine's.
    """
    out: list[tuple[str, str]] = []
    for key in engine.OPTIONAL_RULES:
        value = options.get(key)
        if not value:
            continue
        name: Promise | str = OPTION_NAMES[key]
        if key == "allegiance":
            name = _("Allegiance: teams of three") if value == "triples" else _("Allegiance: teams of two")
        elif key == "skirmish":
            name = _("Skirmish (11 VP)")
        out.append((str(name), str(OPTION_TEXTS[key])))
    return out


def optional_rule_choices() -> list[tuple[str, str]]:
    """``(option key, translated name)`` of every optional rule, in the rulebook's order (the archive's
    filter)."""
    return [(key, str(OPTION_NAMES[key])) for key in engine.OPTIONAL_RULES]


#: The eight compass directions, as sentences use them ("Forest (north-west)") and as the map's short
#: labels do ("Forest NW"), anticlockwise from east.
_DIRECTIONS = (
    (gettext_lazy("east"), gettext_lazy("E")),
    (gettext_lazy("north-east"), gettext_lazy("NE")),
    (gettext_lazy("north"), gettext_lazy("N")),
    (gettext_lazy("north-west"), gettext_lazy("NW")),
    (gettext_lazy("west"), gettext_lazy("W")),
    (gettext_lazy("south-west"), gettext_lazy("SW")),
    (gettext_lazy("south"), gettext_lazy("S")),
    (gettext_lazy("south-east"), gettext_lazy("SE")),
)


#: What a lake is called on the map and in sentences (R11: it cannot be entered).
_LAKE = gettext_lazy("Lake")


def _direction(x: float, y: float) -> int:
    """The compass sector (index of :data:`_DIRECTIONS`) of the offset ``x``, ``y`` (SVG: y grows down)."""
    angle = math.degrees(math.atan2(-y, x)) % 360
    return int(((angle + 22.5) % 360) // 45)


def place_labels(
    view: engine.View, *, lakes: bool = False, name_of: Callable[[str], str] = str
) -> dict[str, tuple[str, str]]:
    """How pages name every territory of the map (issue 16): ``pos id -> (label, short)``. A name that is
    unique on the map is both ("Fort"); a repeated one says where the tile lies from the map's centre,
    "Forest (north-west)" in forms and sentences and "Forest NW" on the map (with a number when two share
    a direction). Never the internal id. With ``lakes``, the lakes too, named "Lake" the same way ("Lake
    (south)" when there are several; issue 29). ``name_of`` puts a tile's name as the view gives it in the
    reader's words: :func:`place_name` for an engine view's English names (the log), ``str`` for a view
    :func:`localized_view` has already named (the pages).
    """
    kinds = ("territory", "lake") if lakes else ("territory",)
    lake = str(_LAKE)
    tiles: list[engine.TileView] = [
        t if t["kind"] == "territory" else engine.TileView(**{**t, "name": lake})
        for t in view["map"]
        if t["kind"] in kinds
    ]
    centres = {t["id"]: (math.sqrt(3) * (t["q"] + t["r"] / 2), 1.5 * t["r"]) for t in view["map"]}
    cx = sum(x for x, _y in centres.values()) / max(1, len(centres))
    cy = sum(y for _x, y in centres.values()) / max(1, len(centres))
    by_name: dict[str, list[engine.TileView]] = defaultdict(list)
    for tile in tiles:
        by_name[name_of(str(tile.get("name", tile["id"])))].append(tile)
    out: dict[str, tuple[str, str]] = {}
    for name, same in by_name.items():
        if len(same) == 1:
            out[same[0]["id"]] = (name, name)
            continue
        sectors = {t["id"]: _direction(centres[t["id"]][0] - cx, centres[t["id"]][1] - cy) for t in same}
        for tile in same:
            sector = sectors[tile["id"]]
            long, short = (str(w) for w in _DIRECTIONS[sector])
            twins = [t["id"] for t in same if sectors[t["id"]] == sector]
            if len(twins) > 1:
                n = twins.index(tile["id"]) + 1
                long, short = f"{long} {n}", f"{short}{n}"
            out[tile["id"]] = (f"{name} ({long})", f"{name} {short}")
    return out
