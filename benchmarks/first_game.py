"""A first game against bots (issue 29 §1): one person and two normal bots on the default clock, played to
the end through the pages, and how long the person waits after each of their submits.

Usage: ``.venv/bin/python -m benchmarks.first_game [--seeds 1,2,3,4,5,6] [--db mastery_bench_first_game]``
(``make bench-first-game``). Needs PostgreSQL on 127.0.0.1:5432; it recreates the database ``--db``. To
compare with an older commit, run the same file in a worktree of that commit, back to back (the machine's
speed drifts; see docs/performance.md, "Session 11").

Per seed, with Django's test client as the person's browser: the "New game" form is posted with its own
defaults (3 players, the daily clock, secret Fracture windows) and the game's seed fixed, the two empty
seats are filled with normal bots through the lobby's form, then every decision the game page offers the
person is taken by posting one of the decision panel's forms as htmx does (the policy of
``tests.browser.conftest.Player``: pass in windows and support, the first conflict card, keep cards,
advance into a rival's territory with as many knights as allowed, else into another one, else end the
turn), answering each confirmation it asks. The emails' publish is a no-op (``benchmarks.email_latency``
measures them).

Recorded:

* **wait per submit**: from posting a form until the page offers the person's next decision (or the
  result). When the submit's answer offers it, that is the answer's own time. When it does not, the game
  waits for a server pass held for the Fracture masking delay (``Prompt.auto_at``): the clock is moved to
  the earliest such ``auto_at`` (time-machine; only the wall clock of the database rows moves), the deadline
  sweep applies what is due, and the decision panel is fetched again as the page's poll would, until the
  person has a decision. The wait is the requests' times plus the delays jumped over: a lower bound of
  what a person saw, without the sweep's period (Celery beat, 1 minute) and the page's poll (5 s).
* **clicks per turn**: the person's submits and confirmations ("presses"), and the fields they had to set
  ("choices": a radio button, a list, a knight count differing from what the form showed), divided by
  the person's own turns.
* **pointless prompts**: decisions shown to the person whose answers all lead to the same state (a conflict
  card choice among copies of one card, a Fear / Vigour choice with equal knight counts).
* **pre-filled decisions**: decisions shown with an irreversible control already set (a ticked radio
  button or checkbox, a target selected, a knight count filled in; not the Crown of Insight's order, not a
  redistribution's count, as ``tests/browser/test_first_game.py`` counts them).
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import re
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any
from unittest import mock

DB = "mastery_bench_first_game"
#: Decisions after which a game is given up (the policy's games take a few hundred at most).
MAX_DECISIONS = 2000
#: Elements without an end tag.
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)


# ------------------------------------------------------------------------------------------------------
# Reading the page
# ------------------------------------------------------------------------------------------------------


@dataclass
class Node:
    """An HTML element: its tag, attributes and children (elements and text)."""

    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    def walk(self) -> Any:
        """This element and every element below it, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def text(self) -> str:
        """The text inside, whitespace collapsed."""
        parts: list[str] = []

        def collect(node: Node) -> None:
            for child in node.children:
                if isinstance(child, Node):
                    collect(child)
                else:
                    parts.append(child)

        collect(self)
        return re.sub(r"\s+", " ", "".join(parts)).strip()

    def classes(self) -> set[str]:
        """The element's classes."""
        return set(self.attrs.get("class", "").split())


class _Tree(HTMLParser):
    """A forgiving HTML tree builder (the site's own markup is well formed)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v if v is not None else "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v if v is not None else "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    """The document tree of ``html``."""
    tree = _Tree()
    tree.feed(html)
    tree.close()
    return tree.root


def by_id(root: Node, element_id: str) -> Node | None:
    """The first element with ``id``."""
    return next((n for n in root.walk() if n.attrs.get("id") == element_id), None)


@dataclass
class Form:
    """A form of the page: where it posts, its fields' current values and its submit buttons."""

    node: Node
    act: str
    action: str

    def type(self) -> str:
        """The action type it sends (its hidden ``type`` field), or ``""``."""
        return next((n.attrs.get("value", "") for n in self.inputs() if n.attrs.get("name") == "type"), "")

    def inputs(self) -> list[Node]:
        """Its ``input`` elements."""
        return [n for n in self.node.walk() if n.tag == "input"]

    def selects(self) -> list[Node]:
        """Its ``select`` elements."""
        return [n for n in self.node.walk() if n.tag == "select"]

    def data(self, button: Node | None = None) -> dict[str, list[str]]:
        """What the browser sends as the form stands (``button``: the submit button pressed)."""
        out: dict[str, list[str]] = {}
        for n in self.inputs():
            name, kind = n.attrs.get("name"), n.attrs.get("type", "text")
            if not name or (kind in ("radio", "checkbox") and "checked" not in n.attrs):
                continue
            out.setdefault(name, []).append(n.attrs.get("value", "on" if kind == "checkbox" else ""))
        for s in self.selects():
            options = [o for o in s.walk() if o.tag == "option"]
            chosen = next((o for o in options if "selected" in o.attrs), options[0] if options else None)
            if s.attrs.get("name") and chosen is not None:
                out.setdefault(s.attrs["name"], []).append(chosen.attrs.get("value", chosen.text()))
        if button is not None and button.attrs.get("name"):
            out.setdefault(button.attrs["name"], []).append(button.attrs.get("value", ""))
        return out

    def button(self, value: str | None = None) -> Node | None:
        """Its submit button (with ``value``, the one sending that value)."""
        buttons = [
            n for n in self.node.walk() if n.tag == "button" and n.attrs.get("type", "submit") == "submit"
        ]
        if value is not None:
            buttons = [b for b in buttons if b.attrs.get("value") == value]
        return buttons[0] if buttons else None


def forms_of(panel: Node) -> list[Form]:
    """The decision panel's action forms (not Undo)."""
    return [
        Form(n, n.attrs.get("data-act", ""), n.attrs.get("action", ""))
        for n in panel.walk()
        if n.tag == "form" and "act" in n.classes() and n.attrs.get("data-act") not in (None, "undo")
    ]


def preset_controls(panel: Node) -> list[str]:
    """Irreversible controls of the panel set before the person chose (see the module docstring)."""
    found = []
    for form in forms_of(panel):
        for n in form.inputs():
            kind = n.attrs.get("type", "text")
            if kind in ("radio", "checkbox") and "checked" in n.attrs:
                found.append(f"{form.act}: {n.attrs.get('name')}={n.attrs.get('value')} ticked")
            if kind == "number" and form.act != "redistribute" and n.attrs.get("value", ""):
                found.append(f"{form.act}: {n.attrs.get('name')}={n.attrs.get('value')} filled in")
        if form.act == "insight_order":
            continue
        for s in form.selects():
            chosen = next((o for o in s.walk() if o.tag == "option" and "selected" in o.attrs), None)
            if chosen is not None and chosen.attrs.get("value", ""):
                found.append(f"{form.act}: {s.attrs.get('name')}={chosen.attrs.get('value')} selected")
    return found


# ------------------------------------------------------------------------------------------------------
# The person
# ------------------------------------------------------------------------------------------------------


@dataclass
class Choice:
    """What the person sends: the form, its data, and how many fields they set themselves."""

    form: Form
    data: dict[str, list[str]]
    choices: int


def _set(data: dict[str, list[str]], name: str, value: str) -> int:
    """Set a field; 1 if that changed what the form showed (a click or a keystroke), else 0."""
    changed = data.get(name) != [value]
    data[name] = [value]
    return int(changed)


def decide(forms: list[Form]) -> Choice:
    """The policy's decision among the panel's ``forms`` (``tests.browser.conftest.Player.act``)."""
    by_type: dict[str, list[Form]] = {}
    for f in forms:
        by_type.setdefault(f.type(), []).append(f)

    def plain(kind: str, value: str | None = None) -> Choice:
        form = next(f for f in by_type[kind] if f.button(value) is not None)
        return Choice(form, form.data(form.button(value)), 0)

    if "respond" in by_type:  # the form without a target list: Pass
        form = next(f for f in by_type["respond"] if not f.selects())
        return Choice(form, form.data(form.button()), 0)
    if "choose_conflict" in by_type:
        form = by_type["choose_conflict"][0]
        data = form.data(form.button())
        first = next(n for n in form.inputs() if n.attrs.get("type") == "radio")
        return Choice(form, data, _set(data, "card", first.attrs["value"]))
    if "pass_support" in by_type:
        return plain("pass_support")
    if "fear_choice" in by_type:
        return plain("fear_choice", "false")
    if "discard_choice" in by_type:  # keep: the form with an empty card (a button now, a radio before)
        form = next(
            f for f in by_type["discard_choice"] if any(n.attrs.get("value", "x") == "" for n in f.inputs())
        )
        data = form.data(form.button())
        return Choice(form, data, _set(data, "card", ""))
    if "insight_order" in by_type:
        return plain("insight_order")
    if "prosperity_choice" in by_type:
        return plain("prosperity_choice", "false")
    if "finish_redistribution" in by_type:
        return plain("finish_redistribution")
    if "advance" in by_type:
        form = by_type["advance"][0]
        into = next(s for s in form.selects() if s.attrs.get("name") == "to")
        options = [o for o in into.walk() if o.tag == "option" and o.attrs.get("value")]
        battles = [o for o in options if "⚔" in o.text()]
        target = max(battles, key=lambda o: int(o.attrs["data-max"])) if battles else options[0]
        data = form.data(form.button())
        clicks = _set(data, "to", target.attrs["value"]) + _set(data, "knights", target.attrs["data-max"])
        return Choice(form, data, clicks)
    if "decline_advance" in by_type:
        return plain("decline_advance")
    if "end_turn" in by_type:
        return plain("end_turn")
    raise SystemExit(f"no form the policy knows: {sorted(by_type)}")


# ------------------------------------------------------------------------------------------------------
# One game
# ------------------------------------------------------------------------------------------------------


@dataclass
class Game:
    """What one game measured."""

    seed: int
    decisions: int = 0
    presses: int = 0
    confirmations: int = 0
    choices: int = 0
    turns: set[int] = field(default_factory=set)
    #: Per submit: seconds until the next decision (requests + masking delays), of which masking delays.
    waits: list[float] = field(default_factory=list)
    masked: list[float] = field(default_factory=list)
    #: Per submit: the seconds of its own answer (the request).
    answers: list[float] = field(default_factory=list)
    masked_passes: dict[str, int] = field(default_factory=lambda: {"person": 0, "bots": 0})
    pointless: int = 0
    prefilled: int = 0
    seq: int = 0
    won: str = ""


def pointless(state: Any, seat: int, kinds: set[str]) -> bool:
    """Whether the decision shown to ``seat`` changes nothing whatever the answer: a conflict card choice
    among copies of one card (R68), a Fear / Vigour choice with equal knight counts (R67)."""
    from games.engine.rules import battle

    if "choose_conflict" in kinds:
        cards = state.content.cards
        return len({cards[c].id for c in state.players[seat].hand if cards[c].kind == "conflict"}) == 1
    if "fear_choice" in kinds and state.battle is not None:
        b = state.battle
        side = b.side(seat)
        # named ``_rival_real`` before issue 29 (the benchmark also runs on older commits)
        rival = getattr(battle, "rival_knights", None) or getattr(battle, "_rival_real")  # noqa: B009
        return bool(rival(state, b, side) == battle.knight_part(state, b, side))
    return False


def play(seed: int, tag: str) -> Game:
    """Sign a person up, open a default table, fill it with normal bots and play it to the end."""
    import secrets

    import time_machine
    from django.test import Client
    from django.utils import timezone

    from accounts.models import User
    from games import engine
    from games.models import Game as GameRow
    from games.models import Prompt, Seat
    from games.services import play as play_service

    user = User.objects.create_user(f"{tag}@example.com", "a-long-bench-password-1", display_name=tag)
    client = Client()
    client.force_login(user)
    out = Game(seed)
    htmx = {"HX-Request": "true"}

    def post(url: str, data: dict[str, list[str]], **kw: Any) -> Any:
        response = client.post(url, data, **kw)
        if response.status_code >= 400:
            raise SystemExit(f"{url}: {response.status_code} {response.content[:400]!r}")
        return response

    # the "New game" form as it stands, with a title; the seed the lobby draws is this run's
    page = parse(client.get("/games/new/").content.decode())
    new = next(n for n in page.walk() if n.tag == "form" and "card-form" in n.classes())
    data = Form(new, "", "").data()
    data["title"] = [f"First game {seed}"]
    created = post("/games/new/", data)
    game_id = int(created.url.rstrip("/").rsplit("/", 1)[-1])
    t0 = time.perf_counter()  # filling the seats starts the game: the bots before the person play
    with mock.patch.object(secrets, "randbits", lambda _bits: seed):
        post(f"/games/{game_id}/bots/", {"level": ["normal"]})
    panel = by_id(parse(client.get(f"/games/{game_id}/").content.decode()), "decision")
    started = time.perf_counter() - t0
    row = GameRow.objects.get(pk=game_id)
    assert row.status == GameRow.Status.ACTIVE and row.players == 3 and row.time_control == "daily", row
    me = Seat.objects.get(game=row, user=user).number
    act_url = f"/games/{game_id}/act/"

    with time_machine.travel(datetime.now(tz=UTC), tick=True) as clock:

        def wait_out(panel: Node | None) -> tuple[Node | None, float, float]:
            """Until the panel offers a decision or the game is over: jump to each masked pass, sweep, poll.
            Returns the panel, the seconds of requests and of delays."""
            spent = delayed = 0.0
            while (
                panel is not None
                and "mine" not in panel.classes()
                and "The game is over." not in panel.text()
            ):
                due = (
                    Prompt.objects.filter(game_id=game_id, auto_at__isnull=False).order_by("auto_at").first()
                )
                if due is None:
                    raise SystemExit(f"seed {seed}: nothing to decide and nothing due: {panel.text()[:300]}")
                assert due.auto_at is not None
                ahead = (due.auto_at - timezone.now()).total_seconds()
                if ahead > 0:
                    clock.move_to(due.auto_at)
                    delayed += ahead
                for seat in Prompt.objects.filter(game_id=game_id, auto_at__lte=timezone.now()).values_list(
                    "seat", flat=True
                ):
                    out.masked_passes["person" if seat == me else "bots"] += 1
                t0 = time.perf_counter()
                play_service.deadlines_sweep(now=timezone.now())
                fetched = client.get(f"/games/{game_id}/partial/decision/", headers=htmx)
                spent += time.perf_counter() - t0
                panel = by_id(parse(fetched.content.decode()), "decision")
            return panel, spent, delayed

        panel, spent, delayed = wait_out(panel)  # the start counts as the person's first submit
        out.waits.append(started + spent + delayed)
        out.masked.append(delayed)
        out.answers.append(started)
        for _ in range(MAX_DECISIONS):
            if panel is None or "The game is over." in panel.text():
                break
            state = engine.from_dict(GameRow.objects.get(pk=game_id).state)
            forms = forms_of(panel)
            kinds = {f.type() for f in forms}
            out.decisions += 1
            out.pointless += pointless(state, me, kinds)
            out.prefilled += bool(preset_controls(panel))
            if state.active == me:
                out.turns.add(state.turn)
            choice = decide(forms)
            out.choices += choice.choices
            t0 = time.perf_counter()
            response = post(act_url, choice.data, headers=htmx)
            answer = time.perf_counter() - t0
            out.presses += 1
            panel = by_id(parse(response.content.decode()), "decision")
            confirm = next((f for f in forms_of(panel) if f.act == "confirm"), None) if panel else None
            if confirm is not None:  # "Attack with 1 knight against 4?", "End your turn with …?"
                out.waits.append(answer)
                out.masked.append(0.0)
                out.answers.append(answer)
                out.confirmations += 1
                out.presses += 1
                t0 = time.perf_counter()
                response = post(act_url, confirm.data(confirm.button()), headers=htmx)
                answer = time.perf_counter() - t0
                panel = by_id(parse(response.content.decode()), "decision")
            panel, spent, delayed = wait_out(panel)
            out.waits.append(answer + spent + delayed)
            out.masked.append(delayed)
            out.answers.append(answer)
        else:
            raise SystemExit(f"seed {seed}: no result within {MAX_DECISIONS} decisions")
    row.refresh_from_db()
    assert row.status == GameRow.Status.FINISHED, row.status
    out.seq = row.seq
    names = {s.number: ("person" if s.number == me else f"bot {s.number}") for s in row.seats.all()}
    out.won = ", ".join(names[w] for w in row.winners)
    return out


def _quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] if ordered else 0.0


def _seconds(values: list[float]) -> str:
    """``values`` (seconds) as p50, p95 and max."""
    p50, p95, top = _quantile(values, 0.5), _quantile(values, 0.95), max(values, default=0)
    return f"p50 {p50:8.3f} s  p95 {p95:8.3f} s  max {top:8.3f} s"


def main() -> None:
    """Recreate the database, play one game per seed, print the figures (and one JSON line)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1,2,3,4,5,6", help="comma-separated game seeds")
    parser.add_argument("--db", default=DB, help="PostgreSQL database to recreate on 127.0.0.1:5432")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",") if s]
    subprocess.run(["dropdb", "--if-exists", "-h", "127.0.0.1", args.db], check=True, capture_output=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", args.db], check=True)
    os.environ.update(
        DATABASE_URL=f"postgres://{getpass.getuser()}@127.0.0.1:5432/{args.db}",
        DJANGO_SETTINGS_MODULE="mastery.settings",
        MASTERY_ENV="development",
        DEBUG="0",
        LOG_LEVEL="ERROR",
    )
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    from games.services import outbox

    setup_test_environment()  # emails to memory
    call_command("migrate", verbosity=0)
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], capture_output=True, text=True
    ).stdout.strip()
    games = []
    with mock.patch.object(outbox, "enqueue_send", lambda _game_id: None):
        for seed in seeds:
            g = play(seed, f"person{seed}")
            games.append(g)
            turns = max(1, len(g.turns))
            print(
                f"seed {seed}: {g.seq} actions, won by {g.won}; the person: {g.decisions} decisions in "
                f"{len(g.turns)} turns, {g.presses} presses ({g.confirmations} confirmations), "
                f"{g.choices} choices, {(g.presses + g.choices) / turns:.1f} clicks per turn; "
                f"{g.pointless} pointless prompts, {g.prefilled} pre-filled decisions; masked passes waited "
                f"for: {g.masked_passes['person']} the person's own, {g.masked_passes['bots']} the bots'; "
                f"longest wait {max(g.waits, default=0):.1f} s"
            )
    waits = [w for g in games for w in g.waits]
    answers = [a for g in games for a in g.answers]
    # the server's work the person waited for: the waits without the masking delays jumped over (the
    # submit's answer, and before issue 29 also the sweeps' passes and bot turns and the polls)
    work = [w - m for g in games for w, m in zip(g.waits, g.masked, strict=True)]
    turns = sum(len(g.turns) for g in games)
    presses = sum(g.presses for g in games)
    choices = sum(g.choices for g in games)
    summary = {
        "commit": commit,
        "seeds": seeds,
        "submits": len(waits),
        "wait": {"p50": _quantile(waits, 0.5), "p95": _quantile(waits, 0.95), "max": max(waits, default=0)},
        "answer": {
            "p50": _quantile(answers, 0.5),
            "p95": _quantile(answers, 0.95),
            "max": max(answers, default=0),
        },
        "work": {"p50": _quantile(work, 0.5), "p95": _quantile(work, 0.95), "max": max(work, default=0)},
        "waited_total_s": sum(waits),
        "masked_total_s": sum(m for g in games for m in g.masked),
        "turns": turns,
        "presses_per_turn": presses / max(1, turns),
        "choices_per_turn": choices / max(1, turns),
        "pointless_per_game": statistics.mean(g.pointless for g in games),
        "prefilled_per_game": statistics.mean(g.prefilled for g in games),
        "decisions_per_game": statistics.mean(g.decisions for g in games),
    }
    print(f"commit {commit}, {len(games)} games, {len(waits)} submits of the person")
    print(f"  wait after a submit      {_seconds(waits)}   (total {sum(waits) / 60:.1f} min)")
    print(f"  of which server work     {_seconds(work)}")
    print(f"  the submit's own answer  {_seconds(answers)}")
    print(
        f"  per own turn: {summary['presses_per_turn']:.2f} presses + {summary['choices_per_turn']:.2f} "
        f"choices; per game: {summary['pointless_per_game']:.1f} pointless prompts, "
        f"{summary['prefilled_per_game']:.1f} pre-filled decisions, "
        f"{summary['decisions_per_game']:.1f} decisions"
    )
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
