"""The reading side of the move notation (:mod:`games.engine.notation`): a line normalised as the reader
compares it (case, accents, hyphens, Korean spacing), the verb it begins with, places, cards and artefacts
read from their names, :func:`parse_text` and its readers of each verb, and :class:`NotationError`, the
refusal of a text that is no move."""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from . import actions as A
from .errors import InvalidActionPayload
from .kinds import PromptKind, Stage
from .names import ARTEFACT_TYPES, artefact_spellings, card_spellings
from .names import territory_spellings as _spellings
from .notation_terms import ABBREVIATIONS, CASTLE, ERRORS, LANGS, SUCH_AS, VERBS
from .notation_write import ability_word, checked_lang, hand_cards, legal_forms, verb_word
from .rules.crowns import crown_of, order_candidates
from .state import GameState

__all__ = ["NotationError", "names_a_move", "parse_text", "verb_of"]

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


# -- Places, cards and artefacts read from their names -------------------------------------------------


def _tile_names(state: GameState, pos: int) -> set[str]:
    return _spellings(state.content, state.tiles[pos])


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


def _ability_words(ability: str) -> set[str]:
    """Every language's word of ``ability``, as the reader compares them."""
    return {_key(ability_word(ability, lang)) for lang in LANGS}


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
    lang = checked_lang(lang)
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
        return _read_cards(state, hand_cards(state, seat, kind), seat, _split(rest))

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


# -- Examples of moves, for a refusal -------------------------------------------------------------------


def _examples(lang: str) -> list[str]:
    return [f"{verb_word('advance', lang)} t5 3", verb_word("end", lang), verb_word("pass", lang)]
