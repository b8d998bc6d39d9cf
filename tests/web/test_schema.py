"""The database schema carries no redundant index: every extra index costs each insert and each non-HOT
update on the submit path (issue 3 "Speed it must reach"), so an index whose columns are a leading part of
another index's columns (a foreign key's own index beside a unique ``(game, seq)`` constraint, say) must
not exist. PostgreSQL's ``*_like`` indexes (``varchar_pattern_ops``, for ``LIKE`` on ``CharField``) serve
other queries and are left out."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection

pytestmark = pytest.mark.django_db


def _indexes(table: str) -> dict[str, tuple[list[str], bool]]:
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, table)
    return {
        name: (list(info["columns"]), bool(info["unique"]))
        for name, info in found.items()
        if (info["index"] or info["unique"]) and info["columns"] and not name.endswith("_like")
    }


def test_no_index_is_covered_by_another() -> None:
    redundant = []
    for app in ("games", "accounts"):
        for model in apps.get_app_config(app).get_models():
            indexes = _indexes(model._meta.db_table)
            for name, (columns, unique) in indexes.items():
                if unique:
                    continue  # a unique index enforces something, even when another index covers it
                for other, (other_columns, _unique) in indexes.items():
                    if other != name and other_columns[: len(columns)] == columns:
                        redundant.append(f"{model._meta.db_table}.{name} {columns} (covered by {other})")
    assert redundant == []
