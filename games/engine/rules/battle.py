"""Battle (R59–R81, R84–R85, R110, R113–R114, R119–R120): the order of battle as a table of named steps
(:data:`ORDER_OF_BATTLE`), combat scores, and the battle's action families: conflict cards, support
cards and the Fear / Vigour choice.

Each step function takes the transaction and the (private) battle, sets ``battle.stage`` to the stage to
run next and returns ``False`` when the battle now waits for a decision.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import actions as A
from ..errors import ErrorCode, IllegalAction
from ..kinds import EventType, Phase, PromptKind, Stage
from ..state import NO_CARD, UNCHOSEN, Battle, Choice, GameState, Window
from .conquest import conquer
from .core import (
    Tx,
    artefact_owner,
    choice_for,
    current_phase,
    edition,
    hand_card,
    not_your_decision,
    option,
    resume,
    teammates,
    wrong_phase,
)
from .resources import discard, draw, gain, random_discard
from .victory import check_victory, cut_throat, victory_points
from .windows import open_window

# -- Combat scores (R60, R67, R113) ---------------------------------------------------------------------


def knight_part(state: GameState, b: Battle, side: int) -> int:
    """Knight part of a side's combat score, in knights (side 0 = attacker, 1 = defender) (R60, R67,
    R113): frozen at the result, substituted by Fear/Vigour or Castle Siege, or the real knights."""
    if b.frozen[side] >= 0:
        return b.frozen[side]
    if b.substitute[side] >= 0:
        return b.substitute[side]
    if side == 0:
        return b.att_knights
    return state.knights[b.pos]


def combat_score(state: GameState, b: Battle, side: int) -> int:
    """Combat score of side 0 (attacker) or 1 (defender): knight part plus modifiers (R60)."""
    return knight_part(state, b, side) + sum(int(m[1]) for m in b.mods[side])


def _scores(state: GameState, b: Battle) -> list[int]:
    return [combat_score(state, b, 0), combat_score(state, b, 1)]


def rival_knights(state: GameState, b: Battle, side: int) -> int:
    """Real knight count of the *other* side, in knights, for Fear/Vigour (R67, Q3); a castle defender
    counts 8 (R113)."""
    if side == 1:
        return b.att_knights
    if b.castle:
        return state.content.n("siege_defender_knights")
    return state.knights[b.pos]


def _defender_knights(state: GameState, b: Battle) -> int:
    return state.players[b.defender].castle if b.castle else state.knights[b.pos]


# -- Starting a battle and the helpers of its steps --------------------------------------------------------


def start_battle(tx: Tx, attacker: int, pos: int, knights: int) -> None:
    """Start a battle of ``attacker`` advancing ``knights`` knights into ``pos`` (R59; a castle under
    Castle Siege defends with 8 knights, R113). The steps run from :func:`battle_step`."""
    s = tx.s
    is_castle = s.board.kinds[pos] == "castle"
    defender = s.board.castle_of_seat.index(pos) if is_castle else s.owner[pos]
    b = Battle(attacker, defender, pos, is_castle, Stage.START, knights, serial=tx.next_serial())
    if is_castle:
        b.substitute[1] = tx.c.n("siege_defender_knights")  # R113
    tx.new_battle(b)
    tx.emit(
        EventType.BATTLE_STARTED,
        attacker=attacker,
        defender=defender,
        pos=s.board.pos_id(pos),
        knights=knights,
    )


def _artefacts_of_kind(state: GameState, b: Battle, kind: str) -> list[str]:
    """Every face-up sceptre/orb (``kind``) of the two players in battle ``b``, attacker's first: the
    targets of the window of step 3 or 7 (R64, R74 as corrected by issue 14: "play a fracture card on one of
    the sceptres belonging to the players involved in the battle"), whether or not it is about to apply."""
    out: list[str] = []
    for seat in (b.attacker, b.defender):
        out.extend(
            art.id
            for art in state.players[seat].artefacts
            if art.face_up and state.content.artefacts[art.id].type == kind
        )
    return out


def _artefacts_applying(state: GameState, b: Battle, kind: str) -> list[str]:
    """Face-up sceptres/orbs of the involved players that are about to apply, attacker's first (Q7, Q10):
    a "when attacking"/"when defending" sceptre on its side, the winner's "win" and the loser's "lose" orb."""
    out: list[str] = []
    for art_id in _artefacts_of_kind(state, b, kind):
        owner = b.attacker if state.players[b.attacker].artefact(art_id) is not None else b.defender
        if kind == "sceptre":
            wanted = "attacking" if owner == b.attacker else "defending"
        else:
            wanted = "win" if owner == b.winner else "lose"
        if state.content.artefacts[art_id].trigger == wanted:
            out.append(art_id)
    return out


def _lose_in_dispute(tx: Tx, b: Battle, seat: int, count: int, reason: str) -> None:
    """``seat`` loses up to ``count`` knights from its side of the dispute (R17, R76)."""
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
    tx.emit(EventType.KNIGHTS_LOST, seat=seat, pos=s.board.pos_id(b.pos), knights=lost, reason=reason)


def _end_battle_over(tx: Tx, b: Battle) -> None:
    """The game ended inside a battle (R103: nothing further is resolved): the played cards still go to
    their discard piles so every card stays accounted for, and nothing is in dispute any more."""
    for seat, card in b.table:
        discard(tx, seat, card)
    b.table = []
    tx.s.battle = None


def artefact_window_closed(tx: Tx, window: Window, survivors: list[str]) -> None:
    """After the sceptre or orb window (R64, R74): the surviving artefacts that are about to apply (a
    "when attacking" sceptre of the attacker, the winner's "when you win" orb, …) apply in order."""
    b = tx.b()
    applying = set(_artefacts_applying(tx.s, b, window.kind))
    b.queue = [t for t in survivors if t in applying]  # the event keeps its own list
    b.stage = Stage.SCEPTRES if window.kind == "sceptre" else Stage.ORBS


# -- The order of battle -------------------------------------------------------------------------------


def _step_start(tx: Tx, b: Battle) -> bool:
    """Step 1 (R62, R84, R85): terrain bonuses and the Arena's dice."""
    s, c = tx.s, tx.c
    b.stage = Stage.DRAW
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
            tx.emit(EventType.ARENA, rolls=rolls, attacker_lost=lose[0], defender_lost=lose[1])
            for side, seat in enumerate((b.attacker, b.defender)):
                if lose[side]:
                    _lose_in_dispute(tx, b, seat, losses, "arena")
            if b.att_knights == 0 or s.knights[b.pos] == 0:  # R85, Q4
                b.stage = Stage.CLEANUP
    tx.emit(EventType.BATTLE_STEP, step=1, scores=_scores(s, b))
    return True


def _step_draw(tx: Tx, b: Battle) -> bool:
    """Step 2 (R63): both sides draw up to the battle hand size."""
    for seat in (b.attacker, b.defender):
        draw(tx, seat, 0, target=tx.c.n("battle_draw"))
    b.stage = Stage.SCEPTRE_WINDOW
    return True


def _artefact_window(tx: Tx, b: Battle, kind: str, next_stage: Stage) -> bool:
    """A response window on every face-up artefact of ``kind`` (``"sceptre"`` or ``"orb"``) of the two
    players in the battle (R64, R74); without any, the queue is empty. The battle goes on at
    ``next_stage``, where the survivors that are about to apply apply (:func:`artefact_window_closed`)."""
    # Rules edition 1 offered only the artefacts about to apply.
    of_kind = _artefacts_of_kind if edition(tx.s) >= 2 else _artefacts_applying
    targets = of_kind(tx.s, b, kind)
    b.stage = next_stage
    if targets:
        open_window(tx, kind, b.attacker, targets)
    else:
        b.queue = []
    return True


def _step_sceptre_window(tx: Tx, b: Battle) -> bool:
    """Step 3 (R64): a response window before the applying sceptres."""
    return _artefact_window(tx, b, "sceptre", Stage.SCEPTRES)


def _step_sceptres(tx: Tx, b: Battle) -> bool:
    """R65–R67: apply the surviving sceptres one by one, then set up the conflict choice (R68)."""
    s, c = tx.s, tx.c
    if not b.queue:
        b.stage = Stage.CONFLICT
        b.serial = tx.next_serial()
        for side, seat in enumerate((b.attacker, b.defender)):
            if not holds_conflict_card(s, seat):
                b.conflict[side] = NO_CARD
        tx.emit(EventType.BATTLE_STEP, step=3, scores=_scores(s, b))
        return True
    art_id = b.queue.pop(0)
    owner = artefact_owner(s, art_id)
    side = b.side(owner)
    rival = b.defender if side == 0 else b.attacker
    ability = c.artefacts[art_id].ability
    tx.emit(EventType.ARTEFACT_APPLIED, artefact=art_id, owner=owner)
    if ability in ("rage", "loyalty"):
        b.mods[side].append([ability, c.n(f"{ability}_bonus")])
    elif ability in ("influence", "defiance"):
        random_discard(tx, rival, ability)
    elif ability in ("fear", "vigour"):
        s.choice = Choice(owner, PromptKind.FEAR, ability, "battle", serial=tx.next_serial())
        return False
    return True


def _step_conflict(tx: Tx, b: Battle) -> bool:
    """Step 4 (R68, R3): once both conflict cards are chosen, reveal them (Ambush rolls a d6)."""
    if UNCHOSEN in b.conflict:
        return False
    for side in (0, 1):
        card = b.conflict[side]
        if card == NO_CARD:
            value = 0
        else:
            cdef = tx.c.cards[card]
            value = tx.d6() if cdef.ambush else int(cdef.value or 0)
        b.conflict_values[side] = value
        b.mods[side].append(["conflict", value])
    b.revealed = True
    tx.emit(
        EventType.CONFLICT_REVEALED,
        cards=[
            None if x == NO_CARD else A.card_id(seat, x)
            for x, seat in zip(b.conflict, (b.attacker, b.defender), strict=True)
        ],
        values=list(b.conflict_values),
        scores=_scores(tx.s, b),
    )
    b.stage = Stage.SUPPORT_START
    return True


def support_forbidden(state: GameState, b: Battle) -> bool:
    """Whether no support card may be played in battle ``b``: Mountains (R71, ``no_support`` in the
    content); a castle has no territory abilities (R113)."""
    return not b.castle and state.content.territory_types[state.tiles[b.pos]].no_support


def check_support_allowed(state: GameState) -> None:
    """Check that support cards may be played in the running battle (R71, :func:`support_forbidden`).

    Raises:
        IllegalAction: ``SUPPORT_FORBIDDEN`` in a battle for the Mountains.
    """
    if state.battle is not None and support_forbidden(state, state.battle):
        raise IllegalAction(ErrorCode.SUPPORT_FORBIDDEN, rule="R71")


def _step_support_start(tx: Tx, b: Battle) -> bool:
    """Step 5 (R69–R72, R110): the losing side supports first; teammates join (no support on R87 tiles)."""
    s = tx.s
    b.stage = Stage.RESULT
    if not support_forbidden(s, b):
        a, d = combat_score(s, b, 0), combat_score(s, b, 1)
        first = b.defender if d < a else b.attacker
        eligible = {b.attacker, b.defender, *teammates(s, b.attacker), *teammates(s, b.defender)}
        order = [(first + k) % s.num_players for k in range(s.num_players)]
        b.support_order = [seat for seat in order if seat in eligible]
        b.support_turn = 0
        b.support_passes = 0
        b.stage = Stage.SUPPORT
        b.serial = tx.next_serial()
    return True


def _step_support(tx: Tx, b: Battle) -> bool:
    """R70: wait for the seat whose support turn it is; seats without support cards pass at once; the
    alternation ends when everyone passed in a row or nobody has support cards."""
    s = tx.s
    support_cards = [
        any(tx.c.cards[x].kind == "support" for x in s.players[seat].hand) for seat in b.support_order
    ]
    while True:
        if b.support_passes >= len(b.support_order) or not any(support_cards):
            b.stage = Stage.RESULT
            tx.emit(EventType.BATTLE_STEP, step=5, scores=_scores(s, b))
            return True
        if support_cards[b.support_turn]:
            return False
        b.support_passes += 1  # a seat without support cards passes at once (R70)
        b.support_turn = (b.support_turn + 1) % len(b.support_order)


def _step_result(tx: Tx, b: Battle) -> bool:
    """Step 6 (R73): freeze the knight parts; the higher score wins, a tie goes to the defender."""
    s = tx.s
    b.frozen = [knight_part(s, b, 0), knight_part(s, b, 1)]
    a, d = combat_score(s, b, 0), combat_score(s, b, 1)
    if a > d:
        b.winner, b.margin = b.attacker, a - d
    else:
        b.winner, b.margin = b.defender, max(d - a, 1)
    tx.emit(EventType.BATTLE_RESULT, scores=[a, d], winner=b.winner, margin=b.margin)
    b.stage = Stage.MAYHEM if option(s, "mayhem") else Stage.ORB_WINDOW
    return True


def _step_mayhem(tx: Tx, b: Battle) -> bool:
    """Mayhem (R119, R120, Q18, Q27): the winner rolls a die per knight and loses the ones; a winner left
    with none loses the battle (or, with nobody left, the battle ends at once)."""
    s = tx.s
    b.stage = Stage.ORB_WINDOW
    winner = b.winner
    before = b.att_knights if winner == b.attacker else _defender_knights(s, b)
    rolls = [tx.d6() for _ in range(before)]
    ones = rolls.count(1)
    if ones:
        _lose_in_dispute(tx, b, winner, ones, "mayhem")
    tx.emit(EventType.MAYHEM, seat=winner, rolls=rolls, lost=ones)
    if before > 0 and before - ones == 0:
        loser = b.defender if winner == b.attacker else b.attacker
        loser_left = b.att_knights if loser == b.attacker else _defender_knights(s, b)
        if loser_left == 0 and not b.castle:
            b.winner = -1
            b.stage = Stage.CLEANUP  # nobody left: the battle ends at once (R119, R81)
            return True
        b.winner = loser
        b.flipped = True
        tx.emit(EventType.MAYHEM_FLIP, winner=loser)
    return True


def _step_orb_window(tx: Tx, b: Battle) -> bool:
    """Step 7 (R74): a response window before the applying orbs."""
    return _artefact_window(tx, b, "orb", Stage.ORBS)


def _step_orbs(tx: Tx, b: Battle) -> bool:
    """R75: apply the surviving orbs one by one (after a Mayhem flip the losses step is skipped)."""
    s, c = tx.s, tx.c
    if not b.queue:
        b.stage = Stage.CONQUEST if b.flipped else Stage.LOSSES
        return True
    art_id = b.queue.pop(0)
    owner = artefact_owner(s, art_id)
    rival = b.defender if owner == b.attacker else b.attacker
    ability = c.artefacts[art_id].ability
    tx.emit(EventType.ARTEFACT_APPLIED, artefact=art_id, owner=owner)
    if ability == "brutality":
        _lose_in_dispute(tx, b, rival, c.n("brutality_losses"), "brutality")
    elif ability in ("greed", "resurgence"):
        draw(tx, owner, 0, target=c.n("greed_draw"))
    elif ability == "devotion":
        gain(tx, owner, c.n("devotion_knights"), "devotion")
    elif ability in ("preparation", "cleansing") and s.players[owner].hand:
        s.choice = Choice(owner, PromptKind.MAY_DISCARD, ability, "battle", serial=tx.next_serial())
        return False
    return True


def _step_losses(tx: Tx, b: Battle) -> bool:
    """Step 8 (R76, R77): the loser loses the margin in knights and its survivors retreat to its castle."""
    s = tx.s
    loser = b.defender if b.winner == b.attacker else b.attacker
    _lose_in_dispute(tx, b, loser, b.margin, "battle")
    if loser == b.attacker:
        back = b.att_knights
        b.att_knights = 0
        tx.p(loser).castle += back
        tx.emit(EventType.RETREAT, seat=loser, knights=back)
    elif not b.castle:
        back = s.knights[b.pos]
        s.knights[b.pos] = 0
        s.owner[b.pos] = -1
        tx.p(loser).castle += back
        tx.emit(EventType.RETREAT, seat=loser, knights=back)
    b.stage = Stage.CONQUEST
    return True


def _step_conquest(tx: Tx, b: Battle) -> bool:
    """Step 9 (R78, R79, R114): a winning attacker with knights left conquers; a castle wins the game."""
    s = tx.s
    b.stage = Stage.CLEANUP
    if b.winner != b.attacker or b.att_knights <= 0:
        return True
    if b.castle:  # R114: conquering a castle wins the game
        tx.p(b.attacker).castle += b.att_knights
        b.att_knights = 0
        _end_battle_over(tx, b)
        s.winners = [b.attacker]
        s.phase = Phase.OVER
        tx.emit(EventType.CASTLE_CONQUERED, seat=b.attacker, owner=b.defender)
        tx.emit(EventType.GAME_OVER, winners=[b.attacker], vp=victory_points(s))
        return True
    s.owner[b.pos] = b.attacker
    s.knights[b.pos] = b.att_knights
    b.att_knights = 0
    s.battle = None  # the territory stops being in dispute before the victory check (Q14)
    conquer(tx, b.attacker, b.pos, resume="battle")
    if s.winners:
        _end_battle_over(tx, b)
        return True
    s.battle = b
    return True


def _step_cleanup(tx: Tx, b: Battle) -> bool:
    """R80–R81: discard the cards on the table, end the dispute, settle control, recompute supply."""
    s = tx.s
    for seat, card in b.table:
        discard(tx, seat, card)
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
    tx.emit(EventType.BATTLE_ENDED, pos=s.board.pos_id(b.pos))
    cut_throat(tx)
    if not check_victory(tx):
        s.phase = Phase.WINDOW
        tx.next_serial()
    return True


Step = Callable[[Tx, Battle], bool]

#: The order of battle (R61): ``(stage name, step)`` in rulebook order. ``Battle.stage`` names the step
#: to run next; a step may jump (an Arena wipe-out goes to ``cleanup``, a Mayhem flip skips ``losses``).
ORDER_OF_BATTLE: tuple[tuple[Stage, Step], ...] = (
    (Stage.START, _step_start),
    (Stage.DRAW, _step_draw),
    (Stage.SCEPTRE_WINDOW, _step_sceptre_window),
    (Stage.SCEPTRES, _step_sceptres),
    (Stage.CONFLICT, _step_conflict),
    (Stage.SUPPORT_START, _step_support_start),
    (Stage.SUPPORT, _step_support),
    (Stage.RESULT, _step_result),
    (Stage.MAYHEM, _step_mayhem),
    (Stage.ORB_WINDOW, _step_orb_window),
    (Stage.ORBS, _step_orbs),
    (Stage.LOSSES, _step_losses),
    (Stage.CONQUEST, _step_conquest),
    (Stage.CLEANUP, _step_cleanup),
)

_STEPS: dict[Stage, Step] = dict(ORDER_OF_BATTLE)


def battle_step(tx: Tx) -> bool:
    """Run the next stage of the running battle (R61). Returns ``False`` when it waits for a decision."""
    b = tx.b()
    return _STEPS[b.stage](tx, b)


# -- Conflict cards (step 4, R68) ------------------------------------------------------------------------


def h_choose_conflict(tx: Tx, actor: int, action: A.Action) -> None:
    """Place a conflict card face down (battle step 4, R68).

    Raises:
        IllegalAction: no conflict choice open, not a side or already chosen, card not in hand, or not
            a conflict card (R68).
    """
    assert isinstance(action, A.ChooseConflict)
    s = tx.s
    b = s.battle
    if b is None or current_phase(s) != Phase.BATTLE or b.stage != Stage.CONFLICT:
        raise wrong_phase(s, Stage.CONFLICT)
    side = b.side(actor)
    if side < 0:
        raise not_your_decision(s, actor)
    if b.conflict[side] != UNCHOSEN:
        raise IllegalAction(ErrorCode.ALREADY_ANSWERED)
    card = hand_card(s, actor, action.card)
    if tx.c.cards[card].kind != "conflict":
        raise IllegalAction(ErrorCode.CARD_WRONG_KIND, card=action.card, rule="R68")
    b = tx.b()
    tx.p(actor).hand.remove(card)
    b.conflict[side] = card
    b.table.append([actor, card])
    tx.emit(EventType.CONFLICT_CHOSEN, seat=actor, private={actor: {"card": action.card}})


def conflict_options(state: GameState, seat: int) -> list[A.Action]:
    """Conflict cards ``seat`` may place now (R68); empty if it is not a side or has chosen."""
    b = state.battle
    assert b is not None
    side = b.side(seat)
    if side < 0 or b.conflict[side] != UNCHOSEN:
        return []
    cards = state.content.cards
    hand = sorted(set(state.players[seat].hand))
    return [A.ChooseConflict(A.card_id(seat, c)) for c in hand if cards[c].kind == "conflict"]


# -- Support cards (step 5, R69–R72, R110) -------------------------------------------------------------


def _support_turn_of(state: GameState, actor: int) -> Battle:
    """The running battle if it is ``actor``'s support turn (R69–R70, R110); else IllegalAction."""
    b = state.battle
    if b is None or current_phase(state) != Phase.BATTLE or b.stage != Stage.SUPPORT:
        raise wrong_phase(state, Stage.SUPPORT)
    if b.support_order[b.support_turn] != actor:
        raise not_your_decision(state, actor)
    return b


def h_play_support(tx: Tx, actor: int, action: A.Action) -> None:
    """Play one or more support cards on one's support turn; teammates support their side (R70, R110).

    Raises:
        IllegalAction: ``SUPPORT_FORBIDDEN`` in a battle over Mountains (R71); not the actor's support
            turn, duplicate cards, cards not in hand, or not support cards (R70).
    """
    assert isinstance(action, A.PlaySupport)
    s = tx.s
    check_support_allowed(s)
    b = _support_turn_of(s, actor)
    if len(set(action.cards)) != len(action.cards):
        raise IllegalAction(ErrorCode.BAD_CHOICE)
    cards = [hand_card(s, actor, cid) for cid in action.cards]
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
        EventType.SUPPORT_PLAYED,
        seat=actor,
        cards=list(action.cards),
        values=[int(tx.c.cards[c].value or 0) for c in cards],
        scores=_scores(s, b),
    )


def h_pass_support(tx: Tx, actor: int, action: A.Action) -> None:
    """Pass one's support turn (R70).

    Raises:
        IllegalAction: not the actor's support turn.
    """
    _support_turn_of(tx.s, actor)
    b = tx.b()
    b.support_passes += 1
    b.support_turn = (b.support_turn + 1) % len(b.support_order)
    tx.emit(EventType.SUPPORT_PASSED, seat=actor)


def support_options(state: GameState, seat: int) -> list[A.Action]:
    """Pass, or every distinct multiset of support values ``seat`` may play at once (R70); empty when
    it is not ``seat``'s support turn."""
    b = state.battle
    assert b is not None
    if b.support_order[b.support_turn] != seat:
        return []
    cards = state.content.cards
    by_value: dict[int, list[int]] = {}
    for c in state.players[seat].hand:
        if cards[c].kind == "support":
            by_value.setdefault(int(cards[c].value or 0), []).append(c)
    combos: list[list[int]] = [[]]
    for _value, group in sorted(by_value.items()):
        combos = [combo + group[:k] for combo in combos for k in range(len(group) + 1)]
    out: list[A.Action] = [A.PassSupport()]
    out.extend(A.PlaySupport(tuple(A.card_id(seat, c) for c in combo)) for combo in combos if combo)
    return out


# -- Fear / Vigour (R67, Q3) -----------------------------------------------------------------------------


def h_fear(tx: Tx, actor: int, action: A.Action) -> None:
    """Sceptre of Fear / Vigour: use the rival's real knight count as one's knight part, or not (R67, Q3).

    Raises:
        IllegalAction: no Fear/Vigour choice for ``actor``.
    """
    assert isinstance(action, A.FearChoice)
    ch = choice_for(tx.s, actor, PromptKind.FEAR)
    resume(tx, ch)
    b = tx.b()
    side = b.side(actor)
    if action.use:
        b.substitute[side] = rival_knights(tx.s, b, side)
    tx.emit(EventType.FEAR_CHOICE, seat=actor, ability=ch.source, used=action.use, knights=b.substitute[side])


def fear_options(state: GameState, seat: int) -> list[A.Action]:
    """Answers to a Fear / Vigour choice: do not use, or use (R67)."""
    return [A.FearChoice(False), A.FearChoice(True)]


def fear_changes_nothing(state: GameState, seat: int) -> bool:
    """Whether ``seat``'s pending Fear / Vigour choice (R67, Q3) leads to the same combat score either way:
    the rival's real knight count equals the owner's knight part now (issue 29: such a prompt is answered
    by the server, "do not use"). ``False`` when no such choice is pending."""
    ch = state.choice
    b = state.battle
    if ch is None or b is None or ch.kind != PromptKind.FEAR or ch.seat != seat:
        return False
    side = b.side(seat)
    return rival_knights(state, b, side) == knight_part(state, b, side)


def holds_conflict_card(state: GameState, seat: int) -> bool:
    """Whether ``seat`` holds a conflict card (R68): a battle side without one plays none and counts a 0
    (step 4 asks it nothing)."""
    cards = state.content.cards
    return any(cards[c].kind == "conflict" for c in state.players[seat].hand)


def single_conflict_card(state: GameState, seat: int) -> bool:
    """Whether every conflict card ``seat`` holds is the same card (R68: one kind to choose, so every
    answer leads to the same battle; issue 29). ``False`` with no conflict card (the battle then counts a 0
    without asking)."""
    cards = state.content.cards
    kinds = {cards[c].id for c in state.players[seat].hand if cards[c].kind == "conflict"}
    return len(kinds) == 1
