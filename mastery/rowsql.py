"""Pre-built SQL for the statements every action submit runs (issue 3 "Speed it must reach").

Django's ORM compiles each queryset anew: on the 2-core benchmark machine that was 0.3–1 ms of CPU per
statement, about half of a submit's CPU. :class:`Table` builds each statement's SQL once per model and field
list and runs it on Django's own connection, with Django's own value handling on the way in
(``Field.pre_save`` then ``Field.get_db_prep_save``, as ``SQLInsertCompiler`` does) and on the way out
(the backend's and the field's ``get_db_converters``, then ``Model.from_db``, as ``SQLCompiler`` does). So a
row written or read here holds exactly what the ORM would write or read, on PostgreSQL and SQLite alike.

Only the hot path uses it (``games.services`` locking and storing a game, the outbox rows and API token
lookups); everything else stays on the ORM.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connections, models
from django.db.models.constants import OnConflict

M = TypeVar("M", bound=models.Model)

Converter = Callable[[Any, Any, Any], Any]


class Table(Generic[M]):
    """The columns of one model's table and the SQL to read, insert and update its rows.

    Args:
        model: a concrete Django model class.
        using: the database alias (default ``"default"``).
        defer: field names left out of :meth:`columns` and :meth:`load` (loaded on first access, as with
            ``QuerySet.defer``); a table with deferred fields cannot :meth:`insert`.
    """

    def __init__(self, model: type[M], using: str = "default", defer: Iterable[str] = ()) -> None:
        self.model = model
        self.using = using
        self.deferred = frozenset(defer)
        self.fields: list[models.Field[Any, Any]] = [
            f for f in model._meta.concrete_fields if f.name not in self.deferred
        ]
        self.attnames = [f.attname for f in self.fields]
        self.width = len(self.fields)
        self._converters: list[list[Converter]] | None = None
        self._cols: list[Any] = []
        self._sql: dict[tuple[Any, ...], str] = {}
        self._by_name = {f.name: f for f in self.fields} | {f.attname: f for f in self.fields}
        self._quoted: dict[str, str] = {}  # column name -> quoted (the backend of ``using`` never changes)

    @property
    def _connection(self) -> Any:
        return connections[self.using]

    def _quote(self, name: str | None) -> str:
        quoted = self._quoted.get(name or "")
        if quoted is None:
            quoted = self._quoted[name or ""] = str(self._connection.ops.quote_name(name))
        return quoted

    @property
    def name(self) -> str:
        """The quoted table name."""
        return self._quote(self.model._meta.db_table)

    def columns(self, alias: str) -> str:
        """The select list of every concrete column, in field order, qualified with ``alias``."""
        return ", ".join(f"{alias}.{self._quote(f.column)}" for f in self.fields)

    def load(self, row: Sequence[Any], start: int = 0, connection: Any = None) -> M:
        """Build a model instance from ``row[start:start + width]`` (columns in :meth:`columns` order),
        converting values as the ORM does (e.g. JSON text to Python, SQLite integers to booleans).

        ``connection``: this table's database connection, when the caller loading many rows already has
        it (looking it up is a thread-local access per call)."""
        if connection is None:
            connection = self._connection
        if self._converters is None:
            cols = [f.get_col(self.model._meta.db_table) for f in self.fields]
            self._cols = cols
            self._converters = [
                connection.ops.get_db_converters(col) + col.get_db_converters(connection) for col in cols
            ]
        values = list(row[start : start + self.width])
        for i, converters in enumerate(self._converters):
            for convert in converters:
                values[i] = convert(values[i], self._cols[i], connection)
        return self.model.from_db(self.using, self.attnames, values)

    def fetch(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Run a SELECT on this table's database and return its rows."""
        with self._connection.cursor() as cursor:
            cursor.execute(sql, params)
            return list(cursor.fetchall())

    def insert(
        self, objs: Sequence[M], *, ignore_conflicts: bool = False, batch: Batch | None = None
    ) -> None:
        """``INSERT`` ``objs`` in one statement (``bulk_create`` without the per-call query compilation), now
        or, with ``batch``, when the batch runs.

        Sets each object's primary key when the database returns it (PostgreSQL, SQLite ≥ 3.35) unless
        ``ignore_conflicts`` (rows that conflict with a unique constraint are then skipped, as
        ``bulk_create(ignore_conflicts=True)`` does).
        """
        if not objs:
            return
        assert not self.deferred, "insert through a table without deferred fields"
        connection = self._connection
        pk = self.model._meta.pk
        assert pk is not None
        fields = [f for f in self.fields if f is not pk or getattr(objs[0], pk.attname) is not None]
        returning = not ignore_conflicts and connection.features.can_return_rows_from_bulk_insert
        key = ("insert", len(objs), len(fields), ignore_conflicts, returning)
        sql = self._sql.get(key)
        if sql is None:
            on_conflict = OnConflict.IGNORE if ignore_conflicts else None
            row = "(" + ", ".join(["%s"] * len(fields)) + ")"
            sql = (
                f"{connection.ops.insert_statement(on_conflict=on_conflict)} {self.name} "
                f"({', '.join(self._quote(f.column) for f in fields)}) VALUES {', '.join([row] * len(objs))}"
            )
            suffix = connection.ops.on_conflict_suffix_sql(fields, on_conflict, None, None)
            if suffix:
                sql += " " + suffix
            if returning:
                sql += f" RETURNING {self._quote(pk.column)}"
            self._sql[key] = sql
        params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for obj in objs for f in fields]
        write = _Write(sql, params, list(objs), returning, pk.attname, self.using)
        if batch is not None:
            batch.add(write)
            return
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            ids = [row[0] for row in cursor.fetchall()] if returning else []
        write.done(ids)

    def update(self, obj: M, fields: Iterable[str], *, batch: Batch | None = None) -> int | None:
        """``UPDATE`` the row of ``obj`` with the current values of ``fields`` (``save(update_fields=…)``
        without the signals and query compilation; ``auto_now`` fields among them are set to now).

        Returns:
            The number of rows updated (0 when the row is gone); ``None`` when added to ``batch``.
        """
        pk = self.model._meta.pk
        assert pk is not None
        return self.update_matching(obj, fields, {pk.attname: obj.pk}, batch=batch)

    def update_matching(
        self, obj: M, fields: Iterable[str], match: Mapping[str, Any], *, batch: Batch | None = None
    ) -> int | None:
        """``UPDATE`` the rows whose fields equal ``match`` (field name -> value) with the current values
        of ``fields`` on ``obj``, now or, with ``batch``, when the batch runs.

        Returns:
            The number of rows updated; ``None`` when added to ``batch``.
        """
        connection = self._connection
        chosen = [self._by_name[name] for name in fields]
        conditions, where_params = self._where([match])
        key = ("update", *(f.attname for f in chosen), "where", conditions)
        sql = self._sql.get(key)
        if sql is None:
            assignments = ", ".join(f"{self._quote(f.column)} = %s" for f in chosen)
            sql = f"UPDATE {self.name} SET {assignments} WHERE {conditions}"
            self._sql[key] = sql
        params = [f.get_db_prep_save(f.pre_save(obj, False), connection) for f in chosen]
        return self.execute(sql, params + where_params, batch=batch)

    def delete_matching(
        self, matches: Sequence[Mapping[str, Any]], *, batch: Batch | None = None
    ) -> int | None:
        """``DELETE`` the rows whose fields equal any of ``matches`` (each field name -> value), in one
        statement, now or, with ``batch``, when the batch runs.

        Returns:
            The number of rows deleted; ``None`` when added to ``batch`` or when ``matches`` is empty.
        """
        if not matches:
            return None
        conditions, params = self._where(matches)
        return self.execute(f"DELETE FROM {self.name} WHERE {conditions}", params, batch=batch)

    def _where(self, matches: Sequence[Mapping[str, Any]]) -> tuple[str, list[Any]]:
        """The condition ``(a = %s AND b = %s) OR …`` for ``matches`` and its parameters (prepared with
        ``Field.get_db_prep_value``)."""
        connection = self._connection
        groups, params = [], []
        for match in matches:
            fields = [self._by_name[name] for name in match]
            groups.append(" AND ".join(f"{self._quote(f.column)} = %s" for f in fields))
            params += [
                f.get_db_prep_value(v, connection) for f, v in zip(fields, match.values(), strict=True)
            ]
        if len(groups) == 1:
            return groups[0], params
        return " OR ".join(f"({group})" for group in groups), params

    def execute(self, sql: str, params: Sequence[Any], *, batch: Batch | None = None) -> int | None:
        """Run a statement written for this table (a DELETE or UPDATE without RETURNING) now and return the
        rows it touched, or add it to ``batch`` (``None``)."""
        if batch is not None:
            batch.add(_Write(sql, list(params), [], False, "", self.using))
            return None
        with self._connection.cursor() as cursor:
            cursor.execute(sql, params)
            return int(cursor.rowcount)


@dataclass
class _Write:
    """One write statement of a :class:`Batch`: ``objs`` are the rows an INSERT saves and, when
    ``returning``, the statement's ``RETURNING`` gives their primary keys (attribute ``pk_attname``) in
    order."""

    sql: str
    params: list[Any]
    objs: list[Any]
    returning: bool
    pk_attname: str
    using: str

    def done(self, ids: Sequence[Any]) -> None:
        """Mark the inserted objects saved and set the primary keys returned."""
        for obj, pk in zip(self.objs, ids, strict=False):
            setattr(obj, self.pk_attname, pk)
        for obj in self.objs:
            obj._state.adding = False
            obj._state.db = self.using


class Batch:
    """Writes collected by :class:`Table` methods (``batch=``) and sent together by :meth:`run`.

    On PostgreSQL they go as one statement, each write a data-modifying ``WITH`` query (PostgreSQL docs
    "WITH Queries", "Data-Modifying Statements in WITH"): one round trip and one statement for the
    server to run instead of one per write. Elsewhere they run one by one, in the order added. All writes
    of a batch see the database as it was before the batch, so they must touch different rows; a
    failure of one fails them all (as inside a transaction it would anyway).
    """

    def __init__(self, using: str = "default") -> None:
        self.using = using
        self.writes: list[_Write] = []

    def add(self, write: _Write) -> None:
        """Queue one write (called by :class:`Table`)."""
        self.writes.append(write)

    def run(self) -> None:
        """Send every queued write, then set the primary keys the inserts returned. Empties the batch."""
        writes, self.writes = self.writes, []
        connection = connections[self.using]
        if len(writes) < 2 or connection.vendor != "postgresql":
            with connection.cursor() as cursor:
                for write in writes:
                    cursor.execute(write.sql, write.params)
                    write.done([row[0] for row in cursor.fetchall()] if write.returning else [])
            return
        ctes = ", ".join(f"w{i} AS ({w.sql})" for i, w in enumerate(writes))
        selects = [f"SELECT {i} AS w, * FROM w{i}" for i, w in enumerate(writes) if w.returning]
        sql = f"WITH {ctes} " + (" UNION ALL ".join(selects) if selects else "SELECT 1")
        with connection.cursor() as cursor:
            cursor.execute(sql, [p for w in writes for p in w.params])
            rows = cursor.fetchall() if selects else []
        for i, write in enumerate(writes):
            write.done([row[1] for row in rows if row[0] == i])
