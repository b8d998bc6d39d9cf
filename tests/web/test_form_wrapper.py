"""The decision forms' one htmx wrapper (issue 31 §3).

The forms of the game page's decision panel share one wrapper carrying the htmx attributes they have in
common (``hx-target``, ``hx-swap``, ``hx-disabled-elt``), which htmx's attribute inheritance hands down to
them, as django-htmx's partial-rendering example does with its ``<nav>``. Each form keeps only what is its
own: its ``hx-post`` (a request verb is never inherited), its fields and the shared hidden fields
(``games/_act_hidden.html``). These tests read the rendered HTML with the standard library's parser.

Docstrings here cite no rule numbers on purpose: the rules-coverage table counts engine tests only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import Game
from games.web.presenters import page_model
from tests.web.conftest import create_started_game, seat_users, state_of
from tests.web.test_pages import _all_kinds_view, active_user, client_for, form_data
from tests.web.test_undo import REDISTRIBUTE, two_players

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}

#: What the wrapper gives every decision form, as each form used to say itself.
SHARED = {"hx-target": "#decision", "hx-swap": "outerHTML", "hx-disabled-elt": "find button"}

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass(eq=False)
class Node:
    tag: str
    attrs: dict[str, str]
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)

    def walk(self) -> Iterator[Node]:
        for child in self.children:
            yield child
            yield from child.walk()

    def ancestors(self) -> Iterator[Node]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def inherited(self, name: str) -> str | None:
        """The value htmx 2 reads for an inherited attribute: the element's own, else the closest
        ancestor's ("unset" stops the search: nothing)."""
        for node in (self, *self.ancestors()):
            if name in node.attrs:
                value = node.attrs[name]
                return None if value == "unset" else value
        return None


class Tree(HTMLParser):
    """A minimal DOM: elements with their attributes, parents and children."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}, parent=self.stack[-1]))

    def handle_endtag(self, tag: str) -> None:
        # an end tag closes the innermost open element of its name (and anything left open inside it)
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def by_id(self, ident: str) -> Node:
        found = [n for n in self.root.walk() if n.attrs.get("id") == ident]
        assert len(found) == 1, (ident, len(found))
        return found[0]


def hidden(form: Node, name: str) -> list[str]:
    return [
        n.attrs.get("value", "")
        for n in form.walk()
        if n.tag == "input" and n.attrs.get("type") == "hidden" and n.attrs.get("name") == name
    ]


def check_wrapper(html: str, game: Game, seq: int) -> tuple[Node, list[Node]]:
    """Assert (a), (b) and (c) of issue 31 §3 on a page or decision partial; return the wrapper and the
    htmx forms of the decision panel."""
    tree = Tree(html)
    decision = tree.by_id("decision")
    forms = [n for n in decision.walk() if n.tag == "form" and "hx-post" in n.attrs]
    assert forms, "no htmx form in the decision panel"

    # (a) one wrapper in the panel carries the shared attributes, and every htmx form sits inside it
    wrappers = [n for n in decision.walk() if "hx-target" in n.attrs or "hx-swap" in n.attrs]
    assert len(wrappers) == 1, [(w.tag, w.attrs) for w in wrappers]
    wrapper = wrappers[0]
    assert wrapper.tag == "div" and "decision-forms" in wrapper.attrs.get("class", "").split()
    assert {k: wrapper.attrs.get(k) for k in SHARED} == SHARED
    assert "hx-post" not in wrapper.attrs and "hx-get" not in wrapper.attrs  # it sends nothing itself
    for form in forms:
        assert wrapper in form.ancestors(), form.attrs

    # (b) no form repeats what it inherits, and nothing in the page turns inheritance off
    for form in forms:
        for node in (form, *form.walk()):
            assert not set(SHARED) & set(node.attrs), (node.tag, node.attrs)
        assert {k: form.inherited(k) for k in SHARED} == SHARED  # what htmx reads: as before
    assert "hx-disinherit" not in html and "hx-inherit" not in html
    config = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", html)
    if config:  # the whole page (a partial has no head)
        assert "disableInheritance" not in json.loads(config.group(1))

    # (c) each form still posts to its action URL, with and without JavaScript, and says which position
    # it answers (expected_seq)
    act = reverse("games:act", args=[game.pk])
    undo = reverse("games:undo", args=[game.pk])
    for form in forms:
        url = undo if form.attrs.get("data-act") == "undo" else act
        assert form.attrs.get("method") == "post", form.attrs
        assert form.attrs.get("action") == url and form.attrs.get("hx-post") == url, form.attrs
        assert hidden(form, "expected_seq") == [str(seq)], form.attrs
        if form.attrs.get("data-act") not in ("undo", "confirm"):
            assert hidden(form, "type") == [form.attrs["data-act"]], form.attrs
            assert len(hidden(form, "prompt_key")) == 1, form.attrs  # games/_act_hidden.html
    return wrapper, forms


def test_the_game_pages_decision_forms_share_one_wrapper(two_player_game: Game) -> None:
    """The game page of the player to move: its decision forms sit in the one wrapper and inherit the
    target, swap and disabled element from it; so does the panel an htmx request brings back."""
    user = active_user(two_player_game)
    client = client_for(user)
    page = client.get(reverse("games:detail", args=[two_player_game.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    _wrapper, forms = check_wrapper(html, two_player_game, two_player_game.seq)
    assert any(f.attrs.get("data-act") == "end_turn" for f in forms)

    partial = client.get(reverse("games:partial", args=[two_player_game.pk, "decision"]), headers=HX)
    assert partial.status_code == 200
    check_wrapper(partial.content.decode(), two_player_game, two_player_game.seq)


def test_every_kind_of_decision_form_sits_in_the_wrapper(two_player_game: Game) -> None:
    """A decision panel offering every action type at once: all its forms (the issue's nineteen and the
    second Fracture-window form) share the wrapper and nothing else."""
    user = active_user(two_player_game)
    gv = _all_kinds_view(two_player_game, user)
    html = render_to_string(
        "games/detail.html#decision",
        {
            "game": two_player_game,
            "gv": gv,
            "view": gv.view,
            "page": page_model(gv, timezone.now()),
            "seq": two_player_game.seq,
        },
    )
    _wrapper, forms = check_wrapper(html, two_player_game, two_player_game.seq)
    assert len(forms) >= 19


def test_the_confirmation_form_and_its_way_back_inherit_from_the_wrapper() -> None:
    """The "are you sure?" panel: its "Yes" form posts the same fields again through the wrapper's target;
    the "No, go back" link inherits the target and the swap but disables nothing (it has no button)."""
    game = create_started_game(humans=2, seed=5)
    client = Client()
    client.force_login(seat_users(game)[state_of(game).active])
    asked = client.post(
        reverse("games:act", args=[game.pk]),
        form_data({"type": "end_turn"}, game.seq, confirmed=False),
        headers=HX,
    )
    assert asked.status_code == 200
    html = asked.content.decode()
    wrapper, forms = check_wrapper(html, game, game.seq)
    assert [f.attrs.get("data-act") for f in forms] == ["confirm"]
    assert hidden(forms[0], "confirmed") == ["1"] and hidden(forms[0], "type") == ["end_turn"]
    back = next(n for n in wrapper.walk() if n.attrs.get("id") == "confirm-no")
    assert back.attrs["hx-get"] == reverse("games:partial", args=[game.pk, "decision"])
    assert back.inherited("hx-target") == "#decision" and back.inherited("hx-swap") == "outerHTML"
    assert back.attrs.get("hx-disabled-elt") == "unset" and back.inherited("hx-disabled-elt") is None


def test_the_undo_form_shares_the_wrapper() -> None:
    """After a step that can be taken back, the undo form (its own URL) sits in the same wrapper."""
    game, alice, _bob = two_players()
    client = client_for(alice)
    done = client.post(reverse("games:act", args=[game.pk]), form_data(REDISTRIBUTE, game.seq))
    assert done.status_code == 302
    game.refresh_from_db()
    html = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    _wrapper, forms = check_wrapper(html, game, game.seq)
    undo = [f for f in forms if f.attrs.get("data-act") == "undo"]
    assert len(undo) == 1 and hidden(undo[0], "steps") == ["1"]
