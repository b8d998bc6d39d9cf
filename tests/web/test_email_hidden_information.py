"""issue 18 "Hidden information" for email play: every decision email contains only what the recipient's
``engine.view_for`` contains (R95: nobody sees another seat's hand, any deck or a face-down conflict card
not yet revealed; R97: a crown's look is the looker's alone), checked by card identity across thousands of
positions.

What "by card identity" means here. Emails name cards by their (localized) name, never by id, and a name is
shared by the copies of a card (three War Banners per deck, and every seat has its own deck), so a name
cannot be traced to one card. Instead every sentence of an email is read as a claim about cards: the
multiset of card identities (content ids such as ``war_banner``) that one line names must be covered by the
cards the recipient's view shows, copies counted: their own hand, every discard pile, the support cards on
the battle table, the conflict cards the view shows (revealed ones, and the recipient's own face-down one),
the cards of their own Insight/Prosperity look and the Fractures the view says were played in an in-turn
window. A line that names two Shield Walls needs two visible Shield Walls; a line naming a card the view
does not show at all names a card the recipient cannot know (one held in another hand, lying in a deck or
face down) and fails. A few fixed sentences name a card generically whatever anyone holds ("Do you play
Fracture on it?", asked of every seat in a window): their literal words are blanked before reading. Card
ids (``s1c07``) of hidden cards must never appear, and no card id may appear that the view does not hold.

The log ("Latest in the game") may name cards that were public once and are hidden now (a discard since
shuffled into a deck): its lines are checked against the view plus the cards the recipient's own redacted
events named.

1. A pure test renders, for every seat with an open prompt in several thousand positions (seeded random
   playouts of 2–6 players under varied options and both content sets, plus positions built to be at a
   face-down conflict card, a Fracture window and an Insight/Prosperity look), what a decision email shows
   as :mod:`games.notify.content` builds it: :func:`~games.notify.position.position_for`,
   :func:`~games.engine.move_menu` and the decision details, in English, Swedish, Polish and Korean.
2. A database test sends real decision emails and reminders (the outbox with the locmem backend) for stored
   games and checks the whole text and HTML bodies and the subject.
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, NamedTuple

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.utils import timezone, translation
from django.utils.translation import gettext
from pytest_django import Settings

from accounts.models import User
from games import engine
from games.engine import actions as A
from games.engine.bot import choose
from games.engine.rng import Rng
from games.models import ActionRecord, Game, Prompt, Seat
from games.notify import content as email_content
from games.notify import position as email_position
from games.notify.send import outbox_flush
from games.services.outbox import queue_write, reminders_queue
from tests.engine import fixtures as F
from tests.engine.harness import ALLEGIANCE_COMBOS, OPTION_COMBOS

from .conftest import state_of
from .factories import Step, conflict_step, crown_look, fracture_window, game_from_state

LANGS = ("en", "sv", "pl", "ko")
LOCMEM = "django.core.mail.backends.locmem.EmailBackend"
#: A card id standing alone (not inside a longer token such as a signed link).
CARD_ID = re.compile(r"(?<![A-Za-z0-9])s\dc\d\d(?![0-9])")

#: Sentences that name a card whatever anyone holds: a window asks every seat whether it plays Fracture;
#: the log says a Fracture window opened, or (in Korean) that a crown "fractured". Their literal words
#: (between the placeholders) are blanked before reading a line.
GENERIC = (
    "%(who)s uses %(artefacts)s. Do you play Fracture on it? Answer on the game page, or pass.",
    "Nobody else learns from this window whether you hold Fracture.",
    "Response window in “%(title)s”: play Fracture?",
    "Fracture window for %(targets)s.",
    "The crown is fractured and has no effect.",
)

#: How many (position, seat to decide) pairs the pure test renders, each in the four languages.
PURE_SEATS = 2500
#: How many stored games the database test mails about.
DB_GAMES = 120


# --------------------------------------------------------------------------------------------------------
# Reading card identities out of text
# --------------------------------------------------------------------------------------------------------


@dataclass
class Vocabulary:
    """How card names read in one language for one content set."""

    pattern: re.Pattern[str]
    by_name: dict[str, str]
    generic: list[str]

    def blank(self, line: str) -> str:
        for fragment in self.generic:
            line = line.replace(fragment, " … ")
        return line

    def named(self, line: str) -> Counter[str]:
        """The card identities (content ids) ``line`` names, copies counted."""
        return Counter(self.by_name[m.group(0).casefold()] for m in self.pattern.finditer(self.blank(line)))


_VOCABULARIES: dict[tuple[str, str], Vocabulary] = {}


def vocabulary(content: engine.Content, lang: str) -> Vocabulary:
    """The card names of ``content`` in ``lang`` (the notation's card verbs, "call to arms", "fracture", are
    the card names too: such a move plays that card) and the generic fragments to blank."""
    key = (content.id, lang)
    if key not in _VOCABULARIES:
        by_name = {engine.card_name(content, c.id, lang).casefold(): c.id for c in content.cards}
        names = "|".join(re.escape(n) for n in sorted(by_name, key=len, reverse=True))
        # Korean attaches particles to nouns ("균열을"): no word boundary there
        body = f"(?:{names})" if lang == "ko" else rf"(?<!\w)(?:{names})(?!\w)"
        pattern = re.compile(body, re.IGNORECASE)
        with translation.override(lang):
            fragments = [f for msgid in GENERIC for f in re.split(r"%\(\w+\)s", gettext(msgid))]
        generic = [f for f in fragments if pattern.search(f)]
        assert generic, f"no generic sentence names a card in {lang}: the blanking is stale"
        _VOCABULARIES[key] = Vocabulary(pattern, by_name, generic)
    return _VOCABULARIES[key]


# --------------------------------------------------------------------------------------------------------
# What the recipient's view shows, and what it hides
# --------------------------------------------------------------------------------------------------------


def shown(view: engine.View, seat: int, content: engine.Content) -> Counter[str]:
    """The card identities ``view`` (seat ``seat``'s) shows, copies counted."""
    cards: list[engine.CardView] = list(view["players"][seat].get("hand", []))
    for player in view["players"]:
        cards += player["discard"]
    battle = view["battle"]
    if battle is not None:
        cards += battle["table"]
        for side in (battle["attacker"], battle["defender"]):
            card = side["conflict"].get("card")
            if card is not None:
                cards.append(card)
    choice = view["choice"]
    if choice is not None:
        cards += choice.get("cards", [])
    out = Counter(c["card"] for c in cards)
    window = view["window"]
    if window is not None:  # an in-turn lap shows who played Fracture so far
        fracture = content.cards[content.effect_index["fracture"]].id
        out[fracture] += sum(1 for answer in window.get("answers", []) if answer["fracture"])
    return out


def hidden_ids(state: engine.GameState, seat: int) -> set[str]:
    """Card ids ``seat`` may not know: other hands, every deck, others' face-down conflict cards (R95, R68),
    less the seat's own Insight/Prosperity look (R97)."""
    hidden: set[str] = set()
    for p in state.players:
        hidden |= {engine.card_id(p.seat, c) for c in p.deck}
        if p.seat != seat:
            hidden |= {engine.card_id(p.seat, c) for c in p.hand}
    b = state.battle
    if b is not None and not b.revealed:
        hidden |= {engine.card_id(s, c) for s, c in b.table if s != seat}
        sides = zip((b.attacker, b.defender), b.conflict, strict=True)
        hidden |= {engine.card_id(s, c) for s, c in sides if c >= 0 and s != seat}
    ch = state.choice
    if ch is not None and ch.seat == seat:
        owner = ch.target if ch.kind == "prosperity" else ch.seat
        hidden -= {engine.card_id(owner, c) for c in ch.cards}
    return hidden


def identity(state: engine.GameState, cid: str) -> str:
    parsed = A.parse_card_id(cid)
    assert parsed is not None
    return state.content.cards[parsed[1]].id


@dataclass
class Recipient:
    """One seat reading an email about ``state``."""

    state: engine.GameState
    seat: int
    view: engine.View = field(init=False)
    shown: Counter[str] = field(init=False)
    hidden: set[str] = field(init=False)
    view_ids: set[str] = field(init=False)

    def __post_init__(self) -> None:
        self.view = engine.view_for(self.state, self.seat)
        self.shown = shown(self.view, self.seat, self.state.content)
        self.hidden = hidden_ids(self.state, self.seat)
        self.view_ids = set(CARD_ID.findall(json.dumps(self.view)))

    def hidden_identities(self) -> Counter[str]:
        return Counter(identity(self.state, cid) for cid in self.hidden)

    def check(self, lines: Iterable[str], lang: str, where: str, also: Iterable[str] = ()) -> None:
        """Every line names only cards the view shows (copies counted; identities in ``also`` without
        limit), and no card id the view does not hold.

        Raises:
            AssertionError: naming what leaked and which hidden cards it matches.
        """
        words = vocabulary(self.state.content, lang)
        allowed = set(also)
        for line in lines:
            ids = set(CARD_ID.findall(line))
            assert not ids & self.hidden, f"{where}: hidden card ids {sorted(ids & self.hidden)} in {line!r}"
            assert ids <= self.view_ids, f"{where}: card ids {sorted(ids - self.view_ids)} not in the view"
            named = words.named(line)
            over = {c: n - self.shown[c] for c, n in named.items() if n > self.shown[c] and c not in allowed}
            if over:
                hidden = self.hidden_identities()
                raise AssertionError(
                    f"{where} [{lang}]: {line!r} names {dict(over)} beyond the view's "
                    f"{ {c: self.shown[c] for c in over} }; hidden from seat {self.seat}: "
                    f"{ {c: hidden[c] for c in over} }"
                )


# --------------------------------------------------------------------------------------------------------
# Positions
# --------------------------------------------------------------------------------------------------------


class Setup(NamedTuple):
    players: int
    seed: int
    options: dict[str, Any]
    content: str

    def game(self) -> engine.GameState:
        return F.game(self.players, seed=self.seed, options=self.options, content=self.content)


def setups() -> Iterator[Setup]:
    """Game setups, round and round: 2–6 players under every option combination of the playout tests (one
    in five on the Abbey content set), and the Allegiance ones."""
    k = 0
    while True:
        for options in OPTION_COMBOS:
            for players in (2, 3, 4, 5, 6):
                k += 1
                yield Setup(players, 1000 + k, options, "abbey" if k % 5 == 0 else "default")
        for players, options in ALLEGIANCE_COMBOS:
            k += 1
            yield Setup(players, 1000 + k, options, "default")


def sample(state: engine.GameState, step: int) -> bool:
    """Whether a random walk keeps its ``step``-th position: every few moves, more often in a battle or at a
    crown's look (hidden cards are closest to the surface there); response windows, which ask every seat
    at once, a little less often."""
    if state.window is not None:
        return step % 4 == 0
    if state.battle is not None or state.choice is not None:
        return step % 2 == 0
    return step % 7 == 0


def random_walk(state: engine.GameState, seed: int, limit: int) -> Iterator[tuple[engine.GameState, Step]]:
    """Up to ``limit`` random legal moves from ``state`` (a random prompted seat each time), each with the
    state it leads to."""
    rng = Rng(seed)
    for _ in range(limit):
        prompts = engine.pending(state)
        if not prompts:
            return
        seat = prompts[rng.below(len(prompts))].seat
        action = choose(state, seat, rng)
        assert action is not None
        t = engine.apply(state, seat, action)
        state = t.state
        yield state, Step(seat, action, t)


def built_positions() -> list[engine.GameState]:
    """Positions built to be at a face-down conflict card, a Fracture window or a crown's look."""
    out = [conflict_step(), conflict_step(attacker_chose=True), conflict_step(3, attacker_chose=True)]
    out.append(fracture_window())
    out += [crown_look(crown, players) for crown in ("insight", "prosperity") for players in (2, 3, 4)]
    return out


@functools.cache
def positions(count: int) -> list[engine.GameState]:
    """Positions with ``count`` (position, seat to decide) pairs in all, not counting the seats asked by a
    window only to be passed for (``auto``, never emailed): the built ones and a few random moves on from
    each, then seeded random playouts (see :func:`sample`)."""
    out: list[engine.GameState] = []
    seats = 0

    def add(state: engine.GameState) -> None:
        nonlocal seats
        out.append(state)
        seats += sum(not p.auto for p in engine.pending(state))

    for k, start in enumerate(built_positions()):
        add(start)
        for seed in range(3):
            for step, (state, _step) in enumerate(random_walk(start, 50 * k + seed, 12)):
                if sample(state, step):
                    add(state)
    for n, setup in enumerate(setups()):
        if seats >= count:
            break
        for step, (state, _step) in enumerate(random_walk(setup.game(), n, 240)):
            if sample(state, step):
                add(state)
    return out


# --------------------------------------------------------------------------------------------------------
# 1. Pure: position, moves and details of every prompted seat in thousands of positions
# --------------------------------------------------------------------------------------------------------

#: Names of the seats (nothing like a card's name).
NAMES = {0: "Anna", 1: "Bertil", 2: "Cecylia", 3: "Dae-jung", 4: "Eve", 5: "Filip"}


def email_lines(r: Recipient, prompt_kind: str, lang: str) -> tuple[list[str], str]:
    """What a decision email to ``r`` shows of the game, line by line, as :mod:`games.notify.content`
    builds it (the details, the numbered moves and forms, then the position), and its hand line."""
    names = {s: NAMES[s] for s in range(r.state.num_players)}
    with translation.override(lang):
        pos = email_position.position_for(r.view, names, r.seat)
        moves, forms = engine.move_menu(r.state, r.seat, lang)
        details = email_content._decision_details(prompt_kind, r.view, names, r.seat)
    hand = ", ".join(pos.hand)
    return [*details, *moves, *forms, *pos.battle, hand, *pos.players, *pos.map, *pos.territories], hand


def test_decision_email_content_names_only_cards_the_recipients_view_shows() -> None:
    """R95, R97, R68: in thousands of positions, for every seat with an open prompt and in every language,
    the decision email's details, moves and position name no card beyond what the seat's view shows, and
    no hidden card id; the hand line names exactly the view's hand."""
    seen: Counter[str] = Counter()
    checked = 0
    for state in positions(PURE_SEATS):
        for prompt in engine.pending(state):
            r = Recipient(state, prompt.seat)
            where = f"seed {state.setup['seed']} turn {state.turn} seat {prompt.seat} {prompt.kind}"
            # a seat that has nothing to decide is never mailed (issue 14): one language is enough there
            for lang in [LANGS[checked % 4]] if prompt.auto else LANGS:
                lines, hand = email_lines(r, prompt.kind, lang)
                r.check(lines, lang, where)
                mine = Counter(c["card"] for c in r.view["players"][r.seat].get("hand", []))
                assert vocabulary(state.content, lang).named(hand) == mine, (where, lang, hand)
            checked += 1
            seen[f"players {state.num_players}"] += 1
            seen[f"{prompt.kind} (auto)" if prompt.auto else str(prompt.kind)] += 1
            b, vb = state.battle, r.view["battle"]
            if b is not None and vb is not None and vb["table"]:
                seen["support on the table"] += 1
            if b is not None and not b.revealed:
                others = [s for s, c in zip((b.attacker, b.defender), b.conflict, strict=True) if c >= 0]
                if any(s != prompt.seat for s in others):
                    seen["another seat's conflict card face down"] += 1
    assert checked >= 2000
    for players in range(2, 7):
        assert seen[f"players {players}"] >= 100, seen
    for kind in ("turn", "conflict", "support", "response", "insight_order", "prosperity"):
        assert seen[kind] >= 10, (kind, seen)
    assert seen["support on the table"] >= 50 and seen["another seat's conflict card face down"] >= 50, seen


# --------------------------------------------------------------------------------------------------------
# 2. The real pipeline: decision emails and reminders sent through the outbox for stored games
# --------------------------------------------------------------------------------------------------------


def db_positions(count: int) -> list[tuple[engine.GameState, list[Step]]]:
    """``count`` positions to store, each with the moves that led to it (a log the emails quote): the
    built positions (no log: they are edited), then positions of seeded random games, two per game."""
    out: list[tuple[engine.GameState, list[Step]]] = [(state, []) for state in built_positions()]
    for n, setup in enumerate(setups()):
        if len(out) >= count:
            break
        steps: list[Step] = []
        taken = 0
        for k, (state, step) in enumerate(random_walk(setup.game(), 7000 + n, 120)):
            steps.append(step)
            if state.winners:
                break
            deciding = [p for p in engine.pending(state) if not p.auto]
            if deciding and k >= 6 and sample(state, k) and (k + n) % 3 == 0:
                out.append((state, list(steps)))
                taken += 1
                if taken == 2:
                    break
    return out


def html_lines(markup: str) -> list[str]:
    """The text of an HTML body, a line per element (tags, and the links in them, dropped)."""
    return [html.unescape(line) for line in re.sub(r"<[^>]+>", "\n", markup).splitlines()]


def log_lines(body: str) -> list[str]:
    """The lines of the text body's "Latest in the game" list (call in the email's language)."""
    lines = body.splitlines()
    header = gettext("Latest in the game:")
    if header not in lines:
        return []
    out = []
    for line in lines[lines.index(header) + 1 :]:
        if not line.startswith("- "):
            break
        out.append(line[2:])
    return out


def ever_told(game: Game, r: Recipient) -> set[str]:
    """Card identities that the game's events, as redacted for ``r``'s seat, ever named (the log may quote
    a card that was public then and is hidden now)."""
    content = r.state.content
    out: set[str] = set()
    for events in ActionRecord.objects.filter(game=game).values_list("events", flat=True):
        for ev in events:
            text = json.dumps(engine.redact_event(ev, r.seat))
            out |= {identity(r.state, cid) for cid in CARD_ID.findall(text)}
            out |= {c.id for c in content.cards if json.dumps(c.name) in text}
    return out


def check_message(msg: EmailMultiAlternatives, game: Game, user: User, seat: int) -> None:
    """The whole email (subject, text and HTML bodies) names only what ``seat``'s view shows; its log only
    what the view shows or the seat's redacted events named."""
    state = state_of(game)
    r = Recipient(state, seat)
    where = f"game {game.pk} seat {seat} {msg.subject!r}"
    [(markup, mimetype)] = msg.alternatives
    assert mimetype == "text/html" and isinstance(markup, str)
    body, subject = str(msg.body), str(msg.subject)
    no_links = re.compile(r"https?://\S+")
    with translation.override(user.language):
        log = set(log_lines(body))
    text = [no_links.sub(" ", line) for line in [subject, *body.splitlines()]]
    markup_lines = html_lines(markup)
    r.check([line for line in text if line.removeprefix("- ") not in log], user.language, where + " text")
    r.check([line for line in markup_lines if line.strip() not in log], user.language, where + " HTML")
    if log:
        told = ever_told(game, r)
        r.check(log, user.language, where + " log", also=told)
    # the email did show the decision: every numbered move, and the hand
    moves, forms = engine.move_menu(state, seat, user.language)
    assert all(move in body for move in moves + forms), where
    hand = r.view["players"][seat].get("hand", [])
    with translation.override(user.language):
        assert not hand or gettext("Your hand:") in body, where
        names = vocabulary(state.content, user.language)
        mine = Counter(c["card"] for c in hand)
        hand_lines = [line for line in body.splitlines() if line.startswith(gettext("Your hand:"))]
        assert [names.named(line) for line in hand_lines] == ([mine] if hand else []), where


@pytest.mark.django_db
def test_sent_decision_emails_name_only_cards_the_recipients_view_shows(settings: Settings) -> None:
    """R95, R97, R68 through the real pipeline: for 100+ stored games (built positions and positions of
    random games with their logs), every decision email and reminder the outbox sends (locmem backend), in
    the recipient's language, names no card beyond the recipient's view in its subject, text and HTML."""
    settings.EMAIL_BACKEND = LOCMEM
    kinds: Counter[str] = Counter()
    for i, (state, steps) in enumerate(db_positions(DB_GAMES)):
        game = game_from_state(state, log=steps)
        seats = list(Seat.objects.filter(game=game).select_related("user"))
        for s in seats:
            assert s.user is not None
            s.user.language = LANGS[(i + s.number) % len(LANGS)]
            s.user.save(update_fields=["language"])
        now = timezone.now()
        opened = engine.pending(state_of(game))
        deciding = [p for p in opened if not p.auto]  # the others are never mailed (issue 14)
        queue_write(game=game, seats=seats, opened=opened, actor=None, now=now)
        mail.outbox = []
        sent = outbox_flush(game_id=game.pk, now=now)
        if i % 2:  # and the reminders of the same prompts, after 75 % of their time
            later = now + timedelta(days=400)
            Prompt.objects.exclude(game=game).update(remind_at=None)  # the earlier games' are not due
            assert reminders_queue(now=later) == len(deciding)
            sent += outbox_flush(game_id=game.pk, now=later)
        assert sent == len(mail.outbox) == len(deciding) * (1 + i % 2) > 0
        by_email = {s.user.email: s for s in seats if s.user is not None}
        for msg in mail.outbox:
            assert isinstance(msg, EmailMultiAlternatives)
            [to] = msg.to
            seat = by_email[to]
            assert seat.user is not None
            check_message(msg, game, seat.user, seat.number)
            kinds[next(p.kind for p in deciding if p.seat == seat.number)] += 1
    assert sum(kinds.values()) >= 150, kinds
    for kind in ("turn", "conflict", "support", "response"):
        assert kinds[kind] >= 5, kinds
