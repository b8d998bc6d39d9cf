"""What a seat knows, and full states consistent with it (issue 17: bots never peek, by construction).

:func:`observe` turns a state into an :class:`Observation` for one seat: the state with everything that
seat may not know taken out and put in a canonical form, plus the counts it may know. What the seat may
know has one home, :func:`games.engine.view_for` (R95): ``observe`` takes its visibility from view_for —
from :func:`games.engine.view.private_view`, the part of view_for's answer that depends on who looks, built
by the same code (view_for's public rest, the map, VP, piles and prompts, would cost a bot's *easy*
decision more than the decision itself) — and keeps a hidden piece only where the seat's view shows it:

* hands: the hand the view shows (``players[i]["hand"]``) stays; every other hand goes, with its deck,
  into one sorted *pool* per player (the seat knows which cards a player has left, not where they are);
* conflict cards (R68): a side's face-down card stays only if the view's battle side ``conflict`` shows
  its ``card``; otherwise it goes back to its player's pool and the side is marked :data:`HIDDEN`;
* window answers (R37): an answer stays only if the view's window lists it (``answers``: every answer of
  an in-turn lap, none in sealed mode);
* the Order card of a crown use (R41, R101): it stays only if the view's ``window["crown"]`` shows it;
* looked-at cards (Insight, Prosperity, R41): they stay only if the view's ``choice`` shows ``cards``.

Three exceptions, all the seat's own decisions, which the view does not repeat back to it but which the
seat made and so knows (and which :func:`sample` must keep for its samples to be the seat's real
position): its own sealed window answer (the view says only ``answered``, R37), the Order card its own
crown use names (the view leaves the card out for everybody while the window is open, R41), and its own
"no card" conflict choice (the view shows ``chosen`` and no ``card``, R68).

Not in any view, hidden from everybody (observe's own rule): the order of every deck (decks are sorted),
the seed, the chance counter and pinned dice (zeroed: future chance is unknown to everybody), the setup's
seed and pins, and the count of actions applied (how many actions led here is not part of the position).

Two states that differ only in what the seat cannot see give equal observations, so a bot that reads only
the observation decides the same in both.

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
from ..rules.crowns import order_candidates
from ..state import NO_CARD, UNCHOSEN, Battle, Choice, GameState, Player, Window, to_dict
from ..view import private_view
from ..view_types import BattleView, WindowView

#: ``Battle.conflict`` marker in an observation: another seat has chosen face down (card or no card).
HIDDEN = -3


@dataclass(frozen=True)
class Observation:
    """One seat's knowledge of a game (see the module docstring).

    Attributes:
        seat: the observing seat.
        public: the state with hidden parts canonicalised; never mutate it.
        hand_sizes: cards in each player's hand (R95: public counts, the view's ``hand_size``).
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
    """The :class:`Observation` of ``state`` for ``seat`` (0-based), keeping only what
    ``view_for(state, seat)`` shows (read from ``private_view``, its viewer-dependent part; see the module
    docstring).

    Returns:
        An observation that depends only on what ``seat`` may know (R95).

    Raises:
        InvalidSeat: ``seat`` is not a seat of this game (as for ``view_for``).
    """
    view = private_view(state, seat)
    s = state.shallow()
    players = [p.copy() for p in s.players]
    sizes = tuple(len(p.hand) for p in players)  # public counts: the view's hand_size
    tops: list[tuple[int, ...]] = [() for _ in players]
    choice = s.choice
    if choice is not None and choice.cards:
        shown = view["choice"]
        if shown is not None and "cards" in shown:  # the seat's own look (R41)
            target = choice.target if choice.kind == PromptKind.PROSPERITY else choice.seat
            tops[target] = tuple(choice.cards)
        else:
            s.choice = _with_cards(choice, [])
    s.battle = _observed_battle(s.battle, view["battle"], players, seat)
    s.window = _observed_window(s.window, view["window"], seat)
    for p, hand in zip(players, view["hands"], strict=True):
        if hand is not None:
            p.deck = sorted(p.deck)  # deck order: in no view
        else:
            p.deck = sorted(p.deck + p.hand)
            p.hand = []
    s.players = players
    # not in any view, hidden from everybody: future chance and the count of actions applied
    s.seed, s.rng_counter, s.dice_queue = 0, 0, []
    s.actions_applied = 0
    s.setup = {k: v for k, v in s.setup.items() if k not in ("seed", "pin")} | {"seed": 0}
    return Observation(seat, s, sizes, tuple(tops))


def _observed_battle(
    battle: Battle | None, shown: BattleView | None, players: list[Player], seat: int
) -> Battle | None:
    """``battle`` with each face-down conflict card the view does not show (its side's ``conflict`` has no
    ``card``) put back into its player's pool and marked :data:`HIDDEN` (R68). The seat's own "no card"
    stays: the view shows no ``card`` for it, but the seat chose it."""
    if battle is None or shown is None:
        return battle
    out = battle
    for side, view_side in enumerate((shown["attacker"], shown["defender"])):
        owner, card = view_side["seat"], battle.conflict[side]
        if card == UNCHOSEN or "card" in view_side["conflict"] or owner == seat:
            continue
        if out is battle:
            out = battle.copy()
        if card != NO_CARD:  # back into its player's pool: the seat knows it left the hand, not which
            players[owner].deck.append(card)
            out.table = [entry for entry in out.table if entry != [owner, card]]
        out.conflict[side] = HIDDEN
    return out


def _observed_window(window: Window | None, shown: WindowView | None, seat: int) -> Window | None:
    """``window`` with the answers the view does not list forgotten (R37: sealed answers stay hidden until
    the close; an in-turn lap's answers are public) and a crown use's Order card dropped unless the view's
    ``crown`` shows it (R41). The seat's own answer and the card of its own crown use stay: the view does
    not repeat them back to the seat, but the seat gave them, and :func:`sample` must keep them."""
    if window is None or shown is None:
        return window
    listed = {answer["seat"] for answer in shown["answers"]} | {seat}
    answers = [a if asked in listed else None for asked, a in zip(window.asked, window.answers, strict=True)]
    crown = window.crown
    if "card" in crown and "card" not in shown.get("crown", {}) and window.opener != seat:
        crown = {k: v for k, v in crown.items() if k != "card"}
    if answers == window.answers and crown is window.crown:
        return window
    window = window.copy()
    window.answers, window.crown = answers, crown
    return window


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
