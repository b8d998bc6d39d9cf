"""The three bot levels (issue 17). Each decides from an :class:`~.observe.Observation` alone, with a
seeded :class:`~games.engine.rng.Rng`, so the same observation and seed give the same decision.

* :func:`easy`: one determinisation; every legal action scored by :func:`quick_score`, a handful of rules
  read from the rulebook (advance where the knights win and the VP are, keep cards for battles, play the
  best conflict card, support only when it can turn the battle), with some noise, so it is sensible but
  beatable. Also the playout policy of the other levels.
* :func:`normal`: the best few candidates by :func:`quick_score`, each played on a few determinisations
  through the current turn and its battles and the rivals' replies, with the rules of thumb for every
  seat, then scored by :func:`~.evaluate.value`; the best mean wins.
* :func:`hard`: determinised Monte Carlo search with UCB1 over the root candidates (information-set MCTS
  with one level of tree): each playout samples a full state consistent with the observation, plays the
  candidate and then every seat with the playout policy through the rivals' replies (at two players, one
  round further), and scores the result. The budget is in playouts, never seconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .. import actions as A
from ..prompts import legal_actions, pending
from ..rng import Rng
from ..rules import advance_targets, apply
from ..rules.battle import combat_score
from ..rules.core import teammates
from ..rules.quantities import capacity
from ..rules.victory import territory_vp, victory_points
from ..state import GameState
from .evaluate import value
from .observe import Observation, sample

#: Levels by name, as the site and the arena call them.
LEVELS = ("easy", "normal", "hard")
#: At most this many candidates are searched by normal and hard (the best by :func:`quick_score`).
NORMAL_CANDIDATES, NORMAL_SAMPLES = 4, 2
HARD_CANDIDATES, HARD_PLAYOUTS = 8, 96
#: Actions a playout may take before it is scored (a runaway guard).
PLAYOUT_ACTIONS = 160


#: A filter on the root decision's legal actions (a stand-in keeps some cards, issue 17).
Allowed = Callable[[A.Action], bool]


def decide(
    obs: Observation, level: str, seed: int, *, budget: int | None = None, allowed: Allowed | None = None
) -> A.Action:
    """The decision of a ``level`` bot for ``obs.seat``.

    Args:
        obs: what the seat knows (:func:`~.observe.observe`).
        level: ``"easy"``, ``"normal"`` or ``"hard"``.
        seed: the decision's seed (the site uses the game and the action number).
        budget: hard's playouts (default :data:`HARD_PLAYOUTS`); ignored by the other levels.
        allowed: only legal actions it accepts are chosen (all, when it accepts none).

    Returns:
        A legal action for ``obs.seat``.

    Raises:
        ValueError: an unknown level, or a seat with nothing to decide.
    """
    rng = Rng(seed)
    if level == "easy":
        return easy(obs, rng, allowed)
    if level == "normal":
        return normal(obs, rng, allowed)
    if level == "hard":
        return hard(obs, rng, HARD_PLAYOUTS if budget is None else budget, allowed)
    raise ValueError(f"unknown bot level {level!r}")


def easy(obs: Observation, rng: Rng, allowed: Allowed | None = None) -> A.Action:
    """The easy level: :func:`quick_choice` on one determinisation, with noise."""
    return quick_choice(sample(obs, rng), obs.seat, rng, noise=2.0, allowed=allowed)


def normal(obs: Observation, rng: Rng, allowed: Allowed | None = None) -> A.Action:
    """The normal level: the best candidates by :func:`quick_score`, each played on
    :data:`NORMAL_SAMPLES` determinisations to the end of this turn (with its battles) and of the rivals'
    replies (every seat's turn up to the seat's next), then scored; the best mean value wins."""
    states = [sample(obs, rng) for _ in range(NORMAL_SAMPLES)]
    candidates = _candidates(states[0], obs.seat, NORMAL_CANDIDATES, allowed)
    if len(candidates) == 1:
        return candidates[0]
    horizon = obs.public.turn + obs.public.num_players - 1
    best, best_value = candidates[0], -math.inf
    for action in candidates:
        total = 0.0
        for state in states:
            after = apply(state, obs.seat, action).state
            total += value(playout(after, rng, until=lambda s: s.turn > horizon), obs.seat)
        if total > best_value:
            best, best_value = action, total
    return best


def hard(obs: Observation, rng: Rng, playouts: int, allowed: Allowed | None = None) -> A.Action:
    """The hard level: UCB1 over the root candidates, each playout on a fresh determinisation, played
    through the rivals' replies (at two players, through the seat's own next turn too) and scored by
    :func:`~.evaluate.value`."""
    first = sample(obs, rng)
    candidates = _candidates(first, obs.seat, HARD_CANDIDATES, allowed)
    if len(candidates) == 1:
        return candidates[0]
    # to the end of the round, or of the next one at two players (measured: docs/performance.md)
    horizon = obs.public.turn + max(obs.public.num_players - 1, 2)
    stats = [_Arm() for _ in candidates]
    for n in range(max(playouts, len(candidates))):
        arm = n if n < len(candidates) else max(range(len(stats)), key=lambda i: stats[i].ucb(n))
        state = first if n == 0 else sample(obs, rng)
        after = apply(state, obs.seat, candidates[arm]).state
        stats[arm].add(value(playout(after, rng, until=lambda s: s.turn > horizon), obs.seat))
    best = max(range(len(stats)), key=lambda i: (stats[i].mean, -i))
    return candidates[best]


@dataclass
class _Arm:
    """Running mean of one root candidate's playout values, scaled for UCB1."""

    visits: int = 0
    total: float = 0.0

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else -math.inf

    def add(self, result: float) -> None:
        self.visits += 1
        self.total += result

    def ucb(self, n: int) -> float:
        # values are in VP tens; 30 is about three VP of exploration at equal counts
        return self.mean + 30.0 * math.sqrt(math.log(n + 1) / self.visits)


def playout(state: GameState, rng: Rng, until: Callable[[GameState], bool]) -> GameState:
    """Play every seat with the playout policy (:func:`quick_choice` without noise: chance comes from the
    determinisation and the dice) until ``until`` holds, the game ends or :data:`PLAYOUT_ACTIONS` actions
    were played."""
    for _ in range(PLAYOUT_ACTIONS):
        if state.winners or until(state):
            break
        prompts = pending(state)
        if not prompts:
            break
        seat = prompts[0].seat
        state = apply(state, seat, quick_choice(state, seat, rng, noise=0.0)).state
    return state


def _legal(state: GameState, seat: int, allowed: Allowed | None) -> list[A.Action]:
    """``seat``'s legal actions that ``allowed`` accepts (all of them when it accepts none).

    Raises:
        ValueError: ``seat`` has nothing to decide.
    """
    legal = legal_actions(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has nothing to decide")
    kept = [a for a in legal if allowed(a)] if allowed is not None else legal
    return kept or legal


def _candidates(state: GameState, seat: int, limit: int, allowed: Allowed | None) -> list[A.Action]:
    """The ``limit`` best legal actions of ``seat`` by :func:`quick_score`, varied: first the best of each
    kind of move (action type and target: one advance per territory, one redistribution, ending the turn…),
    then the next best overall. Ties keep the engine's order."""
    legal = _legal(state, seat, allowed)
    ranked = [
        a
        for _score, _i, a in sorted(
            ((quick_score(state, seat, a), -i, a) for i, a in enumerate(legal)),
            key=lambda t: (t[0], t[1]),
            reverse=True,
        )
    ]
    chosen: list[A.Action] = []
    kinds: set[tuple[str, str]] = set()
    for action in ranked:
        kind = (action.TYPE, str(action.to_dict().get("to", "")))
        if kind not in kinds:
            kinds.add(kind)
            chosen.append(action)
    chosen = chosen[:limit]
    for action in ranked:
        if len(chosen) >= limit:
            break
        if action not in chosen:
            chosen.append(action)
    return chosen


def _prune(state: GameState, legal: list[A.Action]) -> list[A.Action]:
    """The legal actions worth scoring: of the advances into one target, only 1–3 knights, the most
    allowed and four more than the defence (:func:`_advance` prefers one of those); everything else."""
    most: dict[str, int] = {}
    for a in legal:
        if isinstance(a, A.Advance):
            most[a.to] = max(most.get(a.to, 0), a.knights)
    if not most:
        return legal
    kept = []
    for a in legal:
        if isinstance(a, A.Advance):
            pos = state.board.parse_pos(a.to)
            defence = state.knights[pos] if pos is not None and state.owner[pos] >= 0 else 0
            if a.knights not in (1, 2, 3, most[a.to], defence + 4):
                continue
        kept.append(a)
    return kept


def quick_choice(
    state: GameState, seat: int, rng: Rng, noise: float, allowed: Allowed | None = None
) -> A.Action:
    """The legal action of ``seat`` (among those ``allowed`` accepts) with the best :func:`quick_score`
    plus uniform noise in ``[0, noise)``.

    Raises:
        ValueError: ``seat`` has nothing to decide.
    """
    legal = _prune(state, _legal(state, seat, allowed))
    leader = _leader(state, seat)
    best, best_score = legal[0], -math.inf
    for action in legal:
        score = quick_score(state, seat, action, leader) + (noise * rng.below(1000) / 1000 if noise else 0.0)
        if score > best_score:
            best, best_score = action, score
    return best


def quick_score(state: GameState, seat: int, action: A.Action, leader: int | None = None) -> float:
    """A rule-of-thumb score of ``action`` for ``seat`` (0 = ending the turn or passing; higher is better).

    Reads only what ``seat`` knows in ``state`` (its own hand, the map, the battle's public scores).
    ``leader`` is :func:`_leader` of the position when the caller already has it.
    """
    scorer = _SCORERS.get(type(action))
    if scorer is None:
        return 0.0
    return scorer(state, seat, action, _leader(state, seat) if leader is None else leader)


def _card_value(state: GameState, card_id: str) -> float:
    parsed = A.parse_card_id(card_id)
    if parsed is None:
        return 0.0
    card = state.content.cards[parsed[1]]
    return 3.5 if card.ambush else float(card.value or 0)


def _leader(state: GameState, seat: int) -> int:
    """The rival seat with the most VP (ties: the lowest seat)."""
    vp = victory_points(state)
    mates = {seat, *teammates(state, seat)}
    rivals = [s for s in range(state.num_players) if s not in mates]
    return max(rivals, key=lambda s: (vp[s], -s)) if rivals else -1


def _advance(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R52–R57: take VP where the knights sent win; a battle wants more knights than the defence."""
    assert isinstance(action, A.Advance)
    pos = state.board.parse_pos(action.to)
    if pos is None:
        return 0.0
    vp = territory_vp(state, pos) if state.board.kinds[pos] == "territory" else 8
    owner, defence, k = state.owner[pos], state.knights[pos], action.knights
    if owner < 0:
        hold = min(k, 3)
        return 3.0 * vp + 1.5 * hold - 0.4 * max(0, k - 3) - (2.0 if k == 1 else 0.0)
    margin = k - defence + 0.5 * len(state.players[seat].hand) - 0.5 * len(state.players[owner].hand)
    if margin <= 0:
        return -4.0 + margin
    bonus = 2.0 if owner == leader else 0.0
    return 3.0 * vp + 1.5 * min(margin, 4) + bonus - 0.2 * k - (0 if k <= capacity_or(state, pos) else 3)


def capacity_or(state: GameState, pos: int) -> int:
    """Capacity of a territory; castles hold any number (R12)."""
    return capacity(state, pos) if state.board.kinds[pos] == "territory" else 99


def _redistribute(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R43–R47: knights from the castle to a territory next to a rival are defence; otherwise keep them
    home for the advance."""
    assert isinstance(action, A.Redistribute)
    score = -0.5
    for move in action.moves:
        if move.dst == "castle":
            score += 0.1 * move.knights
            continue
        pos = state.board.parse_pos(move.dst)
        if pos is None:
            continue
        threatened = any(0 <= state.owner[n] != seat for n in state.board.adjacent[pos])
        score += (0.3 if threatened else -0.2) * move.knights
    return score


def _conflict(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R68: the strongest conflict card."""
    assert isinstance(action, A.ChooseConflict)
    return _card_value(state, action.card)


def _support(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R69–R72: support cards only when they can still decide the battle (own or a teammate's)."""
    assert isinstance(action, A.PlaySupport)
    battle = state.battle
    added = sum(_card_value(state, c) for c in action.cards)
    if battle is None:
        return -1.0
    att, dfn = combat_score(state, battle, 0), combat_score(state, battle, 1)
    mine = {seat, *teammates(state, seat)}
    side_att = battle.attacker in mine
    if not side_att and battle.defender not in mine:
        return -1.0
    gap = (dfn - att) if side_att else (att - dfn)
    if gap < 0 or gap >= added + 2:
        return -1.0 * len(action.cards)  # already winning, or cannot catch up
    return 2.0 + added - 0.7 * len(action.cards)


def _respond(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R36–R37: a Fracture in a window only against a rival's artefact that matters now."""
    assert isinstance(action, A.Respond)
    if not action.fracture:
        return 0.0
    window = state.window
    if window is not None and window.kind != "crown" and state.battle is not None:
        mine = {seat, *teammates(state, seat)}
        if state.battle.attacker in mine or state.battle.defender in mine:
            return 1.5
    return 0.5 if window is not None and window.opener == leader else -1.5


def _use_crown(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R39–R41: crowns help; aimed at the leader when they aim."""
    assert isinstance(action, A.UseCrown)
    if action.player is not None:
        return 2.5 if action.player == leader else (0.5 if action.player != seat else 1.0)
    return 1.5


def _fracture(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R36: outside a window, Fracture only on the leader's artefact (keep it for windows otherwise)."""
    assert isinstance(action, A.Fracture)
    for p in state.players:
        if p.artefact(action.target) is not None:
            return 0.3 if p.seat == leader else -2.0
    return -2.0


def _tactical(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R35: another manoeuvre is worth a card only when an advance would win something."""
    return 1.0 if advance_targets(state, seat) and state.players[seat].castle >= 3 else -1.0


def _fear(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R67, Q3: fight as though with the rival's knights when they are more."""
    assert isinstance(action, A.FearChoice)
    battle = state.battle
    if battle is None:
        return 0.0
    att = battle.att_knights
    dfn = state.knights[battle.pos]
    mine, theirs = (att, dfn) if battle.attacker == seat else (dfn, att)
    return (1.0 if theirs > mine else -1.0) * (1 if action.use else -1)


def _prosperity(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R41: discard a rival's good top card, keep one's own good card."""
    assert isinstance(action, A.ProsperityChoice)
    choice = state.choice
    if choice is None or not choice.cards:
        return 0.0
    good = state.content.cards[choice.cards[0]].kind != "resource"
    own = choice.target == seat or choice.target in teammates(state, seat)
    return (1.0 if good != own else -1.0) * (1 if action.discard else -1)


def _insight(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R41: the best conflict card on top (drawn first, R96)."""
    assert isinstance(action, A.InsightOrder)
    return _card_value(state, action.order[0]) if action.order else 0.0


def _discard(state: GameState, seat: int, action: A.Action, leader: int) -> float:
    """R102: keep the hand unless the card is a resource card that cannot be played now."""
    assert isinstance(action, A.DiscardChoice)
    return -1.0 if action.card is not None else 0.0


_SCORERS: dict[type[A.Action], Callable[[GameState, int, A.Action, int], float]] = {
    A.Advance: _advance,
    A.Redistribute: _redistribute,
    A.ChooseConflict: _conflict,
    A.PlaySupport: _support,
    A.Respond: _respond,
    A.UseCrown: _use_crown,
    A.Fracture: _fracture,
    A.TacticalAdvance: _tactical,
    A.FearChoice: _fear,
    A.ProsperityChoice: _prosperity,
    A.InsightOrder: _insight,
    A.DiscardChoice: _discard,
    A.CallToArms: lambda s, seat, a, leader: 4.0,
    A.DeclineAdvance: lambda s, seat, a, leader: 0.2,
    A.FinishRedistribution: lambda s, seat, a, leader: 0.0,
    A.EndTurn: lambda s, seat, a, leader: 0.0,
    A.PassSupport: lambda s, seat, a, leader: 0.0,
}

__all__ = ["LEVELS", "decide", "easy", "hard", "normal", "playout", "quick_choice", "quick_score"]
