"""issue 3, JSON API schema: ``/api/openapi.json`` is served and is a valid OpenAPI 3 document, and
schemathesis, generating requests from it against a running test server, never gets a 5xx."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.core.result import Err

from accounts.models import ApiToken
from games import services
from games.models import Game
from tests.web.conftest import create_user

#: Examples per operation, generation mode and path-parameter variant.
MAX_EXAMPLES = 30

OPERATIONS = {
    ("GET", "/api/games/{game_id}"),
    ("GET", "/api/games/{game_id}/legal"),
    ("POST", "/api/games/{game_id}/actions"),
    ("POST", "/api/games/{game_id}/undo"),
    ("GET", "/api/games/{game_id}/chat"),
    ("POST", "/api/games/{game_id}/chat"),
    ("POST", "/api/games/{game_id}/chat/read"),
    ("GET", "/api/me/games"),
}


@pytest.mark.django_db
def test_openapi_document_is_served_and_valid() -> None:
    """The schema is at /api/openapi.json (no login needed), is OpenAPI 3, passes the OpenAPI meta-schema,
    documents every operation with its error statuses, and declares both auth methods."""
    response = Client().get("/api/openapi.json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    doc = response.json()
    assert str(doc["openapi"]).startswith("3.")
    schemathesis.openapi.from_dict(doc).validate()  # raises on a document that breaks the OpenAPI schema
    found = {(method.upper(), path) for path, item in doc["paths"].items() for method in item}
    assert found == OPERATIONS
    submit = doc["paths"]["/api/games/{game_id}/actions"]["post"]
    assert {"200", "400", "401", "403", "404", "409", "422"} <= set(submit["responses"])
    schemes = doc["components"]["securitySchemes"]
    assert {"type": "http", "scheme": "bearer"} in schemes.values()
    assert any(s.get("in") == "cookie" for s in schemes.values())
    body = doc["components"]["schemas"]["ActionIn"]
    assert body["additionalProperties"] is False and set(body["required"]) == {"expected_seq", "action"}


@pytest.mark.django_db(transaction=True)
def test_schemathesis_finds_no_server_error(live_server: Any) -> None:
    """Positive and negative requests generated from the schema, sent with a valid bearer token to a live
    test server (to random ids and to a real started game, a lobby and a game the caller has no seat in),
    never get a 5xx."""
    user = create_user()
    token = ApiToken.issue(user)
    game = services.game_create(user=user, title="Schemathesis", players=3)
    services.seats_fill_with_bots(game_id=game.pk, user=user)
    services.game_start(game_id=game.pk, user=user, seed=5)
    lobby = services.game_create(user=user, title="Lobby", players=2)
    stranger = create_user()
    foreign = services.game_create(user=stranger, title="Not mine", players=2)
    services.seats_fill_with_bots(game_id=foreign.pk, user=stranger)
    services.game_start(game_id=foreign.pk, user=stranger, seed=9)

    config = schemathesis.config.SchemathesisConfig.from_path(Path(__file__).with_name("schemathesis.toml"))
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/openapi.json", config=config)
    headers = {"Authorization": f"Bearer {token}"}
    tested: set[tuple[str, str]] = set()
    for result in schema.get_all_operations():
        if isinstance(result, Err):
            raise result.err()
        operation = result.ok()
        tested.add((operation.method.upper(), operation.path))
        variants: list[dict[str, Any] | None] = [None]
        if "{game_id}" in operation.path:
            variants += [{"game_id": game.pk}, {"game_id": lobby.pk}, {"game_id": foreign.pk}]
        modes = [GenerationMode.POSITIVE]
        if operation.path_parameters or operation.body:
            modes.append(GenerationMode.NEGATIVE)
        for mode in modes:
            for path_parameters in variants:
                if mode == GenerationMode.NEGATIVE and path_parameters and not operation.body:
                    continue  # nothing left to make invalid
                strategy = operation.as_strategy(mode, path_parameters=path_parameters, headers=headers)
                _run(strategy, live_server.url)
    assert tested == OPERATIONS
    assert Game.objects.get(pk=game.pk).status in (Game.Status.ACTIVE, Game.Status.FINISHED)


def _run(strategy: Any, base_url: str) -> None:
    """Send ``MAX_EXAMPLES`` generated cases and check each answer is not a server error."""

    @given(case=strategy)
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        case.call_and_validate(base_url=base_url)  # every check schemathesis has (issue 12)

    check()
