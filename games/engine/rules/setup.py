"""Setting up a game (R18–R25): the setup dict, the map, artefacts, decks, starting knights and hands."""

from __future__ import annotations

from typing import Any

from ..content import MAX_SETUP_INT, Board, Content, bounded_int
from ..errors import ContentError
from ..kinds import EventType, Phase
from ..rng import Rng
from ..state import SCHEMA_VERSION, Artefact, GameState, Player, content_and_board
from .core import (
    ADDED_OPTIONS,
    MAX_FRACTURE_MASK,
    OPTION_DEFAULTS,
    OPTION_FLAGS,
    RULES_EDITION,
    Tx,
    option,
)
from .resources import draw, gain
from .turn import start_turn


def normalize_setup(setup: dict[str, Any]) -> dict[str, Any]:
    """Return the canonical form of a setup dict (defaults filled in) or raise :class:`ContentError`.

    Keys: ``players`` (2..6, R1), ``seed`` (int), ``content`` (set name or inline dict), ``layout``
    (``None`` or an inline layout dict, R18), ``options`` (:data:`OPTION_DEFAULTS`, R105–R120), ``pin``
    (see ``docs/game-record.md``).

    Raises:
        ContentError: not an object, bad players/seed, unknown or invalid options (R105, Q28), bad pins,
            or a player count the content or layout does not support (R1).
    """
    if not isinstance(setup, dict):
        raise ContentError("setup must be an object")
    unknown = sorted(str(k) for k in setup if k not in SETUP_KEYS)
    if unknown:  # a misspelt key would silently set up another game (issue 14)
        raise ContentError(f"setup: unknown key {unknown[0]!r} (expected {', '.join(SETUP_KEYS)})")
    if "players" not in setup:
        raise ContentError("setup needs integer 'players' and 'seed'")
    players = bounded_int(setup["players"], 2, 6, "players")  # R1; never formatted into a path unchecked
    seed = bounded_int(setup.get("seed", 0), -MAX_SETUP_INT - 1, MAX_SETUP_INT, "seed")
    options = _normalize_options(setup.get("options") or {}, players)
    content = setup.get("content", "default")
    if not isinstance(content, str | dict):
        raise ContentError("content must be a content set's name or an inline object")
    layout = setup.get("layout")
    pin = _normalize_pin(setup.get("pin") or {}, players)
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


#: The keys of a setup (``docs/game-record.md`` §2).
SETUP_KEYS = ("players", "seed", "content", "layout", "options", "pin")

#: The keys of a setup's ``pin`` (everything random that a test or a record may fix).
PIN_KEYS = ("tiles", "artefacts", "decks", "first_player", "dice")


def _id_list(value: Any, what: str) -> list[str]:
    """A list of ASCII ids (``None`` is an empty list).

    Raises:
        ContentError: anything else, naming ``what``.
    """
    if value is None:
        return []
    if not isinstance(value, list) or not all(_ascii(v) for v in value):
        raise ContentError(f"{what} must be a list of ids")
    return list(value)


def _per_seat(value: Any, players: int, what: str) -> list[list[str]]:
    """A per-seat pin (``pin.artefacts``, ``pin.decks``): a list of at most ``players`` id lists."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > players:
        raise ContentError(f"{what} must be a list with one list of ids per seat (at most {players})")
    for seat, ids in enumerate(value):
        if not isinstance(ids, list):  # a null seat would be an empty list here and crash the deal
            raise ContentError(f"{what}[{seat}] must be a list of ids")
    return [_id_list(ids, f"{what}[{seat}]") for seat, ids in enumerate(value)]


def _normalize_pin(pin: Any, players: int) -> dict[str, Any]:
    """Check the shape of a setup's ``pin`` (whether the pinned things exist is checked while dealing).

    Returns:
        A copy of the pin, unchanged.

    Raises:
        ContentError: not an object, an unknown (misspelt) key, or a value of the wrong shape.
    """
    if not isinstance(pin, dict):
        raise ContentError("pin must be an object")
    unknown = sorted(str(k) for k in pin if k not in PIN_KEYS)
    if unknown:
        raise ContentError(f"pin: unknown key {unknown[0]!r} (expected {', '.join(PIN_KEYS)})")
    tiles = pin.get("tiles")
    if tiles is not None and not (
        isinstance(tiles, dict) and all(_ascii(k) and _ascii(v) for k, v in tiles.items())
    ):
        raise ContentError("pin.tiles must map position ids to tile types")
    _per_seat(pin.get("artefacts"), players, "pin.artefacts")
    _per_seat(pin.get("decks"), players, "pin.decks")
    first = pin.get("first_player")
    if first is not None and not (type(first) is int and 0 <= first < players):
        raise ContentError(f"pin.first_player must be a seat number from 0 to {players - 1}")
    dice = pin.get("dice")
    if dice is not None and not (
        isinstance(dice, list) and all(type(d) is int and 1 <= d <= 6 for d in dice)
    ):
        raise ContentError("pin.dice must be a list of die results 1..6")
    return dict(pin)  # as given, so the canonical setup (and its hash) of a valid pin never changes


#: The faces of a d6 (check ``type(d) is int`` too: ``True == 1``, but it is not a die result).
_DIE_FACES = frozenset(range(1, 7))


def _ascii(value: Any) -> bool:
    """Whether ``value`` is a non-empty ASCII string (ids are ASCII only)."""
    return isinstance(value, str) and value.isascii() and bool(value)


def _normalize_options(raw_options: Any, players: int) -> dict[str, Any]:
    """Fill in and check the table options (:data:`OPTION_DEFAULTS`; Allegiance R105, Q28)."""
    options = dict(OPTION_DEFAULTS)
    if not isinstance(raw_options, dict):
        raise ContentError("options must be an object")
    for key, value in raw_options.items():
        if key not in OPTION_DEFAULTS and key not in ADDED_OPTIONS and key != "rules_edition":
            raise ContentError(f"unknown option {key!r}")
        options[key] = value
    for flag in OPTION_FLAGS:
        if not isinstance(options[flag], bool):
            raise ContentError(f"option {flag!r} must be true or false")
    edition = options.get("rules_edition", RULES_EDITION)  # none named: the current rules (issue 31)
    if isinstance(edition, bool) or not isinstance(edition, int) or not 1 <= edition <= RULES_EDITION:
        raise ContentError(f"rules_edition must be an integer from 1 to {RULES_EDITION}")
    options["rules_edition"] = edition  # always named: a stored setup says which rules it plays
    if options.get("fracture_windows", "sealed") not in ("sealed", "in_turn"):
        raise ContentError("fracture_windows must be 'sealed' or 'in_turn'")
    mask = options.get("fracture_mask", [0, 0])
    if (
        not isinstance(mask, list | tuple)
        or len(mask) != 2
        or any(isinstance(v, bool) or not isinstance(v, int) for v in mask)
        or not 0 <= mask[0] <= mask[1] <= MAX_FRACTURE_MASK
    ):
        raise ContentError(
            f"fracture_mask must be [low, high] seconds, 0 <= low <= high <= {MAX_FRACTURE_MASK}"
        )
    if "fracture_mask" in options:
        options["fracture_mask"] = [int(mask[0]), int(mask[1])]
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
    for key, absent in ADDED_OPTIONS.items():  # one canonical form: the legacy meaning is left out
        if key in options and options[key] == absent:
            del options[key]
    return options


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
    players = _make_players(content, setup, rng)
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
        phase=Phase.WINDOW,
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
    tx.emit(EventType.SETUP, players=n, options=setup["options"], content=content.id)
    _starting_knights(tx)
    for seat in range(n):  # R24: each player draws five
        draw(tx, seat, content.n("opening_hand"))
    _first_player(tx, pin.get("first_player"))
    start_turn(tx)
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
        tx.emit(
            EventType.STARTING_KNIGHTS, seat=p.seat, castle=tx.s.players[p.seat].castle, homelands=homelands
        )
        if option(s, "mayhem"):
            gain(tx, p.seat, c.n("mayhem_extra_knights"), "mayhem")


def _make_players(content: Content, setup: dict[str, Any], rng: Rng) -> list[Player]:
    """R20–R22, R106: the players with their artefacts, shuffled decks and Allegiance teams."""
    n = setup["players"]
    pin = setup["pin"]
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
    return players


def _first_player(tx: Tx, pinned: Any) -> None:
    """R25: a random first player (or the pinned one) becomes the active seat; announced."""
    n = tx.s.num_players
    first = pinned
    if first is None:
        first = tx.rng.below(n)
    elif not isinstance(first, int) or not 0 <= first < n:
        raise ContentError("pin.first_player must be a seat number")
    tx.emit(EventType.FIRST_PLAYER, seat=first)
    tx.s.active = first
