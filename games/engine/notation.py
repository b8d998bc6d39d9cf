"""The move notation: a short text form of every action, in English, Swedish, Polish or Korean (issue 14).

Like chess's SAN it names things as players do: ``advance Forest 4``, ``redistribute castle>Fort 2,
Fort>Ruins 1``, ``crown vitality``, ``fracture Orb of Brutality``, ``conflict Heroic Assault``,
``support +2``, ``pass``, ``end``. :func:`to_text` writes an action, :func:`parse_text` reads one back:
``parse_text(state, seat, to_text(state, a, lang), lang) == a`` for every legal action ``a``. Reading is
case-insensitive and accent-insensitive, tolerates extra spaces, hyphens for spaces, Korean without its
spaces and a few abbreviations (``adv``), and accepts the rulebook's terms of all four editions whatever
``lang`` is (``content.md`` §5); ``lang`` chooses the words :func:`to_text` writes and the language of a
:class:`NotationError`'s message. ``docs/notation.md`` is
the reference.

Names:

- a territory by its tile name when that is unique on the map (``Forest``), else by the name and its rank
  in position order (``Forest #2``, never read as a count; ``Forest 2`` is read too), or by its id
  (``t12``); the player's own castle is ``castle``, a rival's ``castle p2`` (Castle Siege);
- a card by its name, the n-th copy among the cards it could be as ``Name n`` (``Shield Wall 2``), by its
  value (``5``, ``+2``: the first such card not yet named) or by its id (``s0c07``);
- an artefact by its name (``Orb of Brutality``), its ability (``brutality``) or its id;
- a player by seat, ``p0`` … ``p5``.

The notation only reads and writes actions; whether one is legal is for :func:`games.engine.apply` to say.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from . import actions as A
from .errors import InvalidActionPayload, InvalidSeat
from .kinds import PromptKind, Stage
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
from .notation_terms import (
    ABBREVIATIONS,
    ABILITY_WORDS,
    CASTLE,
    ERRORS,
    KNIGHT_RANGE,
    LANGS,
    REDISTRIBUTE_FORM,
    SUCH_AS,
    VERBS,
)
from .prompts import legal_actions
from .rules.crowns import crown_of, order_candidates
from .state import GameState

__all__ = ["LANGS", "NotationError", "legal_forms", "parse_text", "place_names", "to_text", "verb_of"]

_SPACES = re.compile(r"\s+")
#: A hyphen or dash between two letters (``call-to-arms``): read as a space (issue 30).
_HYPHEN = re.compile(r"(?<=[^\W\d_])[-‐‑–—](?=[^\W\d_])")
#: A space between two Hangul syllables: Korean names and verbs read with or without it (``군대동원``).
_HANGUL_GAP = re.compile(r"(?<=[가-힣]) (?=[가-힣])")
#: Letters that Unicode does not decompose into a base letter and an accent.
_UNACCENTED = {"ł": "l", "ø": "o", "đ": "d"}
_PLAYER = re.compile(r"(?:p|seat\s*)?([0-9])")
_MOVE = re.compile(r"(.+?)\s*(?:->|>|→)\s*(.+?)\s+([0-9]{1,3})")


class NotationError(InvalidActionPayload):
    """A text that is not an action in the notation. ``expected`` says what was expected; ``legal`` lists
    the legal forms at that point (:func:`legal_forms`), so a reply can show them."""

    def __init__(
        self,
        message: str,
        expected: str,
        legal: Sequence[str] = (),
        *,
        code: str = "",
        params: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message, field="text")
        self.expected = expected
        self.legal = list(legal)
        #: The reason's key in :data:`.notation_terms.ERRORS` (``""``: a message of the caller's own).
        self.code = code
        self.params = dict(params or {})


def _clean(text: str) -> str:
    """``text`` as the reader reads it: case folded, a hyphen between letters read as a space
    (``call-to-arms``), spaces collapsed, a final full stop dropped."""
    folded = unicodedata.normalize("NFC", text.casefold())
    return _SPACES.sub(" ", _HYPHEN.sub(" ", folded)).strip().rstrip(".").strip()


@functools.cache
def _plain_letter(c: str) -> str:
    """``c`` without its accent (``ö`` -> ``o``, ``ł`` -> ``l``); always one character (a Hangul syllable
    stays itself), so a line and its plain form keep the same offsets."""
    if c in _UNACCENTED:
        return _UNACCENTED[c]
    base = "".join(d for d in unicodedata.normalize("NFD", c) if not unicodedata.combining(d))
    plain = unicodedata.normalize("NFC", base)
    return plain if len(plain) == 1 else c


def _unaccented(text: str) -> str:
    return "".join(_plain_letter(c) for c in text)


def _norm(text: str) -> str:
    """``text`` as the reader compares it: :func:`_clean`, with accents dropped (``mönstring`` =
    ``monstring``, ``Góry`` = ``Gory``, issue 30)."""
    return _unaccented(_clean(text))


def _key(text: str) -> str:
    """A name as the reader compares it: :func:`_norm`, and Korean with or without its spaces."""
    return _HANGUL_GAP.sub("", _norm(text))


def _verb_pattern(spelling: str) -> re.Pattern[str]:
    """The spelling of a verb at the start of a normalized line, followed by a space or the end; between
    two Hangul syllables its space is optional."""
    words = _norm(spelling).split(" ")
    body = re.escape(words[0])
    for before, word in itertools.pairwise(words):
        hangul = re.fullmatch(r"[가-힣]", before[-1]) and re.fullmatch(r"[가-힣]", word[0])
        body += (" ?" if hangul else " ") + re.escape(word)
    return re.compile(body + r"(?: |$)")


#: Every spelling of every verb (the four languages' and the abbreviations), longest first (so "tactical
#: advance" wins over "advance").
_SPELLINGS = [
    (_verb_pattern(spelling), verb)
    for spelling, verb in sorted(
        {
            *((s, verb) for verb, langs in VERBS.items() for names in langs.values() for s in names),
            *((s, verb) for verb, names in ABBREVIATIONS.items() for s in names),
        },
        key=lambda pair: (-len(pair[0]), pair),
    )
]


def _match_verb(t: str) -> tuple[str | None, str]:
    """The verb a :func:`_clean` line begins with and the rest of the line (accents kept, for the
    messages), or ``(None, t)``."""
    plain = _unaccented(t)
    for pattern, verb in _SPELLINGS:
        m = pattern.match(plain)
        if m:
            return verb, t[m.end() :].strip()
    return None, t


def _say(code: str, lang: str, params: dict[str, str]) -> str:
    """The reason ``code`` of :data:`.notation_terms.ERRORS` in ``lang``, its names quoted."""
    quoted = {k: repr(v) if k == "text" else v for k, v in params.items()}
    return ERRORS[code][lang].format(**quoted)


def _fail(code: str, expected: str, **params: str) -> NotationError:
    """A :class:`NotationError` with reason ``code`` (worded in English until :func:`parse_text` words it in
    the reader's language)."""
    return NotationError(_say(code, "en", params), expected, code=code, params=params)


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
    return name if len(same) == 1 else f"{name} #{same.index(pos) + 1}"


def place_names(state: GameState, lang: str = "en") -> dict[str, str]:
    """The name the notation writes for each territory of the map, by position id (``{"t3": "Forest",
    "t9": "Grasslands #2"}``), in ``lang``: what an email's map key shows beside each hex (issue 30)."""
    lang = _lang(lang)
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
    m = _RANK.fullmatch(t)
    if m is None and not _matches_tile(state, t):
        m = _RANK_OR_COUNT.fullmatch(t)
    base = t
    if m:
        base, rank = m.group(1), int(m.group(2))
    found = [
        p
        for p in range(board.size)
        if board.kinds[p] == "territory"
        and state.tiles[p]
        and _key(base) in {_key(n) for n in _tile_names(state, p)}
    ]
    if not found:
        raise _fail("no_place", "a territory name, an id such as t12, or castle", text=text)
    if not 1 <= rank <= len(found):
        raise _fail("few_places", f"{base} #1 to {base} #{len(found)}", text=base, count=str(len(found)))
    if len(found) > 1 and not m:
        raise _fail("not_unique", f"{text} #1 to {text} #{len(found)}, or a territory id", text=text)
    return board.pos_id(found[rank - 1])


#: ``Name #n``: the n-th of several places or cards of one name, never read as a count (issue 30).
_RANK = re.compile(r"(.+?) ?# ?([0-9]{1,2})")
#: ``Name n``: the same, where no count can follow (or the n-th when a count follows: ``Forest 2 3``).
_RANK_OR_COUNT = re.compile(r"(.+?) ([0-9]{1,2})")


def _matches_tile(state: GameState, t: str) -> bool:
    return any(
        _key(t) in {_key(n) for n in _tile_names(state, p)}
        for p in range(state.board.size)
        if state.board.kinds[p] == "territory" and state.tiles[p]
    )


def _card_names(state: GameState, index: int) -> set[str]:
    return {_key(n) for n in card_spellings(state.content, state.content.cards[index].id)}


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
            m = _RANK.fullmatch(t)
            if m is None and not any(_key(t) in _card_names(state, c) for c in pool):
                m = _RANK_OR_COUNT.fullmatch(t)
            base = t
            if m:
                base, rank = m.group(1), int(m.group(2))
            candidates = [c for c in sorted(pool) if _key(base) in _card_names(state, c)]
        if rank:
            if not 1 <= rank <= len(candidates):
                raise _fail("no_copy", "a card you can play now", text=item, rank=str(rank))
            chosen = candidates[rank - 1]
        else:
            chosen = next((c for c in candidates if c not in used), -1)
        if chosen < 0:
            raise _fail("no_card", "a card you can play now, by name or value", text=item)
        used.append(chosen)
        out.append(A.card_id(seat, chosen))
    return tuple(out)


def _artefact_text(state: GameState, art_id: str, lang: str) -> str:
    return artefact_name(state.content, art_id, lang)


def _ability_word(ability: str, lang: str) -> str:
    """The word of an artefact ability in ``lang`` (the crown move's word): the English id, the Swedish or
    Polish noun (issue 30), the Korean word; the English id when unknown."""
    if lang == "ko":
        return ABILITY_NAMES.get(ability, {}).get("ko", ability)
    return ABILITY_WORDS.get(ability, {}).get(lang, ability)


def _ability_words(ability: str) -> set[str]:
    """Every language's word of ``ability``, as the reader compares them."""
    return {_key(_ability_word(ability, lang)) for lang in LANGS}


def _read_artefact(state: GameState, text: str) -> str:
    t = _key(text)
    for art_id, adef in state.content.artefacts.items():
        names = {
            art_id,
            *_ability_words(adef.ability),
            f"{_key(ARTEFACT_TYPES.get(adef.type, {}).get('pl', adef.type))} '{adef.ability}'",
            *(_key(n) for n in artefact_spellings(state.content, art_id)),
        }
        if t in names:
            return art_id
    raise _fail("no_artefact", "an artefact's name (Orb of Brutality) or ability (brutality)", text=text)


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
        InvalidActionPayload: an unknown ``lang``, or ``action`` is no engine action.
        InvalidSeat: a card id of ``action`` names a seat outside the game.
    """
    lang = _lang(lang)
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


def _hand(state: GameState, seat: int, kind: str | None = None) -> list[int]:
    return [c for c in state.players[seat].hand if kind is None or state.content.cards[c].kind == kind]


def _w_crown(state: GameState, seat: int, action: A.Action, lang: str) -> str:
    assert isinstance(action, A.UseCrown)
    crown = crown_of(state, seat)
    parts = [_verb("crown", lang)]
    if crown is not None:
        ability = state.content.artefacts[crown.id].ability
        parts.append(_ability_word(ability, lang))
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
        raise NotationError(_say("not_text", lang, {}), "text", code="not_text")
    verb, rest = _match_verb(_clean(text))
    try:
        if verb is None:
            raise _fail("not_a_move", SUCH_AS[lang] + ", ".join(_examples(lang)), text=text.strip())
        return _READERS[verb](state, seat, rest)
    except NotationError as exc:
        message = _say(exc.code, lang, exc.params) if exc.code else exc.message
        legal = legal_forms(state, seat, lang)
        raise NotationError(message, exc.expected, legal, code=exc.code, params=exc.params) from None


def names_a_move(text: str) -> bool:
    """Whether ``text`` begins with a move's word in any of the four languages (``advance …``, ``koniec``),
    whatever follows: the email reply reader tells a mistyped move from a signature by it (issue 18).

    Raises:
        InvalidActionPayload: ``text`` is not a string.
    """
    return _match_verb(_clean(_text_of(text)))[0] is not None


def verb_of(text: str) -> str | None:
    """The move word ``text`` begins with, as the reader's key (``advance``, ``support``, ``pass``, ``end``…,
    any of the four languages and their tolerant forms), or ``None``: pending orders (issue 30) tell a
    battle's lines from a turn's by it.

    Raises:
        InvalidActionPayload: ``text`` is not a string.
    """
    return _match_verb(_clean(_text_of(text)))[0]


def _text_of(text: object) -> str:
    """``text`` when it is a string; anything else is no line of notation."""
    if not isinstance(text, str):
        raise InvalidActionPayload(f"a move is written as text, not {type(text).__name__}")
    return text


def _need_empty(rest: str, verb: str) -> None:
    if rest:
        raise _fail("takes_nothing", verb, text=verb)


def _r_fracture(state: GameState, seat: int, rest: str) -> A.Action:
    targets = tuple(_read_artefact(state, part) for part in _split(rest))
    if not targets:
        raise _fail("fracture_what", "fracture <artefact>")
    if state.window is not None:
        return A.Respond(targets)
    if len(targets) > 1:
        raise _fail("one_artefact", "fracture <artefact>")
    return A.Fracture(targets[0])


def _r_pass(state: GameState, seat: int, rest: str) -> A.Action:
    _need_empty(rest, "pass")
    if state.window is not None:
        return A.Respond(())
    if state.battle is not None and state.battle.stage == Stage.SUPPORT:
        return A.PassSupport()
    raise _fail("nothing_to_pass", "a move of this moment")


def _r_crown(state: GameState, seat: int, rest: str) -> A.Action:
    crown = crown_of(state, seat)
    tokens = rest.split(" ") if rest else []
    if crown is not None and tokens:
        ability = state.content.artefacts[crown.id].ability
        if _key(tokens[0]) in _ability_words(ability):
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
            raise _fail("not_knights", "from>to knights, e.g. castle>Fort 2", text=part)
        src = _read_location(state, seat, m.group(1), own_castle=own)
        dst = _read_location(state, seat, m.group(2), own_castle=own)
        moves.append(A.Move(src, dst, int(m.group(3))))
    if not moves:
        raise _fail("redistribute_what", "redistribute from>to knights, …")
    return A.Redistribute(tuple(moves))


def _r_advance(state: GameState, seat: int, rest: str) -> A.Action:
    m = re.fullmatch(r"(.+) ([0-9]{1,3})", rest)
    if m is None:
        raise _fail("advance_where", "advance <territory> <knights>")
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
        raise _fail("one_conflict", "conflict <card>")
    return A.ChooseConflict(cards[0])


def _r_support(state: GameState, seat: int, rest: str) -> A.Action:
    cards = _r_cards("support")(state, seat, rest)
    if not cards:
        raise _fail("support_which", "support <card>, <card>, … (or pass)")
    return A.PlaySupport(cards)


def _r_discard(state: GameState, seat: int, rest: str) -> A.Action:
    ch = state.choice
    if ch is not None and ch.kind == PromptKind.PROSPERITY:
        _need_empty(rest, "discard")
        return A.ProsperityChoice(True)
    cards = _r_cards(None)(state, seat, rest)
    if len(cards) != 1:
        raise _fail("discard_one", "discard <card> (or keep)")
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
    return [f"{_verb('redistribute', lang)} {REDISTRIBUTE_FORM[lang].format(example=example)}"]


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
        span = "   " + KNIGHT_RANGE[lang].format(low=low, high=high) if low != high else ""
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
