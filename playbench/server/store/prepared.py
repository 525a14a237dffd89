"""Statements of the hot write path, compiled once and run on the driver's own cursor.

An act writes the same three statements each time (the step's ``UPDATE``, its log entry,
the puzzle spent). SQLAlchemy's execution of a cached statement still costs about 20 us a
statement in Python (its execution context, events and result), ten times the driver's
own work; the group commit's thread runs them for every act and holds the interpreter
meanwhile. A :class:`Prepared` statement is compiled by SQLAlchemy (its SQL, the order of
its parameters, each column type's conversion) once per dialect, then handed straight to
the DB-API cursor of the connection in hand, inside that connection's transaction. The
driver's errors are raised as SQLAlchemy's own (an ``IntegrityError`` is one either way).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.expression import Executable

#: a bound parameter with no value of its own: the caller must give one
REQUIRED = object()


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    #: each bound parameter's name, its type's conversion (None: passed as it is) and its
    #: value in the statement (``REQUIRED``: none)
    binds: tuple[tuple[str, Callable[[Any], Any] | None, Any], ...]
    positional: bool

    def parameters(self, values: Mapping[str, Any]) -> Sequence[Any] | dict[str, Any]:
        converted = []
        for name, convert, own in self.binds:
            value = values.get(name, own)
            if value is REQUIRED:
                raise KeyError(name)
            converted.append((name, value if convert is None else convert(value)))
        if self.positional:
            return [value for _name, value in converted]
        return dict(converted)


class Prepared:
    """``statement`` compiled once per dialect (an ``INSERT`` for the columns ``keys``),
    run with a mapping of its bound parameters' values by :meth:`run`."""

    def __init__(self, statement: Executable, keys: Sequence[str] | None = None) -> None:
        self.statement = statement
        self.keys = list(keys) if keys is not None else None
        self._by_dialect: dict[str, _Compiled] = {}

    def compiled(self, dialect: Dialect) -> _Compiled:
        found = self._by_dialect.get(dialect.name)
        if found is None:
            compiled = self.statement.compile(dialect=dialect, column_keys=self.keys)
            names = compiled.positiontup if compiled.positional else list(compiled.binds)
            binds = tuple(
                (name, bind.type.bind_processor(dialect), _own_value(bind))
                for name, bind in ((name, compiled.binds[name]) for name in names or ())
            )
            found = _Compiled(compiled.string, binds, compiled.positional)
            self._by_dialect[dialect.name] = found
        return found

    def run(self, conn: Connection, values: Mapping[str, Any]) -> Any:
        """Execute within ``conn``'s transaction; the driver's cursor (its ``rowcount``,
        the rows of a ``RETURNING``)."""
        dialect = conn.dialect
        compiled = self.compiled(dialect)
        parameters = compiled.parameters(values)
        cursor = driver_cursor(conn)
        try:
            cursor.execute(compiled.sql, parameters)
        except dialect.loaded_dbapi.Error as error:
            raise DBAPIError.instance(
                compiled.sql, parameters, error, dialect.loaded_dbapi.Error, dialect=dialect
            ) from error
        return cursor


def _own_value(bind: Any) -> Any:
    """The value a bound parameter carries in the statement (``values(score=7)``)."""
    return REQUIRED if bind.required else bind.effective_value


def driver_cursor(conn: Connection) -> Any:
    """A new DB-API cursor on ``conn``'s own driver connection (in its transaction)."""
    return conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
