"""What a seat knows, and full states consistent with it (issue 17: bots never peek, by construction).

:func:`observe` turns a state into an :class:`Observation` for one seat: the state with everything that
seat may not know (R95) taken out and put in a canonical form, plus the counts it may know. Other seats'
hands and every deck become one sorted *pool* per player (the seat knows which cards a player has left,
not where they are), others' face-down conflict cards go back to their pool (R68), others' sealed window
answers are forgotten (R37, sealed mode), the Order card a rival's crown use names is dropped while its
window is open (R41, as ``view_for`` shows the window), cards another seat looks at (Insight, Prosperity)
are dropped, and the seed, the chance counter, pinned dice and the count of actions applied are zeroed
(future chance is unknown to everybody; how many actions led here is not part of the position). Two
states that differ only in what the seat cannot see give equal observations, so a bot that reads only the
observation decides the same in both.

:func:`sample` deals an observation back into a full state (a *determinisation*): each pool is shuffled
and split by the known hand and deck sizes, a hidden conflict card is drawn from its player's conflict
cards, a rival's hidden Order card is drawn from their eligible discards, what the seat itself looked at
stays where it saw it, and chance gets a fresh seed. The seat's own
view of every sample equals its view of the real state.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kinds import PromptKind, Stage
from ..rng import Rng
from ..rules.core import in_turn
from ..rules.crowns import order_candidates
from ..state import NO_CARD, UNCHOSEN, Battle, Choice, GameState, Player, Window, to_dict

#: ``Battle.conflict`` marker in an observation: another seat has chosen face down (card or no card).
HIDDEN = -3


@dataclass(frozen=True)
class Observation:
    """One seat's knowledge of a game (see the module docstring).

    Attributes:
        seat: the observing seat.
        public: the state with hidden parts canonicalised; never mutate it.
        hand_sizes: cards in each player's hand (R95: public counts).
        known_tops: per player, the cards the seat knows on top of that deck, top first (its own pending
            Insight or Prosperity look).
    """

    seat: int
    public: GameState
    hand_sizes: tuple[int, ...]
    known_tops: tuple[tuple[int, ...], ...]

    def key(self) -> dict[str, object]:
        """A JSON-safe form for comparing observations (tests) and seeding decisions."""
        return {
            "seat": self.seat,
            "public": to_dict(self.public),
            "hand_sizes": list(self.hand_sizes),
            "known_tops": [list(t) for t in self.known_tops],
        }


def observe(state: GameState, seat: int) -> Observation:
    """The :class:`Observation` of ``state`` for ``seat`` (0-based).

    Returns:
        An observation that depends only on what ``seat`` may know (R95).
    """
    s = state.shallow()
    players = [p.copy() for p in s.players]
    sizes = tuple(len(p.hand) for p in players)
    tops: list[tuple[int, ...]] = [() for _ in players]
    choice = s.choice
    if choice is not None and choice.seat == seat and choice.cards:
        target = choice.target if choice.kind == PromptKind.PROSPERITY else seat
        tops[target] = tuple(choice.cards)
    elif choice is not None and choice.cards:
        s.choice = _with_cards(choice, [])
    battle = s.battle
    if battle is not None and not battle.revealed:
        battle = battle.copy()
        for side, owner in enumerate((battle.attacker, battle.defender)):
            card = battle.conflict[side]
            if owner == seat or card == UNCHOSEN:
                continue
            if card != NO_CARD:  # back into its player's pool: the seat knows it left the hand, not which
                players[owner].deck.append(card)
                battle.table = [entry for entry in battle.table if entry != [owner, card]]
            battle.conflict[side] = HIDDEN
        s.battle = battle
    window = s.window
    if window is not None and not in_turn(s):
        window = window.copy()
        pairs = zip(window.asked, window.answers, strict=True)
        window.answers = [answer if asked == seat else None for asked, answer in pairs]
        s.window = window
    if window is not None and "card" in window.crown and window.opener != seat:
        window = window.copy()  # the Order card a rival chose stays theirs until the window closes
        window.crown = {k: v for k, v in window.crown.items() if k != "card"}
        s.window = window
    for p in players:
        if p.seat != seat:
            p.deck = sorted(p.deck + p.hand)
            p.hand = []
        else:
            p.deck = sorted(p.deck)
    s.players = players
    s.seed, s.rng_counter, s.dice_queue = 0, 0, []
    s.actions_applied = 0  # how many actions led here is no part of the position a seat sees
    s.setup = {k: v for k, v in s.setup.items() if k not in ("seed", "pin")} | {"seed": 0}
    return Observation(seat, s, sizes, tuple(tops))


def sample(obs: Observation, rng: Rng) -> GameState:
    """A full state consistent with ``obs`` (a determinisation), drawn with ``rng``.

    Returns:
        A new state: a hidden conflict card drawn from its player's conflict cards (no card if they have
        none left), then each player's cards dealt at random within their pool by the known hand sizes,
        known deck tops kept, and a new seed for chance.
    """
    s = obs.public.shallow()
    players: list[Player] = [p.copy() for p in s.players]
    battle = s.battle
    if battle is not None and HIDDEN in battle.conflict:
        s.battle = _deal_conflict(battle, players, s, rng)
    must_fight = _must_choose_conflict(s)
    for p in players:
        known = list(obs.known_tops[p.seat])
        pool = [c for c in p.deck if c not in known]
        rng.shuffle(pool)
        if p.seat != obs.seat:
            size = obs.hand_sizes[p.seat]
            p.hand, pool = pool[:size], pool[size:]
            if p.seat in must_fight:
                _hold_a_conflict_card(p.hand, pool, s, rng)
        p.deck = pool + known[::-1]  # a deck's top is its last element
    choice = s.choice
    if choice is not None and choice.seat != obs.seat:
        s.choice = _deal_look(choice, players, s)
    window = s.window
    if window is not None and window.crown.get("ability") == "order" and "card" not in window.crown:
        s.window = _deal_order_card(window, s, rng)
    s.players = players
    s.seed = rng.below(1 << 62)
    s.setup = {**s.setup, "seed": s.seed}
    return s


def _must_choose_conflict(state: GameState) -> set[int]:
    """Seats still to choose a conflict card in the battle's conflict step: they hold one (a player with
    none is set to "no card" when the step begins, R68)."""
    b = state.battle
    if b is None or b.stage != Stage.CONFLICT:
        return set()
    return {seat for side, seat in enumerate((b.attacker, b.defender)) if b.conflict[side] == UNCHOSEN}


def _hold_a_conflict_card(hand: list[int], pool: list[int], state: GameState, rng: Rng) -> None:
    """Swap a random card of ``hand`` for a conflict card of ``pool`` when the hand has none."""
    cards = state.content.cards
    if not hand or any(cards[c].kind == "conflict" for c in hand):
        return
    options = [i for i, c in enumerate(pool) if cards[c].kind == "conflict"]
    if options:
        i, j = options[rng.below(len(options))], rng.below(len(hand))
        hand[j], pool[i] = pool[i], hand[j]


def _deal_conflict(battle: Battle, players: list[Player], state: GameState, rng: Rng) -> Battle:
    """Put a face-down conflict card back on the table for each hidden side, drawn from its player's pool's
    conflict cards (none left: the player played no card, R68)."""
    battle = battle.copy()
    cards = state.content.cards
    for side, owner in enumerate((battle.attacker, battle.defender)):
        if battle.conflict[side] != HIDDEN:
            continue
        pool = players[owner].deck
        options = sorted(c for c in pool if cards[c].kind == "conflict")
        if not options:
            battle.conflict[side] = NO_CARD
            continue
        card = options[rng.below(len(options))]
        pool.remove(card)
        battle.conflict[side] = card
        battle.table.append([owner, card])
    return battle


def _deal_look(choice: Choice, players: list[Player], state: GameState) -> Choice:
    """Another seat's pending look (Insight, Prosperity) shows the sampled deck's top cards."""
    if choice.kind == PromptKind.INSIGHT_ORDER:
        look = state.content.n("insight_look")
        return _with_cards(choice, players[choice.seat].deck[-look:][::-1])
    if choice.kind == PromptKind.PROSPERITY and choice.target >= 0 and players[choice.target].deck:
        return _with_cards(choice, [players[choice.target].deck[-1]])
    return choice


def _deal_order_card(window: Window, state: GameState, rng: Rng) -> Window:
    """A rival's Crown of Order use waiting in its window names one of their cards discarded on a previous
    turn (R41, R101); the observation does not say which, so one is drawn (none when there is none)."""
    candidates = order_candidates(state, window.opener)
    if not candidates:
        return window
    window = window.copy()
    window.crown = {**window.crown, "card": candidates[rng.below(len(candidates))]}
    return window


def _with_cards(choice: Choice, cards: list[int]) -> Choice:
    return Choice(choice.seat, choice.kind, choice.source, choice.resume, cards, choice.target, choice.serial)
