"""A table's schema: its columns, primary key and secondary indexes, checked when the ``Schema`` is made.

A schema says what a table holds, not how it is stored (that is ``minidb.table``): each index becomes one keyspace
of the engine, named ``"<table>.<index>"`` (``schema.keyspace(index)``), the primary index ``"<table>.primary"``.
Names are checked here, once, so that every later error can name what is wrong.
"""

from __future__ import annotations

import keyword
import re
from collections import namedtuple
from collections.abc import Iterable
from dataclasses import dataclass

from .rowcodec import COLUMN_TYPES

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
PRIMARY = "primary"  # name of every table's primary index (reserved: no secondary index may take it)


@dataclass(frozen=True)
class Column:
    """One column of a table."""

    name: str  # column name: a letter, then letters, digits or '_'
    type: str  # one of rowcodec.COLUMN_TYPES: int, int32, float, str, bytes
    nullable: bool = False  # whether the column may hold None (SQL NULL)


@dataclass(frozen=True)
class Index:
    """A secondary index: the columns it orders rows by, and whether two rows may share its values."""

    name: str  # index name, unique within its table
    columns: tuple[str, ...]  # indexed columns, most significant first
    unique: bool = False  # True: at most one row per combination of non-NULL values


@dataclass(frozen=True)
class Schema:
    """A table's columns, primary key and secondary indexes.

    Columns may be given as ``Column`` objects or ``(name, type)`` / ``(name, type, nullable)`` tuples, indexes as
    ``Index`` objects or ``(name, columns)`` / ``(name, columns, unique)`` tuples. ``schema.Row`` is the named
    tuple type of the table's rows.
    """

    name: str  # table name; its keyspaces are named "<name>.<index>"
    columns: tuple[Column, ...]  # every column, in row order
    primary_key: tuple[str, ...]  # columns of the primary key, most significant first
    indexes: tuple[Index, ...] = ()  # secondary indexes

    def __post_init__(self) -> None:
        _check_name("table", self.name)
        columns = tuple(c if isinstance(c, Column) else Column(*c) for c in self.columns)
        indexes = tuple(i if isinstance(i, Index) else Index(i[0], tuple(i[1]), *i[2:]) for i in self.indexes)
        pk = (self.primary_key,) if isinstance(self.primary_key, str) else tuple(self.primary_key)
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "indexes", tuple(Index(i.name, tuple(i.columns), i.unique) for i in indexes))
        object.__setattr__(self, "primary_key", pk)
        where = f"table {self.name!r}"
        if not columns:
            raise ValueError(f"{where} has no columns")
        names = [c.name for c in columns]
        for c in columns:
            _check_name(f"{where}: column", c.name)
            if c.type not in COLUMN_TYPES:
                raise ValueError(f"{where}: column {c.name!r} has unknown type {c.type!r}; "
                                 f"known types: {', '.join(COLUMN_TYPES)}")
        _check_distinct(f"{where}: column", names)
        if not pk:
            raise ValueError(f"{where} has no primary key")
        _check_columns(f"{where}: primary key", pk, names)
        for name in pk:
            if columns[names.index(name)].nullable:
                raise ValueError(f"{where}: primary key column {name!r} cannot be nullable")
        _check_distinct(f"{where}: index", [i.name for i in self.indexes])
        for i in self.indexes:
            _check_name(f"{where}: index", i.name)
            if i.name == PRIMARY:
                raise ValueError(f"{where}: {PRIMARY!r} is the primary index's name; pick another index name")
            if not i.columns:
                raise ValueError(f"{where}: index {i.name!r} has no columns")
            _check_columns(f"{where}: index {i.name!r}", i.columns, names)
        object.__setattr__(self, "Row", namedtuple(f"{self.name}_row", names))

    @property
    def column_names(self) -> tuple[str, ...]:
        """Column names in row order."""
        return tuple(c.name for c in self.columns)

    def index(self, name: str) -> Index:
        """The secondary index called ``name``."""
        for i in self.indexes:
            if i.name == name:
                return i
        known = ", ".join(i.name for i in self.indexes) or "none"
        raise ValueError(f"table {self.name!r} has no index {name!r}; its indexes: {known}")

    def keyspace(self, index: str = PRIMARY) -> str:
        """Name of the engine keyspace holding ``index`` (default: the primary index)."""
        if index != PRIMARY:
            self.index(index)
        return f"{self.name}.{index}"


def _check_name(what: str, name: str) -> None:
    if not isinstance(name, str) or not _NAME.match(name) or keyword.iskeyword(name):
        raise ValueError(f"bad {what} name {name!r}: use a letter, then letters, digits or '_' (no Python keyword)")


def _check_distinct(what: str, names: list[str]) -> None:
    seen = set()
    for n in names:
        if n in seen:
            raise ValueError(f"{what} {n!r} appears twice")
        seen.add(n)


def _check_columns(what: str, cols: Iterable[str], names: list[str]) -> None:
    cols = list(cols)
    _check_distinct(f"{what} column", cols)
    for c in cols:
        if c not in names:
            raise ValueError(f"{what} names unknown column {c!r}; columns: {', '.join(names)}")
