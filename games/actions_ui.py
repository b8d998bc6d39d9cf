"""One place per action kind on the Django side (issue 13 "The house, rebuilt"): for every engine
:class:`~games.engine.ActionType`, the fields its decision form posts and how they parse, the sentence an
email says when a timeout took it, whether it closes a deadline (reliability), and the one-click email link
that takes it, if any.

The decision forms (:mod:`games.web.forms`, :mod:`games.web.presenters.decision`), the notification emails
(:mod:`games.notify`) and the reads (:mod:`games.selectors`) all read :data:`ACTION_KINDS` instead of
spelling action types. This module sits in the reads layer (next to :mod:`games.selectors`,
:mod:`games.log` and :mod:`games.messages`) so that each of them may import it; it imports only the engine
and Django's translation functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from games import engine
from games.engine import ActionType, PromptKind


class FormShape(StrEnum):
    """How the posted fields of a decision form become the engine action's fields
    (:func:`games.web.forms.decision_action` has one parser per shape)."""

    #: No field besides ``type``.
    PLAIN = "plain"
    #: Each field posts one string, copied stripped (``target``, ``card``).
    TEXT = "text"
    #: One repeated field posts a list of strings, blanks dropped (``cards``, ``order``).
    LIST = "list"
    #: One field posts yes/no (``true``/``1``/``yes``/``on`` or ``false``/``0``/``no``/``off``).
    BOOL = "bool"
    #: ``to`` and a whole number of ``knights``.
    MOVE = "move"
    #: ``from``, ``to`` and ``knights`` repeated once per move (rows left empty are skipped).
    MOVES = "moves"
    #: ``fracture`` repeated in rank order, blanks and repeats dropped.
    RANKED = "ranked"
    #: ``card``; empty means "keep my hand" (``None``).
    OPTIONAL_TEXT = "optional_text"
    #: ``corruption`` = ``"<player>:<artefact>"``, or ``player`` and/or ``artefact``; and ``card``.
    CROWN = "crown"


@dataclass(frozen=True, slots=True)
class EmailLink:
    """A signed one-click email link that takes one fixed engine action.

    Attributes:
        name: the link's name inside its signed token (``"pass"``, ``"end_turn"``, ``"pass_support"``);
            tokens already sent carry it, so it never changes.
        action: the engine action the link takes (parsed here, once: the link's edge).
        prompt_kinds: the prompt kinds the link answers; an email about another kind has no such link.
        label: the button text (translated lazily).
    """

    name: str
    action: engine.Action
    prompt_kinds: frozenset[PromptKind]
    label: Promise


@dataclass(frozen=True, slots=True)
class ActionKind:
    """What the Django side knows about one action type.

    Attributes:
        type: the engine's action type (the ``"type"`` tag of its payload).
        shape: how its decision form's fields parse (:class:`FormShape`).
        fields: the names of the form fields it posts besides ``type``, ``expected_seq`` and ``prompt_key``
            (empty for :attr:`FormShape.PLAIN`).
        timeout_text: the end of the sentence "the game went on without you: …" when a deadline's timeout
            applied this action (``None``: the generic :data:`DEFAULT_TIMEOUT_TEXT`).
        closes_deadline: whether taking it ends a decision's deadline (one per prompt: a turn ends with
            ``end_turn``; its advances and redistributions are steps of the same deadline). The
            reliability of a player profile counts these, except a response window's answer
            (:data:`games.selectors.PUBLIC_CLOSERS`: only a Fracture holder gives one).
        link: the one-click email link that takes it, or ``None``.
    """

    type: ActionType
    shape: FormShape = FormShape.PLAIN
    fields: tuple[str, ...] = ()
    timeout_text: Promise | None = None
    closes_deadline: bool = False
    link: EmailLink | None = None


#: Every action type, in the order the decision panel builds its forms (plain ones first).
ACTION_KINDS: Mapping[ActionType, ActionKind] = MappingProxyType(
    {
        kind.type: kind
        for kind in (
            ActionKind(
                ActionType.END_TURN,
                timeout_text=gettext_lazy("your turn was ended."),
                closes_deadline=True,
                link=EmailLink(
                    "end_turn",
                    engine.EndTurn(),
                    frozenset({PromptKind.TURN}),
                    gettext_lazy("End my turn"),
                ),
            ),
            ActionKind(ActionType.CALL_TO_ARMS),
            ActionKind(ActionType.TACTICAL_ADVANCE),
            ActionKind(ActionType.DECLINE_ADVANCE, timeout_text=gettext_lazy("your advance was skipped.")),
            ActionKind(
                ActionType.FINISH_REDISTRIBUTION,
                timeout_text=gettext_lazy("your redistribution was finished as it stood."),
            ),
            ActionKind(
                ActionType.PASS_SUPPORT,
                timeout_text=gettext_lazy("you passed your support move."),
                closes_deadline=True,
                link=EmailLink(
                    "pass_support",
                    engine.PassSupport(),
                    frozenset({PromptKind.SUPPORT}),
                    gettext_lazy("Pass my support move"),
                ),
            ),
            ActionKind(ActionType.FRACTURE, FormShape.TEXT, ("target",)),
            ActionKind(ActionType.USE_CROWN, FormShape.CROWN, ("corruption", "player", "artefact", "card")),
            ActionKind(ActionType.REDISTRIBUTE, FormShape.MOVES, ("from", "to", "knights")),
            ActionKind(ActionType.ADVANCE, FormShape.MOVE, ("to", "knights")),
            ActionKind(
                ActionType.RESPOND,
                FormShape.RANKED,
                ("fracture",),
                timeout_text=gettext_lazy("you passed the response window."),
                closes_deadline=True,
                link=EmailLink(
                    "pass",
                    engine.Respond(),
                    frozenset({PromptKind.RESPONSE}),
                    gettext_lazy("Pass this response window"),
                ),
            ),
            ActionKind(
                ActionType.CHOOSE_CONFLICT,
                FormShape.TEXT,
                ("card",),
                timeout_text=gettext_lazy("your lowest conflict card was placed."),
                closes_deadline=True,
            ),
            ActionKind(ActionType.PLAY_SUPPORT, FormShape.LIST, ("cards",), closes_deadline=True),
            ActionKind(ActionType.DISCARD_CHOICE, FormShape.OPTIONAL_TEXT, ("card",), closes_deadline=True),
            ActionKind(ActionType.INSIGHT_ORDER, FormShape.LIST, ("order",), closes_deadline=True),
            ActionKind(ActionType.PROSPERITY_CHOICE, FormShape.BOOL, ("discard",), closes_deadline=True),
            ActionKind(ActionType.FEAR_CHOICE, FormShape.BOOL, ("use",), closes_deadline=True),
        )
    }
)

#: The timeout sentence for an action without its own :attr:`ActionKind.timeout_text`.
DEFAULT_TIMEOUT_TEXT = gettext_lazy("the default choice was made for you.")

#: Action types that close a deadline (:attr:`ActionKind.closes_deadline`), as plain strings for queries.
DEADLINE_CLOSERS: tuple[str, ...] = tuple(str(k.type) for k in ACTION_KINDS.values() if k.closes_deadline)

#: Email links by their token name (:attr:`EmailLink.name`).
EMAIL_LINKS: Mapping[str, EmailLink] = MappingProxyType(
    {k.link.name: k.link for k in ACTION_KINDS.values() if k.link is not None}
)


def action_kind(action_type: object) -> ActionKind | None:
    """The :class:`ActionKind` of an action type given as an :class:`~games.engine.ActionType` or its string
    value (e.g. a posted form's or a stored payload's ``"type"``); ``None`` for anything else."""
    if not isinstance(action_type, str):
        return None
    try:
        return ACTION_KINDS.get(ActionType(action_type))
    except ValueError:
        return None


def timeout_text(action_type: object) -> str:
    """The sentence ending that says what a timeout did, for an action type (an
    :class:`~games.engine.ActionType` or a stored payload's ``"type"``) in the active language: e.g. "your
    turn was ended."; :data:`DEFAULT_TIMEOUT_TEXT` for other or unknown types."""
    kind = action_kind(action_type)
    text = kind.timeout_text if kind is not None and kind.timeout_text is not None else DEFAULT_TIMEOUT_TEXT
    return str(text)


def link_for_prompt(prompt_kind: str) -> EmailLink | None:
    """The one-click email link answering a prompt of kind ``prompt_kind`` (a
    :class:`~games.engine.PromptKind` value), or ``None`` when that kind has none."""
    return next((link for link in EMAIL_LINKS.values() if prompt_kind in link.prompt_kinds), None)
