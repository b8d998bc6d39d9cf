"""The move notation: a short text form of every action, in English, Swedish, Polish or Korean (issue 14).

Like chess's SAN it names things as players do: ``advance Forest 4``, ``redistribute castle>Fort 2,
Fort>Ruins 1``, ``crown vitality``, ``fracture Orb of Brutality``, ``conflict Heroic Assault``,
``support +2``, ``pass``, ``end``. :func:`to_text` writes an action, :func:`parse_text` reads one back:
``parse_text(state, seat, to_text(state, a, lang), lang) == a`` for every legal action ``a``. Reading is
case-insensitive, tolerates extra spaces, and accepts the rulebook's terms of all four editions whatever
``lang`` is (``content.md`` §5); ``lang`` chooses the words :func:`to_text` writes. ``docs/notation.md`` is
the reference.

Names:

- a territory by its tile name when that is unique on the map (``Forest``), else by the name and its rank
  in position order (``Forest 2``), or by its id (``t12``); the player's own castle is ``castle``, a rival's
  ``castle p2`` (Castle Siege);
- a card by its name, the n-th copy among the cards it could be as ``Name n`` (``Shield Wall 2``), by its
  value (``5``, ``+2``: the first such card not yet named) or by its id (``s0c07``);
- an artefact by its name (``Orb of Brutality``), its ability (``brutality``) or its id;
- a player by seat, ``p0`` … ``p5``.

The notation only reads and writes actions; whether one is legal is for :func:`games.engine.apply` to say.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from . import actions as A
from .errors import InvalidActionPayload
from .kinds import PromptKind
from .names import (
    ABILITY_NAMES,
    ARTEFACT_TYPES,
    artefact_name,
    artefact_spellings,
    card_name,
    card_spellings,
    territory_name,
)
from .names import territory_spellings as _spellings
from .notation_terms import CASTLE, LANGS, VERBS
from .prompts import legal_actions
from .rules.crowns import crown_of, order_candidates
from .state import GameState

__all__ = ["LANGS", "NotationError", "legal_forms", "parse_text", "to_text"]

#: Every spelling of every verb, longest first (so "tactical advance" wins over "advance").
_SPELLINGS = sorted(
    ((spelling, verb) for verb, langs in VERBS.items() for names in langs.values() for spelling in names),
    key=lambda pair: -len(pair[0]),
)
_SPACES = re.compile(r"\s+")
_PLAYER = re.compile(r"(?:p|seat\s*)?([0-9])")
_MOVE = re.compile(r"(.+?)\s*(?:->|>|→)\s*(.+?)\s+([0-9]{1,3})")


class NotationError(InvalidActionPayload):
    """A text that is not an action in the notation. ``expected`` says what was expected; ``legal`` lists
    the legal forms at that point (:func:`legal_forms`), so a reply can show them."""

    def __init__(self, message: str, expected: str, legal: Sequence[str] = ()) -> None:
        super().__init__(message, field="text")
        self.expected = expected
        self.legal = list(legal)


def _norm(text: str) -> str:
    return _SPACES.sub(" ", text.casefold()).strip().rstrip(".").strip()


def _lang(lang: str) -> str:
    if lang not in LANGS:
        raise InvalidActionPayload(f"unknown notation language {lang!r} (expected one of {', '.join(LANGS)})")
    return lang


def _verb(name: str, lang: str) -> str:
    return VERBS[name][lang][0]


# -- Names of places, cards and artefacts ---------------------------------------------------------------


def _tile_names(state: GameState, pos: int) -> set[str]:
    return _spellings(state.content, state.tiles[pos])


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
    return name if len(same) == 1 else f"{name} {same.index(pos) + 1}"


def _location_text(state: GameState, seat: int, location: str, lang: str) -> str:
    if location == "castle":
        return CASTLE[lang]
    pos = state.board.parse_pos(location)
    if pos is None:
        return location
    if state.board.kinds[pos] == "castle" and state.board.castle_of_seat[seat] == pos:
        return CASTLE[lang]
    return _place_name(state, pos, lang)


def _read_location(state: GameState, seat: int, text: str, *, own_castle: str) -> str:
    """A location id from a name: ``own_castle`` for "castle" (``"castle"`` or the castle's position id)."""
    t = _norm(text)
    if t in {_norm(c) for c in CASTLE.values()}:
        return own_castle
    board = state.board
    if A.LOCATION_ID.fullmatch(t) and t != "castle":
        return t
    for word in CASTLE.values():
        if t.startswith(word + " "):
            m = _PLAYER.fullmatch(t[len(word) + 1 :])
            if m and int(m.group(1)) < state.num_players:
                return board.pos_id(board.castle_of_seat[int(m.group(1))])
    rank = 1
    m = re.fullmatch(r"(.+?) ([0-9]{1,2})", t)
    base = t
    if m and not _matches_tile(state, t):
        base, rank = m.group(1), int(m.group(2))
    found = [
        p
        for p in range(board.size)
        if board.kinds[p] == "territory"
        and state.tiles[p]
        and base in {_norm(n) for n in _tile_names(state, p)}
    ]
    if not found:
        raise NotationError(
            f"no place called {text!r} on this map", "a territory name, an id such as t12, or castle"
        )
    if not 1 <= rank <= len(found):
        raise NotationError(
            f"there are only {len(found)} called {base!r}", f"{base} 1 to {base} {len(found)}"
        )
    if len(found) > 1 and not m:
        raise NotationError(
            f"{text!r} is not unique on this map", f"{text} 1 to {text} {len(found)}, or a territory id"
        )
    return board.pos_id(found[rank - 1])


def _matches_tile(state: GameState, t: str) -> bool:
    return any(
        t in {_norm(n) for n in _tile_names(state, p)}
        for p in range(state.board.size)
        if state.board.kinds[p] == "territory" and state.tiles[p]
    )


def _card_names(state: GameState, index: int) -> set[str]:
    return {_norm(n) for n in card_spellings(state.content, state.content.cards[index].id)}


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


def _read_cards(state: GameState, pool: Sequence[int], seat: int, items: Iterable[str]) -> tuple[str, ...]:
    """Card ids from names, ``Name n``, values or ids, each resolved among ``pool`` (first copy not named
    yet unless ``n`` is given)."""
    out: list[str] = []
    used: list[int] = []
    for item in items:
        t = _norm(item)
        if A.CARD_ID.fullmatch(t):
            out.append(t)
            continue
        value = re.fullmatch(r"\+?([0-9])", t)
        candidates: list[int]
        rank = 0
        if value:
            candidates = [c for c in sorted(pool) if state.content.cards[c].value == int(value.group(1))]
        else:
            m = re.fullmatch(r"(.+?) ([0-9])", t)
            base = t
            if m and not any(t in _card_names(state, c) for c in pool):
                base, rank = m.group(1), int(m.group(2))
            candidates = [c for c in sorted(pool) if base in _card_names(state, c)]
        if rank:
            if not 1 <= rank <= len(candidates):
                raise NotationError(f"no copy {rank} of {item!r} here", "a card you can play now")
            chosen = candidates[rank - 1]
        else:
            chosen = next((c for c in candidates if c not in used), -1)
        if chosen < 0:
            raise NotationError(f"no card {item!r} to play here", "a card you can play now, by name or value")
        used.append(chosen)
        out.append(A.card_id(seat, chosen))
    return tuple(out)


def _artefact_text(state: GameState, art_id: str, lang: str) -> str:
    return artefact_name(state.content, art_id, lang)


def _ko_ability(ability: str) -> str:
    """The Korean word of an artefact ability (the notation's crown word), the English id when unknown."""
    return ABILITY_NAMES.get(ability, {}).get("ko", ability)


def _read_artefact(state: GameState, text: str) -> str:
    t = _norm(text)
    for art_id, adef in state.content.artefacts.items():
        names = {
            art_id,
            adef.ability,
            _ko_ability(adef.ability),
            f"{_norm(ARTEFACT_TYPES.get(adef.type, {}).get('pl', adef.type))} '{adef.ability}'",
            *(_norm(n) for n in artefact_spellings(state.content, art_id)),
        }
        if t in names:
            return art_id
    raise NotationError(
        f"no artefact called {text!r}", "an artefact's name (Orb of Brutality) or ability (brutality)"
    )


def _split(rest: str) -> list[str]:
    return [part.strip() for part in re.split(r"[,;]", rest) if part.strip()]


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
        InvalidActionPayload: an unknown ``lang``.
    """
    lang = _lang(lang)
    seat = _actor(state, action)
    return _WRITERS[type(action)](state, seat, action, lang)


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


def _hand(state: GameState, seat: int, kind: str | None = None) -> list[int]:
    return [c for c in state.players[seat].hand if kind is None or state.content.cards[c].kind == kind]


def _w_crown(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.UseCrown)
    crown = crown_of(state, seat)
    parts = [_verb("crown", lang)]
    if crown is not None:
        ability = state.content.artefacts[crown.id].ability
        parts.append(_ko_ability(ability) if lang == "ko" else ability)
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
    return f"{_verb('redistribute', lang)} {', '.join(moves)}"


def _w_advance(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.Advance)
    return f"{_verb('advance', lang)} {_location_text(state, seat, action.to, lang)} {action.knights}"


def _w_respond(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.Respond)
    if not action.fracture:
        return _verb("pass", lang)
    return f"{_verb('fracture', lang)} {', '.join(_artefact_text(state, t, lang) for t in action.fracture)}"


def _w_fracture(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.Fracture)
    return f"{_verb('fracture', lang)} {_artefact_text(state, action.target, lang)}"


def _w_conflict(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.ChooseConflict)
    (name,) = _cards_text(state, _hand(state, seat, "conflict"), seat, [action.card], lang)
    return f"{_verb('conflict', lang)} {name}"


def _w_support(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.PlaySupport)
    names = _cards_text(state, _hand(state, seat, "support"), seat, action.cards, lang)
    return f"{_verb('support', lang)} {', '.join(names)}"


def _w_discard(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.DiscardChoice)
    if action.card is None:
        return _verb("keep", lang)
    (name,) = _cards_text(state, _hand(state, seat), seat, [action.card], lang)
    return f"{_verb('discard', lang)} {name}"


def _w_order(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.InsightOrder)
    pool = state.choice.cards if state.choice is not None else []
    return f"{_verb('order', lang)} {', '.join(_cards_text(state, pool, seat, action.order, lang))}"


def _w_prosperity(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.ProsperityChoice)
    return _verb("discard" if action.discard else "keep", lang)


def _w_fear(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.FearChoice)
    return _verb("use" if action.use else "decline", lang)


def _plain(verb: str) -> Callable[[GameState, int, A.Action, str], str]:
    return lambda _state, _seat, _action, lang: _verb(verb, lang)


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


# -- Reading --------------------------------------------------------------------------------------------


def parse_text(state: GameState, seat: int, text: str, lang: str = "en") -> A.Action:
    """Read one action of ``seat`` in the notation (any of the four languages; ``lang`` only chooses the
    language of the error's list of legal forms).

    Returns:
        The action; :func:`games.engine.apply` decides whether it is legal.

    Raises:
        NotationError: not an action in the notation: its message says what was expected, ``legal`` lists
            the legal forms now (:func:`legal_forms`).
    """
    lang = _lang(lang)
    if not isinstance(text, str):
        raise NotationError("a move is a line of text", "text")
    t = _norm(text)
    verb, rest = next(
        ((v, t[len(s) :].strip()) for s, v in _SPELLINGS if t == s or t.startswith(s + " ")), (None, t)
    )
    try:
        if verb is None:
            raise NotationError(
                f"{text.strip()!r} is not a move", "a move such as " + ", ".join(_examples(lang))
            )
        return _READERS[verb](state, seat, rest)
    except NotationError as exc:
        raise NotationError(str(exc), exc.expected, legal_forms(state, seat, lang)) from None


def names_a_move(text: str) -> bool:
    """Whether ``text`` begins with a move's word in any of the four languages (``advance …``, ``koniec``),
    whatever follows: the email reply reader tells a mistyped move from a signature by it (issue 18)."""
    t = _norm(text)
    return any(t == s or t.startswith(s + " ") for s, _v in _SPELLINGS)


def _need_empty(rest: str, verb: str) -> None:
    if rest:
        raise NotationError(f"{verb!r} takes nothing after it", verb)


def _r_fracture(state: GameState, seat: int, rest: str) -> A.Action:
    targets = tuple(_read_artefact(state, part) for part in _split(rest))
    if not targets:
        raise NotationError("fracture what?", "fracture <artefact>")
    if state.window is not None:
        return A.Respond(targets)
    if len(targets) > 1:
        raise NotationError("one artefact at a time outside a response window", "fracture <artefact>")
    return A.Fracture(targets[0])


def _r_pass(state: GameState, seat: int, rest: str) -> A.Action:
    _need_empty(rest, "pass")
    if state.window is not None:
        return A.Respond(())
    if state.battle is not None and state.battle.stage == "support":
        return A.PassSupport()
    raise NotationError("there is nothing to pass now", "a move of this moment")


def _r_crown(state: GameState, seat: int, rest: str) -> A.Action:
    crown = crown_of(state, seat)
    tokens = rest.split(" ") if rest else []
    if crown is not None and tokens:
        ability = state.content.artefacts[crown.id].ability
        if tokens[0] in {ability, _ko_ability(ability)}:
            tokens = tokens[1:]
    player: int | None = None
    if tokens and (m := _PLAYER.fullmatch(tokens[0])):
        player, tokens = int(m.group(1)), tokens[1:]
    rest = " ".join(tokens)
    if not rest:
        return A.UseCrown(player=player)
    try:
        return A.UseCrown(player=player, artefact=_read_artefact(state, rest))
    except NotationError:
        (card,) = _read_cards(state, order_candidates(state, seat), seat, [rest])
        return A.UseCrown(player=player, card=card)


def _r_redistribute(state: GameState, seat: int, rest: str) -> A.Action:
    own = "castle"
    moves = []
    for part in _split(rest):
        m = _MOVE.fullmatch(part)
        if m is None:
            raise NotationError(f"{part!r} is not a move of knights", "from>to knights, e.g. castle>Fort 2")
        src = _read_location(state, seat, m.group(1), own_castle=own)
        dst = _read_location(state, seat, m.group(2), own_castle=own)
        moves.append(A.Move(src, dst, int(m.group(3))))
    if not moves:
        raise NotationError("redistribute what?", "redistribute from>to knights, …")
    return A.Redistribute(tuple(moves))


def _r_advance(state: GameState, seat: int, rest: str) -> A.Action:
    m = re.fullmatch(r"(.+) ([0-9]{1,3})", rest)
    if m is None:
        raise NotationError("advance where, with how many knights?", "advance <territory> <knights>")
    own = state.board.pos_id(state.board.castle_of_seat[seat])
    return A.Advance(_read_location(state, seat, m.group(1), own_castle=own), int(m.group(2)))


def _r_decline(state: GameState, seat: int, rest: str) -> A.Action:
    _need_empty(rest, "decline")
    ch = state.choice
    if ch is not None and ch.kind == PromptKind.FEAR:
        return A.FearChoice(False)
    return A.DeclineAdvance()


def _r_cards(kind: str | None) -> Callable[[GameState, int, str], tuple[str, ...]]:
    def read(state: GameState, seat: int, rest: str) -> tuple[str, ...]:
        return _read_cards(state, _hand(state, seat, kind), seat, _split(rest))

    return read


def _r_conflict(state: GameState, seat: int, rest: str) -> A.Action:
    cards = _r_cards("conflict")(state, seat, rest)
    if len(cards) != 1:
        raise NotationError("one conflict card", "conflict <card>")
    return A.ChooseConflict(cards[0])


def _r_support(state: GameState, seat: int, rest: str) -> A.Action:
    cards = _r_cards("support")(state, seat, rest)
    if not cards:
        raise NotationError("support with which cards?", "support <card>, <card>, … (or pass)")
    return A.PlaySupport(cards)


def _r_discard(state: GameState, seat: int, rest: str) -> A.Action:
    ch = state.choice
    if ch is not None and ch.kind == PromptKind.PROSPERITY:
        _need_empty(rest, "discard")
        return A.ProsperityChoice(True)
    cards = _r_cards(None)(state, seat, rest)
    if len(cards) != 1:
        raise NotationError("discard one card", "discard <card> (or keep)")
    return A.DiscardChoice(cards[0])


def _r_keep(state: GameState, seat: int, rest: str) -> A.Action:
    _need_empty(rest, "keep")
    ch = state.choice
    if ch is not None and ch.kind == PromptKind.PROSPERITY:
        return A.ProsperityChoice(False)
    return A.DiscardChoice(None)


def _r_order(state: GameState, seat: int, rest: str) -> A.Action:
    # Only the looker's own look is read (R97): a rival's names would otherwise parse or fail depending on
    # the cards it holds, and the difference would tell the writer what the looker saw.
    ch = state.choice
    pool = ch.cards if ch is not None and ch.seat == seat else []
    return A.InsightOrder(_read_cards(state, pool, seat, _split(rest)))


def _r_plain(action: A.Action, verb: str) -> Callable[[GameState, int, str], A.Action]:
    def read(_state: GameState, _seat: int, rest: str) -> A.Action:
        _need_empty(rest, verb)
        return action

    return read


_READERS: dict[str, Callable[[GameState, int, str], A.Action]] = {
    "end": _r_plain(A.EndTurn(), "end"),
    "call_to_arms": _r_plain(A.CallToArms(), "call to arms"),
    "tactical_advance": _r_plain(A.TacticalAdvance(), "tactical advance"),
    "finish": _r_plain(A.FinishRedistribution(), "finish"),
    "use": _r_plain(A.FearChoice(True), "use"),
    "fracture": _r_fracture,
    "pass": _r_pass,
    "crown": _r_crown,
    "redistribute": _r_redistribute,
    "advance": _r_advance,
    "decline": _r_decline,
    "conflict": _r_conflict,
    "support": _r_support,
    "discard": _r_discard,
    "keep": _r_keep,
    "order": _r_order,
}


# -- Legal forms ----------------------------------------------------------------------------------------


def _examples(lang: str) -> list[str]:
    return [f"{_verb('advance', lang)} t5 3", _verb("end", lang), _verb("pass", lang)]


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
    return [f"{_verb('redistribute', lang)} from>to knights, … (e.g. {example})"]


def move_menu(state: GameState, seat: int, lang: str = "en") -> tuple[list[str], list[str]]:
    """The legal moves of ``seat`` now as a decision email lists them (issue 18): ``(moves, forms)``.
    ``moves`` are single actions in the notation, to be numbered; ``forms`` sum up the large families: one
    advance per target written with its largest knight count and the range (``advance Forest 4   (1-4
    knights)``), and redistributions as a form with an example.

    Returns:
        Two lists of lines in ``lang``; both empty when the seat has no decision.
    """
    lang = _lang(lang)
    moves, advances, redistributes = _menu(state, seat, lang)
    forms = []
    for to, counts in advances.items():
        low, high = min(counts), max(counts)
        place = _location_text(state, seat, to, lang)
        span = f"   ({low}-{high} knights)" if low != high else ""
        forms.append(f"{_verb('advance', lang)} {place} {high}{span}")
    return moves, forms + _redistribute_form(redistributes, lang)


def legal_forms(state: GameState, seat: int, lang: str = "en") -> list[str]:
    """The legal moves of ``seat`` now, in the notation: one line per action, except that advances are
    summed up per target (``advance Forest 1-4``) and redistributions as a form with an example.

    Returns:
        Lines in ``lang``; empty when the seat has no decision.
    """
    lang = _lang(lang)
    out, advances, redistributes = _menu(state, seat, lang)
    for to, counts in advances.items():
        low, high = min(counts), max(counts)
        knights = str(low) if low == high else f"{low}-{high}"
        out.append(f"{_verb('advance', lang)} {_location_text(state, seat, to, lang)} {knights}")
    return out + _redistribute_form(redistributes, lang)
