"""Conquest (R56, R78, R86): what happens when a player takes a territory, by advance or by battle."""

from __future__ import annotations

from ..kinds import EventType, PromptKind
from ..state import Choice
from .core import Tx
from .resources import gain
from .victory import check_victory, cut_throat


def conquer(tx: Tx, seat: int, pos: int, resume: str) -> None:
    """R56, R78, R86: ``seat`` conquers territory ``pos`` and applies its mandatory conquest abilities as
    one step (Q14, Q19), then Cut-throat (R116) and the victory check (R103); the optional discard follows
    unless the game is over, resuming ``resume`` (``"window"`` or ``"battle"``)."""
    s = tx.s
    ttype = tx.c.territory_types[s.tiles[pos]]
    tx.emit(EventType.CONQUERED, seat=seat, pos=s.board.pos_id(pos), tile=ttype.id)
    for ability in ttype.on_conquest:
        if ability == "place_knight":
            gain(tx, seat, tx.c.n("conquest_knights"), ttype.id)
        elif ability == "lose_knight":
            lost = min(s.knights[pos], tx.c.n("marshlands_losses"))
            s.knights[pos] -= lost
            tx.emit(EventType.KNIGHTS_LOST, seat=seat, pos=s.board.pos_id(pos), knights=lost, reason=ttype.id)
            if s.knights[pos] == 0:
                s.owner[pos] = -1
    cut_throat(tx)
    if check_victory(tx):
        return
    if "may_discard" in ttype.on_conquest and s.players[seat].hand:
        s.choice = Choice(seat, PromptKind.MAY_DISCARD, ttype.id, resume, serial=tx.next_serial())
