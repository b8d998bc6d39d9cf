"""The rules of Medieval Mastery (``medieval-mastery.md`` R1–R120 with rulings Q1–Q35).

Public entry points are re-exported by :mod:`games.engine`: :func:`new_game`, :func:`apply`,
:func:`current_phase`. Every rule is implemented here and nowhere else; component facts and numbers come
from the state's :class:`~games.engine.content.Content` and :class:`~games.engine.content.Board`.

Internals: :class:`Tx` is a copy-on-write transaction over a state. Handlers validate an action *before*
changing anything (so an :class:`IllegalAction` leaves no trace), then mutate the transaction's private
copy, then :func:`_run` advances the automatic steps until the game waits for a decision again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import actions as A
from .content import MAX_SETUP_INT, Board, Content, bounded_int
from .errors import ContentError, ErrorCode, IllegalAction
from .rng import Rng
from .state import (
    NO_CARD,
    SCHEMA_VERSION,
    UNCHOSEN,
    Artefact,
    Battle,
    Choice,
    GameState,
    Player,
    Window,
    content_and_board,
)

Event = dict[str, Any]

OPTION_DEFAULTS: dict[str, Any] = {
    "allegiance": None,  # None | "pairs" | "triples" (R105–R107)
    "castle_siege": False,  # R112–R115
    "cut_throat": False,  # R116
    "skirmish": False,  # R117
    "mayhem": False,  # R118–R120
    "fracture_prompts": "all",  # "all" seats with a legal target, or only "holders" of Fracture
    "castle_lake_link": False,  # Q13 flag: castles get the lake link for advances
}


@dataclass(frozen=True, slots=True)
class Transition:
    """Result of :func:`apply`: the new ``state`` and the ``events`` it produced (unredacted; use
    :func:`games.engine.view.redact_event` before showing one to a viewer)."""

    state: GameState
    events: list[Event]


# ----------------------------------------------------------------------------------------------------------
# Transaction
# ----------------------------------------------------------------------------------------------------------


class Tx:
    """A copy-on-write transaction: ``s`` is a shallow copy of the input state; :meth:`p`, :meth:`b`,
    :meth:`w` copy a player / the battle / the window the first time they are changed."""

    __slots__ = ("_battle", "_copied", "_window", "c", "events", "rng", "s")

    def __init__(self, state: GameState) -> None:
        self.s = state.shallow()
        self.c: Content = state.content
        self._copied: set[int] = set()
        self._battle = False
        self._window = False
        self.events: list[Event] = []
        self.rng = Rng(state.seed, state.rng_counter)

    def p(self, seat: int) -> Player:
        """Return a private, mutable copy of player ``seat``."""
        if seat not in self._copied:
            self.s.players[seat] = self.s.players[seat].copy()
            self._copied.add(seat)
        return self.s.players[seat]

    def b(self) -> Battle:
        """Return a private, mutable copy of the running battle."""
        assert self.s.battle is not None
        if not self._battle:
            self.s.battle = self.s.battle.copy()
            self._battle = True
        return self.s.battle

    def w(self) -> Window:
        """Return a private, mutable copy of the open response window."""
        assert self.s.window is not None
        if not self._window:
            self.s.window = self.s.window.copy()
            self._window = True
        return self.s.window

    def new_battle(self, battle: Battle) -> None:
        """Install a freshly built battle (already private)."""
        self.s.battle = battle
        self._battle = True

    def new_window(self, window: Window) -> None:
        """Install a freshly built response window (already private)."""
        self.s.window = window
        self._window = True

    def emit(self, event_type: str, /, private: dict[int, dict[str, Any]] | None = None, **data: Any) -> None:
        """Record an event. ``private`` maps a seat to fields only that seat may see (R95, R97)."""
        ev: Event = {"type": event_type, "turn": self.s.turn, **data}
        if private:
            ev["private"] = {str(k): v for k, v in private.items()}
        self.events.append(ev)

    def next_serial(self) -> int:
        """Return a new decision serial (used to key prompts)."""
        self.s.serial += 1
        return self.s.serial

    def d6(self) -> int:
        """Roll one die: a pinned result if any remain (setup ``pin.dice``), else the seeded RNG (R7)."""
        if self.s.dice_queue:
            return self.s.dice_queue.pop(0)
        return self.rng.d6()

    def finish(self) -> Transition:
        """Close the transaction: store the RNG counter and return the transition."""
        self.s.rng_counter = self.rng.counter
        return Transition(self.s, self.events)


# ----------------------------------------------------------------------------------------------------------
# Derived facts: dice, supply, control, VP, targets
# ----------------------------------------------------------------------------------------------------------


def ceil_div(a: int, b: int) -> int:
    """Return ceil(a / b) for ints (b > 0)."""
    return -(-a // b)


def option(state: GameState, name: str) -> Any:
    """Return the value of setup option ``name`` (see :data:`OPTION_DEFAULTS`)."""
    return state.setup["options"][name]


def dice_in_use(state: GameState, seat: int) -> int:
    """Dice seat ``seat`` needs now (R16, Q20): Σ ceil(knights / 6) over every location with its knights."""
    kpd = state.content.n("knights_per_die")
    total = ceil_div(state.players[seat].castle, kpd)
    owner = state.owner
    knights = state.knights
    for i in range(len(owner)):
        if owner[i] == seat:
            total += ceil_div(knights[i], kpd)
    b = state.battle
    if b is not None and b.attacker == seat:
        total += ceil_div(b.att_knights, kpd)
    return total


def capacity(state: GameState, pos: int) -> int:
    """Capacity in knights of territory ``pos`` for one player (R12)."""
    return state.content.territory_types[state.tiles[pos]].capacity


def supplied(state: GameState, seat: int) -> set[int]:
    """Territories of ``seat`` with a line of supply (R48–R49, R111).

    A chain from the castle through adjacent tiles that are the seat's own territories or lakes. A
    disputed territory still counts as its defender's (``owner`` keeps the defender during a battle).
    """
    board = state.board
    owner = state.owner
    kinds = board.kinds
    adjacent = board.adjacent
    start = board.castle_of_seat[seat]
    seen = {start}
    stack = [start]
    result: set[int] = set()
    while stack:
        cur = stack.pop()
        for n in adjacent[cur]:
            if n in seen:
                continue
            if kinds[n] == "lake":
                seen.add(n)
                stack.append(n)
            elif kinds[n] == "territory" and owner[n] == seat:
                seen.add(n)
                result.add(n)
                stack.append(n)
    return result


def teammates(state: GameState, seat: int) -> list[int]:
    """Other seats on ``seat``'s Allegiance team (empty outside Allegiance)."""
    team = state.players[seat].team
    if team < 0:
        return []
    return [p.seat for p in state.players if p.team == team and p.seat != seat]


def territory_vp(state: GameState, pos: int) -> int:
    """VP value of territory ``pos`` (R14); Homelands count 0 under Skirmish (R117)."""
    if option(state, "skirmish") and state.content.territory_types[state.tiles[pos]].homelands:
        return 0
    return state.board.layout_vp[pos]


def victory_points(state: GameState) -> list[int]:
    """VP of every seat (R14): controlled territories, a disputed territory counting for nobody (R104)."""
    vp = [0] * state.num_players
    disputed = state.battle.pos if state.battle is not None else -1
    kinds = state.board.kinds
    for i, o in enumerate(state.owner):
        if o >= 0 and i != disputed and kinds[i] == "territory":
            vp[o] += territory_vp(state, i)
    return vp


def advance_targets(state: GameState, seat: int) -> list[int]:
    """Positions ``seat`` may advance into now (R52–R54, R112, Q13, Q35), in position order."""
    board = state.board
    kinds = board.kinds
    owner = state.owner
    castle = board.castle_of_seat[seat]
    sup = supplied(state, seat)
    reach: set[int] = set(board.adjacent[castle])
    if option(state, "castle_lake_link"):
        reach.update(board.lake_links[castle])
    for t in sup:
        reach.update(board.adjacent[t])
        reach.update(board.lake_links[t])
    mates = set(teammates(state, seat))
    siege = option(state, "castle_siege")
    out: list[int] = []
    for x in sorted(reach):
        kind = kinds[x]
        if kind == "territory":
            if owner[x] != seat and owner[x] not in mates:
                out.append(x)
        elif kind == "castle" and siege and x != castle:
            out.append(x)
    return out


def _castle_owner(state: GameState, pos: int) -> int:
    return state.board.castle_of_seat.index(pos)


def _rival_real(state: GameState, b: Battle, side: int) -> int:
    """Real knight count of the *other* side, for Fear/Vigour (R67, Q3); a castle defender counts 8."""
    if side == 1:
        return b.att_knights
    if b.castle:
        return state.content.n("siege_defender_knights")
    return state.knights[b.pos]


def knight_part(state: GameState, b: Battle, side: int) -> int:
    """Knight part of a side's combat score (R60, R67, R113): frozen, substituted, or real knights."""
    if b.frozen[side] >= 0:
        return b.frozen[side]
    if b.substitute[side] >= 0:
        return b.substitute[side]
    if side == 0:
        return b.att_knights
    return state.knights[b.pos]


def combat_score(state: GameState, b: Battle, side: int) -> int:
    """Combat score of side 0 (attacker) or 1 (defender) (R60)."""
    return knight_part(state, b, side) + sum(int(m[1]) for m in b.mods[side])


def _defender_knights(state: GameState, b: Battle) -> int:
    return state.players[b.defender].castle if b.castle else state.knights[b.pos]


def current_phase(state: GameState) -> str:
    """Return what the game waits for: ``over``, ``response`` (a response window), ``choice``,
    ``battle``, or the turn phase ``window`` / ``manoeuvre`` / ``vitality``."""
    if state.winners:
        return "over"
    if state.window is not None:
        return "response"
    if state.choice is not None:
        return "choice"
    if state.battle is not None:
        return "battle"
    return state.phase


# ----------------------------------------------------------------------------------------------------------
# Setup (R18–R25)
# ----------------------------------------------------------------------------------------------------------


def normalize_setup(setup: dict[str, Any]) -> dict[str, Any]:
    """Return the canonical form of a setup dict (defaults filled in) or raise :class:`ContentError`.

    Keys: ``players`` (2..6), ``seed`` (int), ``content`` (set name or inline dict), ``layout`` (``None``
    or an inline layout dict), ``options`` (:data:`OPTION_DEFAULTS`), ``pin`` (see ``docs/game-record.md``).
    """
    if not isinstance(setup, dict):
        raise ContentError("setup must be an object")
    if "players" not in setup:
        raise ContentError("setup needs integer 'players' and 'seed'")
    players = bounded_int(setup["players"], 0, 99, "players")
    seed = bounded_int(setup.get("seed", 0), -MAX_SETUP_INT - 1, MAX_SETUP_INT, "seed")
    options = dict(OPTION_DEFAULTS)
    raw_options = setup.get("options") or {}
    if not isinstance(raw_options, dict):
        raise ContentError("options must be an object")
    for key, value in raw_options.items():
        if key not in OPTION_DEFAULTS:
            raise ContentError(f"unknown option {key!r}")
        options[key] = value
    for flag in ("castle_siege", "cut_throat", "skirmish", "mayhem", "castle_lake_link"):
        if not isinstance(options[flag], bool):
            raise ContentError(f"option {flag!r} must be true or false")
    if options["fracture_prompts"] not in ("all", "holders"):
        raise ContentError("fracture_prompts must be 'all' or 'holders'")
    allegiance = options["allegiance"]
    if allegiance not in (None, "pairs", "triples"):
        raise ContentError("allegiance must be null, 'pairs' or 'triples'")
    if allegiance == "pairs" and players not in (4, 6):
        raise ContentError("Allegiance needs 4 or 6 players (R105)")
    if allegiance == "triples" and players != 6:
        raise ContentError("teams of three need 6 players (R105)")
    if allegiance and options["castle_siege"]:
        raise ContentError("Allegiance cannot be combined with Castle Siege (R105, Q28)")
    content = setup.get("content", "default")
    layout = setup.get("layout")
    pin = setup.get("pin") or {}
    if not isinstance(pin, dict):
        raise ContentError("pin must be an object")
    canonical = {
        "players": players,
        "seed": seed & ((1 << 63) - 1),
        "content": content,
        "layout": layout,
        "options": options,
        "pin": pin,
    }
    c, board = content_and_board(canonical)
    if not c.n("players_min") <= players <= c.n("players_max"):
        raise ContentError(f"{players} players is outside {c.n('players_min')}..{c.n('players_max')} (R1)")
    if board.players != players:
        raise ContentError("layout is for another player count")
    return canonical


def new_game(setup: dict[str, Any]) -> GameState:
    """Set up a game (R18–R25) and start the first turn (R31).

    Args:
        setup: see :func:`normalize_setup`; everything random may be pinned under ``pin`` (``tiles``:
            ``{"t5": "city"}``; ``artefacts``: per seat a list of artefact ids; ``decks``: per seat card
            ids (content ids such as ``"heroic_assault"``) to be drawn first, in order; ``first_player``;
            ``dice``: d6 results consumed before the RNG).

    Returns:
        The state waiting for the first player's free window (``turn == 1``).

    Raises:
        ContentError: invalid setup, options, pins or content.
    """
    setup = normalize_setup(setup)
    content, board = content_and_board(setup)
    n = setup["players"]
    pin = setup["pin"]
    rng = Rng(setup["seed"])
    tiles = _fill_map(content, board, pin.get("tiles") or {}, rng)
    players = [
        Player(seat=i, castle=0, hand=[], deck=[], discard=[], discard_turns=[], artefacts=[])
        for i in range(n)
    ]
    _deal_artefacts(content, players, pin.get("artefacts") or [], rng)
    decks_pin = pin.get("decks") or []
    for p in players:
        p.deck = _build_deck(content, decks_pin[p.seat] if p.seat < len(decks_pin) else [], rng)
    allegiance = setup["options"]["allegiance"]
    for p in players:
        if allegiance == "pairs":
            p.team = p.seat % (n // 2)
        elif allegiance == "triples":
            p.team = p.seat % 2
    dice = pin.get("dice") or []
    if not isinstance(dice, list) or any(not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise ContentError("pin.dice must be a list of die results 1..6")
    state = GameState(
        schema=SCHEMA_VERSION,
        setup=setup,
        seed=setup["seed"],
        rng_counter=rng.counter,
        dice_queue=list(dice),
        turn=0,
        active=0,
        phase="window",
        manoeuvres_left=0,
        crown_used=False,
        owner=[-1] * board.size,
        knights=[0] * board.size,
        tiles=tiles,
        players=players,
        content=content,
        board=board,
    )
    tx = Tx(state)
    tx.emit("setup", players=n, options=setup["options"], content=content.id)
    _starting_knights(tx)
    for seat in range(n):  # R24: each player draws five
        _draw(tx, seat, content.n("opening_hand"))
    first = pin.get("first_player")
    if first is None:
        first = tx.rng.below(n)
    elif not isinstance(first, int) or not 0 <= first < n:
        raise ContentError("pin.first_player must be a seat number")
    tx.emit("first_player", seat=first)
    tx.s.active = first
    _start_turn(tx)
    result = tx.finish().state
    result.actions_applied = 0
    return result


def _fill_map(content: Content, board: Board, pins: dict[str, Any], rng: Rng) -> list[str]:
    """R19: three face-down piles by VP value, shuffled; positions filled from the centre outwards."""
    piles: dict[int, list[str]] = {}
    for tile_type, vp, count in content.tiles:
        piles.setdefault(vp, []).extend([tile_type] * count)
    tiles = [""] * board.size
    if not isinstance(pins, dict):
        raise ContentError("pin.tiles must map position ids to tile types")
    for pos_id, tile_type in pins.items():
        pos = board.parse_pos(str(pos_id))
        if pos is None or board.kinds[pos] != "territory":
            raise ContentError(f"pin.tiles: {pos_id!r} is not a territory position")
        pile = piles.get(board.layout_vp[pos], [])
        if tile_type not in pile:
            raise ContentError(f"pin.tiles: no {tile_type!r} tile of VP {board.layout_vp[pos]} left")
        pile.remove(tile_type)
        tiles[pos] = tile_type
    for vp in sorted(piles):
        index = list(range(len(piles[vp])))
        rng.shuffle(index)
        piles[vp] = [piles[vp][i] for i in index]
    for pos, kind in enumerate(board.kinds):
        if kind == "territory" and not tiles[pos]:
            pile = piles.get(board.layout_vp[pos], [])
            if not pile:
                raise ContentError(f"not enough VP {board.layout_vp[pos]} tiles for the layout")
            tiles[pos] = pile.pop()
    return tiles


def _deal_artefacts(content: Content, players: list[Player], pins: list[Any], rng: Rng) -> None:
    """R20: one crown, one sceptre and one orb to each player from three shuffled piles."""
    pinned: list[dict[str, str]] = [{} for _ in players]
    for seat, ids in enumerate(pins[: len(players)]):
        for art_id in ids or []:
            art = content.artefacts.get(art_id)
            if art is None or art.type in pinned[seat]:
                raise ContentError(f"pin.artefacts: bad artefact {art_id!r} for seat {seat}")
            pinned[seat][art.type] = art_id
    for kind in ("crown", "sceptre", "orb"):
        taken = {pinned[s][kind] for s in range(len(players)) if kind in pinned[s]}
        if len(taken) != sum(1 for s in range(len(players)) if kind in pinned[s]):
            raise ContentError(f"pin.artefacts: a {kind} is pinned twice")
        pile = [a for a in content.artefacts_of(kind) if a not in taken]
        order = list(range(len(pile)))
        rng.shuffle(order)
        pile = [pile[i] for i in order]
        for p in players:
            art_id = pinned[p.seat].get(kind)
            if art_id is None:
                if not pile:
                    raise ContentError(f"not enough {kind}s for every player")
                art_id = pile.pop()
            p.artefacts.append(Artefact(art_id))


def _build_deck(content: Content, pinned: list[Any], rng: Rng) -> list[int]:
    """R22: shuffle the 18-card deck; pinned cards (content ids, first drawn first) go on top."""
    rest = list(range(len(content.cards)))
    top: list[int] = []
    for card in pinned:
        match = next((i for i in rest if content.cards[i].id == card), None)
        if match is None:
            raise ContentError(f"pin.decks: no {card!r} left in the deck")
        rest.remove(match)
        top.append(match)
    rng.shuffle(rest)
    return rest + top[::-1]  # top of the deck is the end of the list


def _starting_knights(tx: Tx) -> None:
    """R23 (Q1, Q2): 6 knights split evenly between the castle and its adjacent Homelands; Mayhem +6."""
    s, c, board = tx.s, tx.c, tx.s.board
    total = c.n("starting_knights")
    for p in s.players:
        castle = board.castle_of_seat[p.seat]
        homelands = [
            n
            for n in board.adjacent[castle]
            if board.kinds[n] == "territory" and c.territory_types[s.tiles[n]].homelands
        ]
        share = total // (len(homelands) + 1)
        for h in homelands:
            s.owner[h] = p.seat
            s.knights[h] = share
        tx.p(p.seat).castle = total - share * len(homelands)
        tx.emit("starting_knights", seat=p.seat, castle=tx.s.players[p.seat].castle, homelands=homelands)
        if option(s, "mayhem"):
            _gain(tx, p.seat, c.n("mayhem_extra_knights"), "mayhem")


# ----------------------------------------------------------------------------------------------------------
# Cards and knights
# ----------------------------------------------------------------------------------------------------------


def _reshuffle(tx: Tx, seat: int) -> None:
    """R99: the whole discard pile becomes the new deck, shuffled; discard turns are cleared (R101)."""
    p = tx.p(seat)
    cards = p.discard
    p.discard, p.discard_turns = [], []
    tx.rng.shuffle(cards)
    p.deck = cards + p.deck
    tx.emit("reshuffle", seat=seat, cards=len(cards))


def _draw_one(tx: Tx, seat: int) -> int | None:
    p = tx.p(seat)
    if not p.deck:
        if not p.discard:
            return None
        _reshuffle(tx, seat)
    card = p.deck.pop()
    p.hand.append(card)
    return card


def _draw(tx: Tx, seat: int, count: int, target: int | None = None) -> None:
    """Draw ``count`` cards (or up to ``target`` cards in hand, R100), then play Authority if it came in
    (R33, Q30): Authority is revealed, 2 more cards are drawn, then it is discarded."""
    drawn: list[int] = []
    if target is not None:
        while len(tx.s.players[seat].hand) < target:
            card = _draw_one(tx, seat)
            if card is None:
                break
            drawn.append(card)
    else:
        for _ in range(count):
            card = _draw_one(tx, seat)
            if card is None:
                break
            drawn.append(card)
    if drawn:
        tx.emit(
            "draw",
            seat=seat,
            count=len(drawn),
            private={seat: {"cards": [A.card_id(seat, c) for c in drawn]}},
        )
    authority = tx.c.effect_index["authority"]
    if authority in drawn:
        p = tx.p(seat)
        p.hand.remove(authority)
        tx.emit("card_played", seat=seat, card=A.card_id(seat, authority), name=tx.c.cards[authority].name)
        _draw(tx, seat, tx.c.n("authority_draw"))
        _discard(tx, seat, authority)


def _discard(tx: Tx, seat: int, card: int) -> None:
    """Put ``card`` on its owner's discard pile with the current turn (R98, R101)."""
    p = tx.p(seat)
    p.discard.append(card)
    p.discard_turns.append(tx.s.turn)


def _discard_from_hand(tx: Tx, seat: int, card: int, reason: str) -> None:
    tx.p(seat).hand.remove(card)
    _discard(tx, seat, card)
    tx.emit("discard", seat=seat, card=A.card_id(seat, card), name=tx.c.cards[card].name, reason=reason)


def _random_discard(tx: Tx, seat: int, reason: str) -> None:
    """R102: discard one card chosen uniformly at random (nothing if the hand is empty, Q32)."""
    hand = tx.s.players[seat].hand
    if hand:
        _discard_from_hand(tx, seat, hand[tx.rng.below(len(hand))], reason)


def _gain(tx: Tx, seat: int, count: int, reason: str) -> None:
    """Add ``count`` knights to the castle one by one; a knight needing an 11th die is lost (R16)."""
    kpd = tx.c.n("knights_per_die")
    p = tx.p(seat)
    other = dice_in_use(tx.s, seat) - ceil_div(p.castle, kpd)
    room = max(0, (tx.c.n("dice_per_player") - other) * kpd - p.castle)
    gained = min(count, room)
    p.castle += gained
    tx.emit("knights_gained", seat=seat, knights=gained, lost=count - gained, reason=reason)


def _destroy(tx: Tx, art_id: str, by: int, reason: str) -> None:
    """R90: turn an artefact face down and record the turn."""
    for p in tx.s.players:
        if p.artefact(art_id) is not None:
            art = tx.p(p.seat).artefact(art_id)
            assert art is not None
            art.face_up = False
            art.destroyed_on = tx.s.turn
            tx.emit("artefact_destroyed", artefact=art_id, owner=p.seat, by=by, reason=reason)
            return


def _artefact_owner(state: GameState, art_id: str) -> int:
    for p in state.players:
        if p.artefact(art_id) is not None:
            return p.seat
    return -1


def _play_fracture(tx: Tx, seat: int, target: str) -> None:
    """R32, R36: reveal Fracture, destroy the target, then discard the card."""
    card = tx.c.effect_index["fracture"]
    tx.p(seat).hand.remove(card)
    tx.emit("card_played", seat=seat, card=A.card_id(seat, card), name=tx.c.cards[card].name, target=target)
    _destroy(tx, target, seat, "fracture")
    _discard(tx, seat, card)


# ----------------------------------------------------------------------------------------------------------
# Turn flow
# ----------------------------------------------------------------------------------------------------------


def _start_turn(tx: Tx) -> None:
    """R27 PLACE: increment T, reset per-turn state, place three knights (R31)."""
    s = tx.s
    s.turn += 1
    s.phase = "window"
    s.manoeuvres_left = 1
    s.crown_used = False
    tx.next_serial()
    tx.emit("turn_started", seat=s.active)
    _gain(tx, s.active, tx.c.n("knights_per_turn"), "turn")


def _end_turn(tx: Tx) -> None:
    """Step 9 (R93): restore own artefacts destroyed on a previous turn, then pass clockwise."""
    s = tx.s
    seat = s.active
    for art in s.players[seat].artefacts:
        if not art.face_up and art.destroyed_on < s.turn:
            mine = tx.p(seat).artefact(art.id)
            assert mine is not None
            mine.face_up = True
            mine.destroyed_on = 0
            tx.emit("artefact_restored", artefact=art.id, owner=seat)
    tx.emit("turn_ended", seat=seat)
    s.active = (seat + 1) % s.num_players
    _start_turn(tx)


def _check_victory(tx: Tx) -> bool:
    """R103–R104, R109, R117: end the game when a player (or team) reaches the VP threshold."""
    s = tx.s
    if s.winners:
        return True
    vp = victory_points(s)
    if option(s, "allegiance"):
        teams: dict[int, list[int]] = {}
        for p in s.players:
            teams.setdefault(p.team, []).append(p.seat)
        for members in teams.values():
            need = int(tx.c.numbers["team_victory_vp"][str(len(members))])
            if sum(vp[m] for m in members) >= need:
                s.winners = sorted(members)
    else:
        need = tx.c.n("skirmish_victory_vp" if option(s, "skirmish") else "victory_vp")
        s.winners = [p for p in range(s.num_players) if vp[p] >= need]
    if s.winners:
        s.phase = "over"
        tx.emit("game_over", winners=list(s.winners), vp=vp)
        return True
    return False


def _cut_throat(tx: Tx) -> None:
    """R116: remove every unsupplied territory's knights (to the reserve) in one pass (Q12 timing)."""
    s = tx.s
    if not option(s, "cut_throat"):
        return
    keep = set()
    for seat in range(s.num_players):
        keep |= supplied(s, seat)
    for pos, owner in enumerate(s.owner):
        if owner >= 0 and pos not in keep and (s.battle is None or s.battle.pos != pos):
            tx.emit("cut_throat", seat=owner, pos=s.board.pos_id(pos), knights=s.knights[pos])
            s.owner[pos] = -1
            s.knights[pos] = 0


def _conquer(tx: Tx, seat: int, pos: int, resume: str) -> None:
    """R56, R78, R86: ``seat`` conquers ``pos`` and applies its mandatory conquest abilities as one step
    (Q14, Q19); the optional discard follows unless the game is over."""
    s = tx.s
    ttype = tx.c.territory_types[s.tiles[pos]]
    tx.emit("conquered", seat=seat, pos=s.board.pos_id(pos), tile=ttype.id)
    for ability in ttype.on_conquest:
        if ability == "place_knight":
            _gain(tx, seat, tx.c.n("conquest_knights"), ttype.id)
        elif ability == "lose_knight":
            lost = min(s.knights[pos], tx.c.n("marshlands_losses"))
            s.knights[pos] -= lost
            tx.emit("knights_lost", seat=seat, pos=s.board.pos_id(pos), knights=lost, reason=ttype.id)
            if s.knights[pos] == 0:
                s.owner[pos] = -1
    _cut_throat(tx)
    if _check_victory(tx):
        return
    if "may_discard" in ttype.on_conquest and s.players[seat].hand:
        s.choice = Choice(seat, "may_discard", ttype.id, resume, serial=tx.next_serial())


def _run(tx: Tx) -> None:
    """Advance automatic steps until the game waits for a decision (or is over)."""
    while not tx.s.winners and tx.s.window is None and tx.s.choice is None and tx.s.battle is not None:
        if not _battle_step(tx):
            return


# ----------------------------------------------------------------------------------------------------------
# Response windows (R37, architecture "Response windows")
# ----------------------------------------------------------------------------------------------------------


def _open_window(
    tx: Tx, kind: str, opener: int, targets: list[str], crown: dict[str, Any] | None = None
) -> None:
    s = tx.s
    holders_only = option(s, "fracture_prompts") == "holders"
    fracture = tx.c.effect_index["fracture"]
    owners = {t: _artefact_owner(s, t) for t in targets}
    asked: list[int] = []
    for k in range(s.num_players):
        seat = (opener + k) % s.num_players
        if not any(owners[t] != seat for t in targets):
            continue  # only own artefacts: this seat's opportunity is always a pass (R37)
        if holders_only and fracture not in s.players[seat].hand:
            continue
        asked.append(seat)
    window = Window(
        kind, opener, list(targets), asked, [None] * len(asked), dict(crown or {}), tx.next_serial()
    )
    tx.emit("window_opened", kind=kind, opener=opener, targets=list(targets), asked=list(asked))
    tx.new_window(window)
    if not asked:
        _resolve_window(tx)


def _resolve_window(tx: Tx) -> None:
    """Resolve answers in clockwise order from the opener: each seat fractures the first of its ranked
    targets that is still face up, so the outcome equals the rulebook's sequential lap (R37)."""
    s = tx.s
    w = tx.w()
    fracture = tx.c.effect_index["fracture"]
    for seat, ranked in zip(w.asked, w.answers, strict=True):
        for target in ranked or []:
            owner = _artefact_owner(s, target)
            art = s.players[owner].artefact(target)
            if art is not None and art.face_up and fracture in s.players[seat].hand:
                _play_fracture(tx, seat, target)
                break
    s.window = None
    survivors = [t for t in w.targets if _face_up(s, t)]
    tx.emit("window_closed", kind=w.kind, survivors=survivors)
    if w.kind == "crown":
        if survivors:
            _apply_crown(tx, w.crown)
        else:
            tx.emit("crown_negated", seat=w.opener, artefact=w.targets[0])
    else:
        b = tx.b()
        b.queue = list(survivors)  # the event keeps its own list
        b.stage = "sceptres" if w.kind == "sceptre" else "orbs"


def _face_up(state: GameState, art_id: str) -> bool:
    owner = _artefact_owner(state, art_id)
    art = state.players[owner].artefact(art_id) if owner >= 0 else None
    return art is not None and art.face_up


# ----------------------------------------------------------------------------------------------------------
# Crowns (R39–R42)
# ----------------------------------------------------------------------------------------------------------


def _crown_of(state: GameState, seat: int) -> Artefact | None:
    for art in state.players[seat].artefacts:
        if state.content.artefacts[art.id].type == "crown":
            return art
    return None


def _order_candidates(state: GameState, seat: int) -> list[int]:
    """Cards of ``seat``'s discard pile discarded on a previous turn (R101, Q11)."""
    p = state.players[seat]
    return [c for c, t in zip(p.discard, p.discard_turns, strict=True) if t < state.turn]


def _apply_crown(tx: Tx, args: dict[str, Any]) -> None:
    s = tx.s
    seat = s.active
    ability = str(args["ability"])
    tx.emit("crown_applied", seat=seat, ability=ability)
    if ability == "corruption":
        target = str(args["artefact"])
        if _face_up(s, target):
            _destroy(tx, target, seat, "corruption")
    elif ability == "fury":
        if s.players[seat].hand:
            s.choice = Choice(seat, "may_discard", "fury", "window", serial=tx.next_serial())
    elif ability == "insight":
        look = tx.c.n("insight_look")
        if len(s.players[seat].deck) < look and s.players[seat].discard:
            p = tx.p(seat)
            under = p.discard
            p.discard, p.discard_turns = [], []
            tx.rng.shuffle(under)
            p.deck = under + p.deck  # R41: shuffled discard goes *under* the remaining deck
            tx.emit("reshuffle", seat=seat, cards=len(under), under=True)
        deck = s.players[seat].deck
        seen = deck[-look:][::-1]
        if seen:
            s.choice = Choice(seat, "insight_order", "insight", "window", cards=seen, serial=tx.next_serial())
    elif ability == "order":
        card = args.get("card")
        if card is not None:
            p = tx.p(seat)
            idx = p.discard.index(int(card))
            p.discard.pop(idx)
            p.discard_turns.pop(idx)
            p.deck.append(int(card))
            tx.rng.shuffle(p.deck)
            tx.emit(
                "card_returned", seat=seat, card=A.card_id(seat, int(card)), name=tx.c.cards[int(card)].name
            )
    elif ability == "prosperity":
        victim = int(args["player"])
        if not s.players[victim].deck and s.players[victim].discard:
            _reshuffle(tx, victim)  # Q26
        deck = s.players[victim].deck
        if deck:
            s.choice = Choice(
                seat,
                "prosperity",
                "prosperity",
                "window",
                cards=[deck[-1]],
                target=victim,
                serial=tx.next_serial(),
            )
    elif ability == "vitality":
        s.phase = "vitality"
        tx.next_serial()


# ----------------------------------------------------------------------------------------------------------
# Battle (R59–R81, R85, R110, R113–R114, R119–R120)
# ----------------------------------------------------------------------------------------------------------


def _start_battle(tx: Tx, attacker: int, pos: int, knights: int) -> None:
    s = tx.s
    is_castle = s.board.kinds[pos] == "castle"
    defender = _castle_owner(s, pos) if is_castle else s.owner[pos]
    b = Battle(attacker, defender, pos, is_castle, "start", knights, serial=tx.next_serial())
    if is_castle:
        b.substitute[1] = tx.c.n("siege_defender_knights")  # R113
    tx.new_battle(b)
    tx.emit("battle_started", attacker=attacker, defender=defender, pos=s.board.pos_id(pos), knights=knights)


def _battle_step(tx: Tx) -> bool:
    """Run one stage of the order of battle. Returns ``False`` when the battle waits for a decision."""
    s = tx.s
    b = tx.b()
    c = tx.c
    stage = b.stage
    if stage == "start":  # step 1 (R62, R84, R85)
        b.stage = "draw"
        if not b.castle:
            ttype = c.territory_types[s.tiles[b.pos]]
            bonus = c.n("terrain_bonus")
            if ttype.start_of_battle == "attacker_bonus":
                b.mods[0].append([ttype.id, bonus])
            elif ttype.start_of_battle == "defender_bonus":
                b.mods[1].append([ttype.id, bonus])
            elif ttype.start_of_battle == "arena":
                rolls = [tx.d6(), tx.d6()]
                losses = c.n("arena_losses")
                lose = [rolls[0] <= rolls[1], rolls[1] <= rolls[0]]
                tx.emit("arena", rolls=rolls, attacker_lost=lose[0], defender_lost=lose[1])
                for side, seat in enumerate((b.attacker, b.defender)):
                    if lose[side]:
                        _lose_in_dispute(tx, b, seat, losses, "arena")
                if b.att_knights == 0 or s.knights[b.pos] == 0:  # R85, Q4
                    b.stage = "cleanup"
        tx.emit("battle_step", step=1, scores=[combat_score(s, b, 0), combat_score(s, b, 1)])
    elif stage == "draw":  # step 2 (R63)
        for seat in (b.attacker, b.defender):
            _draw(tx, seat, 0, target=c.n("battle_draw"))
        b.stage = "sceptre_window"
    elif stage == "sceptre_window":  # step 3 (R64)
        targets = _artefacts_applying(s, b, "sceptre")
        b.stage = "sceptres"
        if targets:
            _open_window(tx, "sceptre", b.attacker, targets)
        else:
            b.queue = []
    elif stage == "sceptres":  # R65–R67
        if not b.queue:
            b.stage = "conflict"
            b.serial = tx.next_serial()
            for side, seat in enumerate((b.attacker, b.defender)):
                if not any(c.cards[x].kind == "conflict" for x in s.players[seat].hand):
                    b.conflict[side] = NO_CARD
            tx.emit("battle_step", step=3, scores=[combat_score(s, b, 0), combat_score(s, b, 1)])
            return True
        art_id = b.queue.pop(0)
        owner = _artefact_owner(s, art_id)
        side = b.side(owner)
        rival = b.defender if side == 0 else b.attacker
        ability = c.artefacts[art_id].ability
        tx.emit("artefact_applied", artefact=art_id, owner=owner)
        if ability in ("rage", "loyalty"):
            b.mods[side].append([ability, c.n(f"{ability}_bonus")])
        elif ability in ("influence", "defiance"):
            _random_discard(tx, rival, ability)
        elif ability in ("fear", "vigour"):
            s.choice = Choice(owner, "fear", ability, "battle", serial=tx.next_serial())
            return False
    elif stage == "conflict":  # step 4 (R68)
        if UNCHOSEN in b.conflict:
            return False
        for side in (0, 1):
            card = b.conflict[side]
            if card == NO_CARD:
                value = 0
            else:
                cdef = c.cards[card]
                value = tx.d6() if cdef.ambush else int(cdef.value or 0)
            b.conflict_values[side] = value
            b.mods[side].append(["conflict", value])
        b.revealed = True
        tx.emit(
            "conflict_revealed",
            cards=[
                None if x == NO_CARD else A.card_id(seat, x)
                for x, seat in zip(b.conflict, (b.attacker, b.defender), strict=True)
            ],
            values=list(b.conflict_values),
            scores=[combat_score(s, b, 0), combat_score(s, b, 1)],
        )
        b.stage = "support_start"
    elif stage == "support_start":  # step 5 (R69–R72, R110)
        b.stage = "result"
        if b.castle or not c.territory_types[s.tiles[b.pos]].no_support:
            a, d = combat_score(s, b, 0), combat_score(s, b, 1)
            first = b.defender if d < a else b.attacker
            eligible = {b.attacker, b.defender, *teammates(s, b.attacker), *teammates(s, b.defender)}
            order = [(first + k) % s.num_players for k in range(s.num_players)]
            b.support_order = [seat for seat in order if seat in eligible]
            b.support_turn = 0
            b.support_passes = 0
            b.stage = "support"
            b.serial = tx.next_serial()
    elif stage == "support":
        return _support_progress(tx, b)
    elif stage == "result":  # step 6 (R73)
        b.frozen = [knight_part(s, b, 0), knight_part(s, b, 1)]
        a, d = combat_score(s, b, 0), combat_score(s, b, 1)
        if a > d:
            b.winner, b.margin = b.attacker, a - d
        else:
            b.winner, b.margin = b.defender, max(d - a, 1)
        tx.emit("battle_result", scores=[a, d], winner=b.winner, margin=b.margin)
        b.stage = "mayhem" if option(s, "mayhem") else "orb_window"
    elif stage == "mayhem":  # R119, R120, Q18, Q27
        _mayhem(tx, b)
    elif stage == "orb_window":  # step 7 (R74)
        targets = _artefacts_applying(s, b, "orb")
        b.stage = "orbs"
        if targets:
            _open_window(tx, "orb", b.attacker, targets)
        else:
            b.queue = []
    elif stage == "orbs":  # R75
        if not b.queue:
            b.stage = "conquest" if b.flipped else "losses"
            return True
        art_id = b.queue.pop(0)
        owner = _artefact_owner(s, art_id)
        rival = b.defender if owner == b.attacker else b.attacker
        ability = c.artefacts[art_id].ability
        tx.emit("artefact_applied", artefact=art_id, owner=owner)
        if ability == "brutality":
            _lose_in_dispute(tx, b, rival, c.n("brutality_losses"), "brutality")
        elif ability in ("greed", "resurgence"):
            _draw(tx, owner, 0, target=c.n("greed_draw"))
        elif ability == "devotion":
            _gain(tx, owner, c.n("devotion_knights"), "devotion")
        elif ability in ("preparation", "cleansing") and s.players[owner].hand:
            s.choice = Choice(owner, "may_discard", ability, "battle", serial=tx.next_serial())
            return False
    elif stage == "losses":  # step 8 (R76, R77)
        loser = b.defender if b.winner == b.attacker else b.attacker
        _lose_in_dispute(tx, b, loser, b.margin, "battle")
        if loser == b.attacker:
            back = b.att_knights
            b.att_knights = 0
            tx.p(loser).castle += back
            tx.emit("retreat", seat=loser, knights=back)
        elif not b.castle:
            back = s.knights[b.pos]
            s.knights[b.pos] = 0
            s.owner[b.pos] = -1
            tx.p(loser).castle += back
            tx.emit("retreat", seat=loser, knights=back)
        b.stage = "conquest"
    elif stage == "conquest":  # step 9 (R78, R79, R114)
        b.stage = "cleanup"
        if b.winner == b.attacker and b.att_knights > 0:
            if b.castle:  # R114: conquering a castle wins the game
                tx.p(b.attacker).castle += b.att_knights
                b.att_knights = 0
                _end_battle_over(tx, b)
                s.winners = [b.attacker]
                s.phase = "over"
                tx.emit("castle_conquered", seat=b.attacker, owner=b.defender)
                tx.emit("game_over", winners=[b.attacker], vp=victory_points(s))
                return True
            s.owner[b.pos] = b.attacker
            s.knights[b.pos] = b.att_knights
            b.att_knights = 0
            s.battle = None  # the territory stops being in dispute before the victory check (Q14)
            _conquer(tx, b.attacker, b.pos, resume="battle")
            if s.winners:
                _end_battle_over(tx, b)
                return True
            s.battle = b
    elif stage == "cleanup":  # R80, R81
        _cleanup(tx, b)
        return True
    return True


def _artefacts_applying(state: GameState, b: Battle, kind: str) -> list[str]:
    """Face-up sceptres/orbs of the involved players that are about to apply, attacker's first (Q7, Q10)."""
    out: list[str] = []
    for seat in (b.attacker, b.defender):
        for art in state.players[seat].artefacts:
            adef = state.content.artefacts[art.id]
            if not art.face_up or adef.type != kind:
                continue
            if kind == "sceptre":
                applies = adef.trigger == ("attacking" if seat == b.attacker else "defending")
            else:
                applies = adef.trigger == ("win" if seat == b.winner else "lose")
            if applies:
                out.append(art.id)
    return out


def _lose_in_dispute(tx: Tx, b: Battle, seat: int, count: int, reason: str) -> None:
    s = tx.s
    if seat == b.attacker:
        lost = min(count, b.att_knights)
        b.att_knights -= lost
    elif b.castle:
        lost = min(count, s.players[seat].castle)
        tx.p(seat).castle -= lost
    else:
        lost = min(count, s.knights[b.pos])
        s.knights[b.pos] -= lost
    tx.emit("knights_lost", seat=seat, pos=s.board.pos_id(b.pos), knights=lost, reason=reason)


def _support_progress(tx: Tx, b: Battle) -> bool:
    s = tx.s
    support_cards = [
        any(tx.c.cards[x].kind == "support" for x in s.players[seat].hand) for seat in b.support_order
    ]
    while True:
        if b.support_passes >= len(b.support_order) or not any(support_cards):
            b.stage = "result"
            tx.emit("battle_step", step=5, scores=[combat_score(s, b, 0), combat_score(s, b, 1)])
            return True
        if support_cards[b.support_turn]:
            return False
        b.support_passes += 1  # a seat without support cards passes at once (R70)
        b.support_turn = (b.support_turn + 1) % len(b.support_order)


def _mayhem(tx: Tx, b: Battle) -> None:
    s = tx.s
    b.stage = "orb_window"
    winner = b.winner
    if winner == b.attacker:
        before = b.att_knights
    elif b.castle:
        before = s.players[winner].castle
    else:
        before = s.knights[b.pos]
    rolls = [tx.d6() for _ in range(before)]
    ones = rolls.count(1)
    if ones:
        _lose_in_dispute(tx, b, winner, ones, "mayhem")
    after = before - ones
    tx.emit("mayhem", seat=winner, rolls=rolls, lost=ones)
    if before > 0 and after == 0:
        loser = b.defender if winner == b.attacker else b.attacker
        loser_left = b.att_knights if loser == b.attacker else _defender_knights(s, b)
        if loser_left == 0 and not b.castle:
            b.winner = -1
            b.stage = "cleanup"  # nobody left: the battle ends at once (R119, R81)
            return
        b.winner = loser
        b.flipped = True
        tx.emit("mayhem_flip", winner=loser)


def _end_battle_over(tx: Tx, b: Battle) -> None:
    """The game ended inside a battle (R103: nothing further is resolved): the played cards still go to
    their discard piles so every card stays accounted for, and nothing is in dispute any more."""
    for seat, card in b.table:
        _discard(tx, seat, card)
    b.table = []
    tx.s.battle = None


def _cleanup(tx: Tx, b: Battle) -> None:
    """R80–R81: discard the cards on the table, end the dispute, settle control, recompute supply."""
    s = tx.s
    for seat, card in b.table:
        _discard(tx, seat, card)
    if not b.castle:
        if b.att_knights > 0 and s.knights[b.pos] == 0:
            s.owner[b.pos] = b.attacker  # Q6: controls without conquering
            s.knights[b.pos] = b.att_knights
        elif b.att_knights > 0:  # cannot happen at clean-up, kept for safety: attacker retreats
            tx.p(b.attacker).castle += b.att_knights
        elif s.knights[b.pos] == 0:
            s.owner[b.pos] = -1  # Q5
    elif b.att_knights > 0:
        tx.p(b.attacker).castle += b.att_knights
    b.att_knights = 0
    s.battle = None
    tx.emit("battle_ended", pos=s.board.pos_id(b.pos))
    _cut_throat(tx)
    if not _check_victory(tx):
        s.phase = "window"
        tx.next_serial()


# ----------------------------------------------------------------------------------------------------------
# apply()
# ----------------------------------------------------------------------------------------------------------


def _hand_card(state: GameState, seat: int, cid: str) -> int:
    parsed = A.parse_card_id(cid)
    if parsed is None or parsed[0] != seat or parsed[1] not in state.players[seat].hand:
        raise IllegalAction(ErrorCode.CARD_NOT_IN_HAND, card=cid)
    return parsed[1]


def _require_turn(state: GameState, actor: int, *phases: str) -> None:
    if actor != state.active:
        raise IllegalAction(ErrorCode.NOT_YOUR_DECISION)
    if current_phase(state) not in phases:
        raise IllegalAction(ErrorCode.WRONG_PHASE, phase=current_phase(state))


def apply(state: GameState, actor: int, action: A.Action) -> Transition:
    """Validate and apply ``action`` by seat ``actor`` (the only way a game changes).

    Args:
        state: the current state; never mutated.
        actor: the seat (0..n-1) taking the action.
        action: a parsed action (:func:`games.engine.parse_action`).

    Returns:
        A :class:`Transition` with the new state and its events.

    Raises:
        IllegalAction: the rules forbid the action now (stable :class:`ErrorCode`, R-number in params).
    """
    if state.winners:
        raise IllegalAction(ErrorCode.GAME_OVER)
    if not 0 <= actor < state.num_players:
        raise IllegalAction(ErrorCode.NOT_YOUR_DECISION)
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise IllegalAction(ErrorCode.WRONG_PHASE)
    tx = Tx(state)
    handler(tx, actor, action)
    _run(tx)
    tx.s.actions_applied += 1
    return tx.finish()


def _reveal_resource(tx: Tx, actor: int, effect: str) -> int:
    """R32, R34, R35: check that the active player may play resource card ``effect`` now (own free window)
    and holds it, then take it from the hand and reveal it. The caller resolves it, then discards it."""
    _require_turn(tx.s, actor, "window")
    card = tx.c.effect_index[effect]
    if card not in tx.s.players[actor].hand:
        raise IllegalAction(ErrorCode.CARD_NOT_IN_HAND, card=A.card_id(actor, card))
    tx.p(actor).hand.remove(card)
    tx.emit("card_played", seat=actor, card=A.card_id(actor, card), name=tx.c.cards[card].name)
    return card


def _h_call_to_arms(tx: Tx, actor: int, action: A.Action) -> None:
    card = _reveal_resource(tx, actor, "call_to_arms")
    _gain(tx, actor, tx.c.n("call_to_arms_knights"), "call_to_arms")
    _discard(tx, actor, card)


def _h_tactical_advance(tx: Tx, actor: int, action: A.Action) -> None:
    card = _reveal_resource(tx, actor, "tactical_advance")
    tx.s.manoeuvres_left += 1
    _discard(tx, actor, card)


def _h_fracture(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.Fracture)
    s = tx.s
    _require_turn(s, actor, "window")
    if tx.c.effect_index["fracture"] not in s.players[actor].hand:
        raise IllegalAction(ErrorCode.NO_FRACTURE_IN_HAND)
    owner = _artefact_owner(s, action.target)
    if owner < 0 or owner == actor or not _face_up(s, action.target):
        raise IllegalAction(ErrorCode.INVALID_FRACTURE_TARGET, target=action.target, rule="R36")
    _play_fracture(tx, actor, action.target)


def _h_use_crown(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.UseCrown)
    s = tx.s
    _require_turn(s, actor, "window")
    crown = _crown_of(s, actor)
    if crown is None or not crown.face_up:
        raise IllegalAction(ErrorCode.CROWN_UNAVAILABLE, rule="R39")
    if s.crown_used:
        raise IllegalAction(ErrorCode.CROWN_ALREADY_USED, rule="R39")
    ability = tx.c.artefacts[crown.id].ability
    args: dict[str, Any] = {"ability": ability}
    bad = IllegalAction(ErrorCode.CROWN_BAD_CHOICE, ability=ability)
    wants_player = ability in ("corruption", "prosperity")
    if wants_player != (action.player is not None):
        raise bad
    if action.player is not None and not 0 <= action.player < s.num_players:
        raise bad
    if (action.artefact is not None) != (ability == "corruption"):
        raise bad
    if ability == "corruption":
        assert action.player is not None and action.artefact is not None
        art = s.players[action.player].artefact(action.artefact)
        if art is None or not art.face_up or art.id == crown.id:
            raise bad
        args.update(player=action.player, artefact=action.artefact)
    elif ability == "prosperity":
        args["player"] = action.player
    if ability == "order":
        candidates = _order_candidates(s, actor)
        if action.card is None:
            if candidates:
                raise bad
        else:
            parsed = A.parse_card_id(action.card)
            if parsed is None or parsed[0] != actor or parsed[1] not in candidates:
                raise IllegalAction(
                    ErrorCode.CROWN_BAD_CHOICE, ability=ability, card=action.card, rule="R101"
                )
            args["card"] = parsed[1]
    elif action.card is not None:
        raise bad
    s.crown_used = True
    tx.emit(
        "crown_announced",
        seat=actor,
        crown=crown.id,
        ability=ability,
        player=args.get("player"),
        target=args.get("artefact"),
    )
    _open_window(tx, "crown", actor, [crown.id], args)


def _location(state: GameState, actor: int, loc: str, sup: set[int]) -> int:
    """Resolve a redistribution location: -1 for the castle, else an own supplied territory (R43, R46)."""
    if loc == "castle":
        return -1
    pos = state.board.parse_pos(loc)
    if pos is None:
        raise IllegalAction(ErrorCode.UNKNOWN_LOCATION, location=loc)
    if state.board.kinds[pos] != "territory" or state.owner[pos] != actor:
        raise IllegalAction(ErrorCode.NOT_YOUR_LOCATION, location=loc, rule="R43")
    if pos not in sup:
        raise IllegalAction(ErrorCode.LOCATION_UNSUPPLIED, location=loc, rule="R46")
    return pos


def check_redistribution(state: GameState, actor: int, moves: tuple[A.Move, ...]) -> dict[int, int]:
    """Validate a redistribution by ``actor`` and return the final knights per location (-1 = castle).

    Raises:
        IllegalAction: unknown/foreign/unsupplied location (R43, R46), abandoned territory or over
            capacity (R45), not enough knights, dice budget (R16).
    """
    sup = supplied(state, actor)
    final: dict[int, int] = {}
    for m in moves:
        if m.knights < 1:
            raise IllegalAction(ErrorCode.BAD_KNIGHT_COUNT, knights=m.knights)
        src = _location(state, actor, m.src, sup)
        dst = _location(state, actor, m.dst, sup)
        if src == dst:
            raise IllegalAction(ErrorCode.BAD_CHOICE, location=m.src)
        for loc in (src, dst):
            if loc not in final:
                final[loc] = state.players[actor].castle if loc == -1 else state.knights[loc]
        final[src] -= m.knights
        final[dst] += m.knights
    kpd = state.content.n("knights_per_die")
    dice = dice_in_use(state, actor)
    for loc, count in final.items():
        before = state.players[actor].castle if loc == -1 else state.knights[loc]
        if loc == -1:
            if count < 0:
                raise IllegalAction(ErrorCode.NOT_ENOUGH_KNIGHTS, location="castle")
        else:
            if count < 1:
                raise IllegalAction(
                    ErrorCode.TERRITORY_ABANDONED, location=state.board.pos_id(loc), rule="R45"
                )
            if count > capacity(state, loc):
                raise IllegalAction(ErrorCode.OVER_CAPACITY, location=state.board.pos_id(loc), rule="R45")
        dice += ceil_div(count, kpd) - ceil_div(before, kpd)
    if dice > state.content.n("dice_per_player"):
        raise IllegalAction(ErrorCode.DICE_BUDGET, dice=dice, rule="R16")
    return final


def _h_redistribute(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.Redistribute)
    s = tx.s
    _require_turn(s, actor, "window", "manoeuvre", "vitality")
    phase = s.phase
    if phase == "window" and s.manoeuvres_left < 1:
        raise IllegalAction(ErrorCode.NO_MANOEUVRE_LEFT, rule="R28")
    final = check_redistribution(s, actor, action.moves)
    if phase == "window":
        s.manoeuvres_left -= 1
        s.phase = "manoeuvre"
        tx.next_serial()
    for loc, count in final.items():
        if loc == -1:
            tx.p(actor).castle = count
        else:
            s.knights[loc] = count
    tx.emit("redistributed", seat=actor, moves=[m.to_dict() for m in action.moves])


def check_advance(state: GameState, actor: int, to: str, knights: int) -> int:
    """Validate an advance and return the target position (R52–R55, R112, R16).

    Raises:
        IllegalAction: unknown or unreachable target, own/teammate/lake/castle target, bad knight count,
            over capacity, dice budget.
    """
    pos = state.board.parse_pos(to)
    if pos is None:
        raise IllegalAction(ErrorCode.UNKNOWN_LOCATION, location=to)
    kind = state.board.kinds[pos]
    if kind == "lake" or (kind == "castle" and not option(state, "castle_siege")):
        raise IllegalAction(ErrorCode.TARGET_NOT_ENTERABLE, location=to, rule="R54")
    if kind == "territory" and state.owner[pos] == actor:
        raise IllegalAction(ErrorCode.TARGET_OWN, location=to, rule="R52")
    if kind == "territory" and state.owner[pos] in teammates(state, actor):
        raise IllegalAction(ErrorCode.TARGET_TEAMMATE, location=to, rule="R108")
    if pos == state.board.castle_of_seat[actor]:
        raise IllegalAction(ErrorCode.TARGET_OWN, location=to, rule="R10")
    if pos not in advance_targets(state, actor):
        raise IllegalAction(ErrorCode.TARGET_NOT_REACHABLE, location=to, rule="R53")
    limit = state.content.n("siege_max_advance") if kind == "castle" else capacity(state, pos)
    castle = state.players[actor].castle
    if knights < 1:
        raise IllegalAction(ErrorCode.BAD_KNIGHT_COUNT, knights=knights, rule="Q33")
    if knights > castle:
        raise IllegalAction(ErrorCode.NOT_ENOUGH_KNIGHTS, knights=knights, castle=castle, rule="R55")
    if knights > limit:
        raise IllegalAction(ErrorCode.OVER_CAPACITY, knights=knights, capacity=limit, rule="R55")
    kpd = state.content.n("knights_per_die")
    dice = (
        dice_in_use(state, actor)
        - ceil_div(castle, kpd)
        + ceil_div(castle - knights, kpd)
        + ceil_div(knights, kpd)
    )
    if dice > state.content.n("dice_per_player"):
        raise IllegalAction(ErrorCode.DICE_BUDGET, dice=dice, rule="R16")
    return pos


def _h_advance(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.Advance)
    s = tx.s
    _require_turn(s, actor, "window", "manoeuvre")
    if s.phase == "window" and s.manoeuvres_left < 1:
        raise IllegalAction(ErrorCode.NO_MANOEUVRE_LEFT, rule="R28")
    pos = check_advance(s, actor, action.to, action.knights)
    if s.phase == "window":
        s.manoeuvres_left -= 1
    s.phase = "window"
    tx.next_serial()
    tx.p(actor).castle -= action.knights
    tx.emit("advanced", seat=actor, pos=action.to, knights=action.knights)
    if s.board.kinds[pos] == "territory" and s.owner[pos] < 0:
        s.owner[pos] = actor
        s.knights[pos] = action.knights
        _conquer(tx, actor, pos, resume="window")
    else:
        _start_battle(tx, actor, pos, action.knights)


def _h_decline_advance(tx: Tx, actor: int, action: A.Action) -> None:
    _require_turn(tx.s, actor, "manoeuvre")
    tx.s.phase = "window"
    tx.next_serial()
    tx.emit("advance_declined", seat=actor)


def _h_finish_redistribution(tx: Tx, actor: int, action: A.Action) -> None:
    _require_turn(tx.s, actor, "vitality")
    tx.s.phase = "window"
    tx.next_serial()
    tx.emit("redistribution_finished", seat=actor)


def _h_end_turn(tx: Tx, actor: int, action: A.Action) -> None:
    _require_turn(tx.s, actor, "window")
    _end_turn(tx)


def _h_respond(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.Respond)
    s = tx.s
    w = s.window
    if w is None:
        raise IllegalAction(ErrorCode.WRONG_PHASE, phase=current_phase(s))
    if actor not in w.asked:
        raise IllegalAction(ErrorCode.NOT_YOUR_DECISION)
    i = w.asked.index(actor)
    if w.answers[i] is not None:
        raise IllegalAction(ErrorCode.ALREADY_ANSWERED)
    ranked = list(action.fracture)
    if ranked and tx.c.effect_index["fracture"] not in s.players[actor].hand:
        raise IllegalAction(ErrorCode.NO_FRACTURE_IN_HAND)
    if len(set(ranked)) != len(ranked):
        raise IllegalAction(ErrorCode.BAD_CHOICE)
    for target in ranked:
        if target not in w.targets or _artefact_owner(s, target) == actor:
            raise IllegalAction(ErrorCode.INVALID_FRACTURE_TARGET, target=target, rule="R37")
    tx.w().answers[i] = ranked
    tx.emit("window_answered", seat=actor)
    if all(a is not None for a in tx.w().answers):
        _resolve_window(tx)


def _h_choose_conflict(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.ChooseConflict)
    s = tx.s
    b = s.battle
    if b is None or current_phase(s) != "battle" or b.stage != "conflict":
        raise IllegalAction(ErrorCode.WRONG_PHASE, phase=current_phase(s))
    side = b.side(actor)
    if side < 0 or b.conflict[side] != UNCHOSEN:
        raise IllegalAction(ErrorCode.NOT_YOUR_DECISION if side < 0 else ErrorCode.ALREADY_ANSWERED)
    card = _hand_card(s, actor, action.card)
    if tx.c.cards[card].kind != "conflict":
        raise IllegalAction(ErrorCode.CARD_WRONG_KIND, card=action.card, rule="R68")
    b = tx.b()
    tx.p(actor).hand.remove(card)
    b.conflict[side] = card
    b.table.append([actor, card])
    tx.emit("conflict_chosen", seat=actor, private={actor: {"card": action.card}})


def _support_turn_of(state: GameState, actor: int) -> Battle:
    """The running battle if it is ``actor``'s support turn (R69–R70, R110); else IllegalAction."""
    b = state.battle
    if b is None or current_phase(state) != "battle" or b.stage != "support":
        raise IllegalAction(ErrorCode.WRONG_PHASE, phase=current_phase(state))
    if b.support_order[b.support_turn] != actor:
        raise IllegalAction(ErrorCode.NOT_YOUR_DECISION)
    return b


def _h_play_support(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.PlaySupport)
    s = tx.s
    b = _support_turn_of(s, actor)
    if len(set(action.cards)) != len(action.cards):
        raise IllegalAction(ErrorCode.BAD_CHOICE)
    cards = [_hand_card(s, actor, cid) for cid in action.cards]
    for cid, card in zip(action.cards, cards, strict=True):
        if tx.c.cards[card].kind != "support":
            raise IllegalAction(ErrorCode.CARD_WRONG_KIND, card=cid, rule="R70")
    b = tx.b()
    side = 0 if actor == b.attacker or actor in teammates(s, b.attacker) else 1
    p = tx.p(actor)
    source = "support" if actor in (b.attacker, b.defender) else f"support_s{actor}"
    for card in cards:
        p.hand.remove(card)
        b.table.append([actor, card])
        b.mods[side].append([source, int(tx.c.cards[card].value or 0)])
    b.support_passes = 0
    b.support_turn = (b.support_turn + 1) % len(b.support_order)
    tx.emit(
        "support_played",
        seat=actor,
        cards=list(action.cards),
        values=[int(tx.c.cards[c].value or 0) for c in cards],
        scores=[combat_score(s, b, 0), combat_score(s, b, 1)],
    )


def _h_pass_support(tx: Tx, actor: int, action: A.Action) -> None:
    s = tx.s
    b = _support_turn_of(s, actor)
    b = tx.b()
    b.support_passes += 1
    b.support_turn = (b.support_turn + 1) % len(b.support_order)
    tx.emit("support_passed", seat=actor)


def _choice_for(state: GameState, actor: int, kind: str) -> Choice:
    ch = state.choice
    if ch is None or state.window is not None or ch.kind != kind:
        raise IllegalAction(ErrorCode.WRONG_PHASE, phase=current_phase(state))
    if ch.seat != actor:
        raise IllegalAction(ErrorCode.NOT_YOUR_DECISION)
    return ch


def _resume(tx: Tx, ch: Choice) -> None:
    tx.s.choice = None
    if ch.resume == "window" and tx.s.battle is None:
        tx.next_serial()


def _h_discard_choice(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.DiscardChoice)
    ch = _choice_for(tx.s, actor, "may_discard")
    card = None if action.card is None else _hand_card(tx.s, actor, action.card)
    _resume(tx, ch)
    if card is None:
        tx.emit("discard_declined", seat=actor, reason=ch.source)
    else:
        _discard_from_hand(tx, actor, card, ch.source)


def _h_insight_order(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.InsightOrder)
    ch = _choice_for(tx.s, actor, "insight_order")
    order: list[int] = []
    for cid in action.order:
        parsed = A.parse_card_id(cid)
        if parsed is None or parsed[0] != actor:
            raise IllegalAction(ErrorCode.BAD_ORDER, card=cid)
        order.append(parsed[1])
    if sorted(order) != sorted(ch.cards):
        raise IllegalAction(ErrorCode.BAD_ORDER, rule="R41")
    _resume(tx, ch)
    p = tx.p(actor)
    k = len(order)
    p.deck = p.deck[: len(p.deck) - k] + order[::-1]
    tx.emit("insight_done", seat=actor, cards=k)


def _h_prosperity(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.ProsperityChoice)
    ch = _choice_for(tx.s, actor, "prosperity")
    _resume(tx, ch)
    if action.discard:
        p = tx.p(ch.target)
        card = p.deck.pop()
        _discard(tx, ch.target, card)
        tx.emit(
            "discard",
            seat=ch.target,
            card=A.card_id(ch.target, card),
            name=tx.c.cards[card].name,
            reason="prosperity",
        )
    else:
        tx.emit("prosperity_kept", seat=actor, target=ch.target)


def _h_fear(tx: Tx, actor: int, action: A.Action) -> None:
    assert isinstance(action, A.FearChoice)
    ch = _choice_for(tx.s, actor, "fear")
    _resume(tx, ch)
    b = tx.b()
    side = b.side(actor)
    if action.use:
        b.substitute[side] = _rival_real(tx.s, b, side)
    tx.emit("fear_choice", seat=actor, ability=ch.source, used=action.use, knights=b.substitute[side])


_HANDLERS: dict[type[A.Action], Any] = {
    A.CallToArms: _h_call_to_arms,
    A.TacticalAdvance: _h_tactical_advance,
    A.Fracture: _h_fracture,
    A.UseCrown: _h_use_crown,
    A.Redistribute: _h_redistribute,
    A.Advance: _h_advance,
    A.DeclineAdvance: _h_decline_advance,
    A.FinishRedistribution: _h_finish_redistribution,
    A.EndTurn: _h_end_turn,
    A.Respond: _h_respond,
    A.ChooseConflict: _h_choose_conflict,
    A.PlaySupport: _h_play_support,
    A.PassSupport: _h_pass_support,
    A.DiscardChoice: _h_discard_choice,
    A.InsightOrder: _h_insight_order,
    A.ProsperityChoice: _h_prosperity,
    A.FearChoice: _h_fear,
}
