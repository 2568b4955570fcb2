"""A table's schema: its columns, primary key and secondary indexes, checked when the ``Schema`` is made.

A schema says what a table holds, not how it is stored (that is ``minidb.table``): each index becomes one keyspace
of the engine, named ``"<table>.<index>"`` (``schema.keyspace(index)``), the primary index ``"<table>.primary"``.
Names are checked here, once, so that every later error can name what is wrong.

**Index comments.** As in MySQL, an index may carry a free-text ``COMMENT``; MyRocks reads placement from it:
``PRIMARY KEY (id) COMMENT 'cfname=cf1'`` puts the index into the column family ``cf1``. Here the comment is the
``comment`` of an ``Index`` (or ``Schema.primary_comment`` for the primary key), written either as the bare text
(``"cfname=cf1"``) or as MySQL's clause (``"COMMENT 'cfname=cf1'"``). The text is a list of ``key=value`` items
separated by ``;`` (MyRocks' qualifier syntax); ``cfname`` names the column family, anything else is left alone,
as MyRocks leaves it. ``schema.column_family(index)`` gives the name, or None for the engine's default family.
"""

from __future__ import annotations

import functools
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
    comment: str = ""  # MySQL's index COMMENT; ``cfname=NAME`` places the index in a column family (MyRocks)


@dataclass(frozen=True)
class Schema:
    """A table's columns, primary key and secondary indexes.

    Columns may be given as ``Column`` objects or ``(name, type)`` / ``(name, type, nullable)`` tuples, indexes as
    ``Index`` objects or ``(name, columns)`` / ``(name, columns, unique)`` / ``(name, columns, unique, comment)``
    tuples. ``schema.Row`` is the named tuple type of the table's rows.
    """

    name: str  # table name; its keyspaces are named "<name>.<index>"
    columns: tuple[Column, ...]  # every column, in row order
    primary_key: tuple[str, ...]  # columns of the primary key, most significant first
    indexes: tuple[Index, ...] = ()  # secondary indexes
    primary_comment: str = ""  # the primary key's COMMENT (see the module docstring)

    def __post_init__(self) -> None:
        _check_name("table", self.name)
        columns = tuple(c if isinstance(c, Column) else Column(*c) for c in self.columns)
        indexes = tuple(i if isinstance(i, Index) else Index(i[0], tuple(i[1]), *i[2:]) for i in self.indexes)
        pk = (self.primary_key,) if isinstance(self.primary_key, str) else tuple(self.primary_key)
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "indexes", tuple(Index(i.name, tuple(i.columns), i.unique, i.comment)
                                                  for i in indexes))
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
            cf_name(i.comment, f"{where}: index {i.name!r}")
        cf_name(self.primary_comment, f"{where}: primary key")
        object.__setattr__(self, "Row", namedtuple(f"{self.name}_row", names))

    @functools.cached_property  # every row checked asks for them (a frozen dataclass still caches in its __dict__)
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

    def column_family(self, index: str = PRIMARY) -> str | None:
        """The column family ``index``'s comment names (``cfname=...``), or None: the engine's default family."""
        if index == PRIMARY:
            return cf_name(self.primary_comment, f"table {self.name!r}: primary key")
        return cf_name(self.index(index).comment, f"table {self.name!r}: index {index!r}")


_CLAUSE = re.compile(r"^\s*COMMENT\s*'(.*)'\s*$", re.IGNORECASE | re.DOTALL)  # MySQL's COMMENT 'text' clause
_CF_NAME = re.compile(r"^[A-Za-z0-9_-]+$")  # a column family name (RocksDB allows more; this keeps files readable)


def cf_name(comment: str, where: str = "index") -> str | None:
    """The ``cfname`` of an index comment (``"cfname=cf1"`` or ``"COMMENT 'cfname=cf1'"``), or None if it names
    none; ValueError naming ``where`` if the comment is not a str or names an unusable family."""
    if not isinstance(comment, str):
        raise ValueError(f"bad comment {comment!r} of {where}: must be a str")
    clause = _CLAUSE.match(comment)
    text = clause.group(1) if clause else comment
    found = None
    for item in text.split(";"):
        key, sep, value = item.partition("=")
        if sep and key.strip().lower() == "cfname":
            if found is not None:
                raise ValueError(f"bad comment {comment!r} of {where}: cfname is given twice")
            found = value.strip()
            if not _CF_NAME.match(found):
                raise ValueError(f"bad comment {comment!r} of {where}: column family name {found!r} must be "
                                 f"letters, digits, '_' or '-' (MyRocks' reverse-order 'rev:' families do not exist "
                                 f"here)")
    return found


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
