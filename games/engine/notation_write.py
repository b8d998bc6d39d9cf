"""The writing side of the move notation (:mod:`games.engine.notation`): :func:`to_text` and its writers of
each action, the names the notation writes for places, cards and artefacts (:func:`place_names`), and the
legal moves written out (:func:`legal_forms`, :func:`move_menu`). Also the helpers the reading side
(:mod:`.notation_read`) shares: the checked language, a verb's written word, a seat's hand and an
ability's word."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from . import actions as A
from .errors import InvalidActionPayload, InvalidSeat
from .names import ABILITY_NAMES, artefact_name, card_name, territory_name
from .notation_terms import ABILITY_WORDS, CASTLE, KNIGHT_RANGE, LANGS, REDISTRIBUTE_FORM, VERBS
from .prompts import legal_actions
from .rules.crowns import crown_of, order_candidates
from .state import GameState

__all__ = [
    "ability_word",
    "checked_lang",
    "hand_cards",
    "legal_forms",
    "move_menu",
    "place_names",
    "to_text",
    "verb_word",
]


def checked_lang(lang: str) -> str:
    """``lang`` when it is a language of the notation (:data:`.notation_terms.LANGS`).

    Raises:
        InvalidActionPayload: an unknown ``lang``.
    """
    if lang not in LANGS:
        raise InvalidActionPayload(f"unknown notation language {lang!r} (expected one of {', '.join(LANGS)})")
    return lang


def verb_word(name: str, lang: str) -> str:
    """The word :func:`to_text` writes for the verb ``name`` (a key of :data:`.notation_terms.VERBS`) in
    ``lang``."""
    return VERBS[name][lang][0]


# -- Names of places, cards and artefacts ---------------------------------------------------------------


def _place_name(state: GameState, pos: int, lang: str) -> str:
    board = state.board
    kind = board.kinds[pos]
    if kind == "castle":
        owner = board.castle_of_seat.index(pos)
        return f"{CASTLE[lang]} p{owner}"
    if kind != "territory" or not state.tiles[pos]:
        return board.pos_id(pos)
    tile = state.tiles[pos]
    name = territory_name(state.content, tile, lang)
    same = [p for p in range(board.size) if board.kinds[p] == "territory" and state.tiles[p] == tile]
    return name if len(same) == 1 else f"{name} #{same.index(pos) + 1}"


def place_names(state: GameState, lang: str = "en") -> dict[str, str]:
    """The name the notation writes for each territory of the map, by position id (``{"t3": "Forest",
    "t9": "Grasslands #2"}``), in ``lang``: what an email's map key shows beside each hex (issue 30)."""
    lang = checked_lang(lang)
    board = state.board
    return {
        board.pos_id(p): _place_name(state, p, lang)
        for p in range(board.size)
        if board.kinds[p] == "territory" and state.tiles[p]
    }


def _location_text(state: GameState, seat: int, location: str, lang: str) -> str:
    if location == "castle":
        return CASTLE[lang]
    pos = state.board.parse_pos(location)
    if pos is None:
        return location
    if state.board.kinds[pos] == "castle" and state.board.castle_of_seat[seat] == pos:
        return CASTLE[lang]
    return _place_name(state, pos, lang)


def _card_name(state: GameState, index: int, lang: str) -> str:
    return card_name(state.content, state.content.cards[index].id, lang)


def _cards_text(state: GameState, pool: Sequence[int], seat: int, ids: Iterable[str], lang: str) -> list[str]:
    """Names of the cards ``ids`` (``seat``'s), each as the first copy not named yet, or ``Name n``."""
    out: list[str] = []
    used: list[int] = []
    for cid in ids:
        parsed = A.parse_card_id(cid)
        index = parsed[1] if parsed is not None and parsed[0] == seat else None
        if index is None or index not in pool:
            out.append(cid)
            continue
        name = state.content.cards[index].name
        copies = [c for c in sorted(pool) if state.content.cards[c].name == name]
        first_unused = next(c for c in copies if c not in used)
        text = _card_name(state, index, lang)
        out.append(text if index == first_unused else f"{text} {copies.index(index) + 1}")
        used.append(index)
    return out


def _artefact_text(state: GameState, art_id: str, lang: str) -> str:
    return artefact_name(state.content, art_id, lang)


def ability_word(ability: str, lang: str) -> str:
    """The word of an artefact ability in ``lang`` (the crown move's word): the English id, the Swedish or
    Polish noun (issue 30), the Korean word; the English id when unknown."""
    if lang == "ko":
        return ABILITY_NAMES.get(ability, {}).get("ko", ability)
    return ABILITY_WORDS.get(ability, {}).get(lang, ability)


# -- Writing --------------------------------------------------------------------------------------------


def to_text(state: GameState, action: A.Action, lang: str = "en") -> str:
    """The notation of ``action`` (by ``seat`` implied by the state's decision) in ``lang``.

    Args:
        state: the state the action is taken in (names depend on the map and the hand).
        action: any engine action.
        lang: ``en``, ``sv``, ``pl`` or ``ko`` (the words written; any of them is read back).

    Returns:
        E.g. ``"advance Forest 4"``; :func:`parse_text` reads it back to ``action``.

    Raises:
        InvalidActionPayload: an unknown ``lang``, or ``action`` is no engine action.
        InvalidSeat: a card id of ``action`` names a seat outside the game.
    """
    lang = checked_lang(lang)
    writer = _WRITERS.get(type(action))
    if writer is None:
        raise InvalidActionPayload(f"not an engine action: {type(action).__name__}")
    seat = _actor(state, action)
    if not 0 <= seat < len(state.players):
        raise InvalidSeat(seat, len(state.players))
    return writer(state, seat, action, lang)


def _actor(state: GameState, action: A.Action) -> int:
    """The seat that would take ``action``: the card ids' seat, else who decides now."""
    for cid in _card_ids(action):
        parsed = A.parse_card_id(cid)
        if parsed is not None:
            return parsed[0]
    if state.choice is not None:
        return state.choice.seat
    return state.active


def _card_ids(action: A.Action) -> tuple[str, ...]:
    if isinstance(action, A.ChooseConflict):
        return (action.card,)
    if isinstance(action, A.PlaySupport):
        return action.cards
    if isinstance(action, A.InsightOrder):
        return action.order
    if isinstance(action, A.DiscardChoice) and action.card:
        return (action.card,)
    if isinstance(action, A.UseCrown) and action.card:
        return (action.card,)
    return ()


def hand_cards(state: GameState, seat: int, kind: str | None = None) -> list[int]:
    """The card indices in ``seat``'s hand, only those of ``kind`` (``conflict``, ``support``) if given."""
    return [c for c in state.players[seat].hand if kind is None or state.content.cards[c].kind == kind]


def _w_crown(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.UseCrown)
    crown = crown_of(state, seat)
    parts = [verb_word("crown", lang)]
    if crown is not None:
        ability = state.content.artefacts[crown.id].ability
        parts.append(ability_word(ability, lang))
    if action.player is not None:
        parts.append(f"p{action.player}")
    if action.artefact is not None:
        parts.append(_artefact_text(state, action.artefact, lang))
    if action.card is not None:
        parts += _cards_text(state, order_candidates(state, seat), seat, [action.card], lang)
    return " ".join(parts)


def _w_redistribute(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.Redistribute)
    moves = [
        f"{_location_text(state, seat, m.src, lang)}>{_location_text(state, seat, m.dst, lang)} {m.knights}"
        for m in action.moves
    ]
    return f"{verb_word('redistribute', lang)} {', '.join(moves)}"


def _w_advance(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.Advance)
    return f"{verb_word('advance', lang)} {_location_text(state, seat, action.to, lang)} {action.knights}"


def _w_respond(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.Respond)
    if not action.fracture:
        return verb_word("pass", lang)
    names = ", ".join(_artefact_text(state, t, lang) for t in action.fracture)
    return f"{verb_word('fracture', lang)} {names}"


def _w_fracture(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.Fracture)
    return f"{verb_word('fracture', lang)} {_artefact_text(state, action.target, lang)}"


def _w_conflict(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.ChooseConflict)
    (name,) = _cards_text(state, hand_cards(state, seat, "conflict"), seat, [action.card], lang)
    return f"{verb_word('conflict', lang)} {name}"


def _w_support(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.PlaySupport)
    names = _cards_text(state, hand_cards(state, seat, "support"), seat, action.cards, lang)
    return f"{verb_word('support', lang)} {', '.join(names)}"


def _w_discard(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.DiscardChoice)
    if action.card is None:
        return verb_word("keep", lang)
    (name,) = _cards_text(state, hand_cards(state, seat), seat, [action.card], lang)
    return f"{verb_word('discard', lang)} {name}"


def _w_order(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.InsightOrder)
    pool = state.choice.cards if state.choice is not None else []
    return f"{verb_word('order', lang)} {', '.join(_cards_text(state, pool, seat, action.order, lang))}"


def _w_prosperity(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.ProsperityChoice)
    return verb_word("discard" if action.discard else "keep", lang)


def _w_fear(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.FearChoice)
    return verb_word("use" if action.use else "decline", lang)


def _plain(verb: str) -> Callable[[GameState, int, A.Action, str], str]:
    return lambda _state, _seat, _action, lang: verb_word(verb, lang)


_WRITERS: dict[type[A.Action], Callable[[GameState, int, A.Action, str], str]] = {
    A.EndTurn: _plain("end"),
    A.CallToArms: _plain("call_to_arms"),
    A.TacticalAdvance: _plain("tactical_advance"),
    A.Fracture: _w_fracture,
    A.UseCrown: _w_crown,
    A.Redistribute: _w_redistribute,
    A.Advance: _w_advance,
    A.DeclineAdvance: _plain("decline"),
    A.FinishRedistribution: _plain("finish"),
    A.Respond: _w_respond,
    A.ChooseConflict: _w_conflict,
    A.PlaySupport: _w_support,
    A.PassSupport: _plain("pass"),
    A.DiscardChoice: _w_discard,
    A.InsightOrder: _w_order,
    A.ProsperityChoice: _w_prosperity,
    A.FearChoice: _w_fear,
}


# -- Legal forms ----------------------------------------------------------------------------------------


def _menu(state: GameState, seat: int, lang: str) -> tuple[list[str], dict[str, list[int]], list[str]]:
    """The seat's legal actions in three heaps: single moves as text, advances (target -> knight counts)
    and redistributions as text."""
    moves: list[str] = []
    advances: dict[str, list[int]] = {}
    redistributes: list[str] = []
    for action in legal_actions(state, seat):
        if isinstance(action, A.Advance):
            advances.setdefault(action.to, []).append(action.knights)
        elif isinstance(action, A.Redistribute):
            redistributes.append(to_text(state, action, lang))
        else:
            moves.append(to_text(state, action, lang))
    return moves, advances, redistributes


def _redistribute_form(redistributes: list[str], lang: str) -> list[str]:
    if not redistributes:
        return []
    example = redistributes[0].split(" ", 1)[1]
    return [f"{verb_word('redistribute', lang)} {REDISTRIBUTE_FORM[lang].format(example=example)}"]


def move_menu(state: GameState, seat: int, lang: str = "en") -> tuple[list[str], list[str]]:
    """The legal moves of ``seat`` now as a decision email lists them (issue 18): ``(moves, forms)``.
    ``moves`` are single actions in the notation, to be numbered; ``forms`` sum up the large families: one
    advance per target written with its largest knight count and the range (``advance Forest 4   (1-4
    knights)``), and redistributions as a form with an example.

    Returns:
        Two lists of lines in ``lang``; both empty when the seat has no decision.
    """
    lang = checked_lang(lang)
    moves, advances, redistributes = _menu(state, seat, lang)
    forms = []
    for to, counts in advances.items():
        low, high = min(counts), max(counts)
        place = _location_text(state, seat, to, lang)
        span = "   " + KNIGHT_RANGE[lang].format(low=low, high=high) if low != high else ""
        forms.append(f"{verb_word('advance', lang)} {place} {high}{span}")
    return moves, forms + _redistribute_form(redistributes, lang)


def legal_forms(state: GameState, seat: int, lang: str = "en") -> list[str]:
    """The legal moves of ``seat`` now, in the notation: one line per action, except that advances are
    summed up per target (``advance Forest 1-4``) and redistributions as a form with an example.

    Returns:
        Lines in ``lang``; empty when the seat has no decision.
    """
    lang = checked_lang(lang)
    out, advances, redistributes = _menu(state, seat, lang)
    for to, counts in advances.items():
        low, high = min(counts), max(counts)
        knights = str(low) if low == high else f"{low}-{high}"
        out.append(f"{verb_word('advance', lang)} {_location_text(state, seat, to, lang)} {knights}")
    return out + _redistribute_form(redistributes, lang)
