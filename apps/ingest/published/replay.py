"""Replay the SQL files of the io500.org webpage repository (a MySQL dump and its migrations) into a staging
SQLite database, statement by statement, and read the published record out of it. Plain Python, no Django.

Why sqlglot: it is a maintained MySQL parser and transpiler, so each statement is understood as SQL (an
`INSERT ... SELECT`, an `UPDATE ... WHERE`, a `TRUNCATE`, a view) and run with its own semantics, never
rewritten by patterns over its text. SQLite cannot alter a column or add a primary key, so the staging keeps
each table's column definitions and rebuilds the table when the MySQL files alter it, converting the values as
MySQL does.

A statement that touches a table the files never create (one that existed on the live site only) is reported
and skipped; the files' known defects are repaired by the corrections table (`corrections.py`); any other
statement that cannot be applied raises ReplayError with its file and line.
"""

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Tokenizer, TokenType

from apps.ingest.published.corrections import (
    CORRECTIONS,
    EMPTY_STRING_AS_ZERO,
    SERIAL_AUTO_INCREMENT,
    Correction,
)

#: The order in which io500.org applied the files (their commit order, not their names' order; see the README of
#: the copied repository).
COMMIT_ORDER = [
    "2021-02-02-io500-db.sql",
    "2021-01-11-update-user-modified-override.sql",
    "2021-01-11-update-user-modified.sql",
    "2021-02-10-update-fied-type.sql",
    "2021-03-21-fix-column-type.sql",
    "2021-03-22-upgrade-db-structure.sql",
    "2021-03-23-create-view.sql",
    "2021-03-23-remove-duplicate-entries.sql",
    "2021-05-07-update-janelia-information.sql",
    "2021-06-26-insert-scc19-list.sql",
    "2021-06-26-insert-data-center-list-url.sql",
    "2021-07-1-insert-isc21-list.sql",
    "2021-05-01-fix-list-id.sql",
    "2021-07-1-update-endeavour.sql",
    "2021-07-1-fix-isc21-list.sql",
    "2021-07-01-fresh-update-isc21-list.sql",
    "2021-05-07-update-venus-2-vendor.sql",
    "2021-07-20-update-fix-mixed.sql",
    "2021-07-20-update-venus-2-vendor.sql",
    "2021-07-20-update-earth-system.sql",
    "2021-11-19-update-NRCTM-name.sql",
    "2021-11-22-update-CMKL-name.sql",
    "2021-11-26-update-ocean-stor-name.sql",
    "2021-12-01-update-MCK-HPC-name.sql",
    "2021-12-07-update-MCK-HPC-name-again.sql",
    "2021-03-01-include-github-link.sql",
    "2022-06-23-remove-duplicate-from-isc22-10-node-list.sql",
    "2022-11-04-update-AI400X2-name.sql",
    "2023-08-02-update-isc23-arches.sql",
    "2023-08-01-updates-isc23-production-list.sql",
    "2024-04-07-map-fields.sql",
]

INTEGER_TYPES = {
    exp.DataType.Type.TINYINT,
    exp.DataType.Type.UTINYINT,
    exp.DataType.Type.SMALLINT,
    exp.DataType.Type.USMALLINT,
    exp.DataType.Type.MEDIUMINT,
    exp.DataType.Type.UMEDIUMINT,
    exp.DataType.Type.INT,
    exp.DataType.Type.UINT,
    exp.DataType.Type.BIGINT,
    exp.DataType.Type.UBIGINT,
    exp.DataType.Type.SERIAL,
    exp.DataType.Type.BIGSERIAL,
}
REAL_TYPES = {
    exp.DataType.Type.DECIMAL,
    exp.DataType.Type.UDECIMAL,
    exp.DataType.Type.DOUBLE,
    exp.DataType.Type.UDOUBLE,
    exp.DataType.Type.FLOAT,
}
#: Statements without an effect on the data: session settings and transaction control (the whole replay is one
#: transaction of the staging database).
NO_DATA_EFFECT = (exp.Set, exp.Transaction, exp.Commit, exp.Use)
SERIAL_REFUSED = "SERIAL with AUTO_INCREMENT (MariaDB refuses the column definition)"


class ReplayError(Exception):
    """A statement the replay cannot apply: names the file and line."""

    def __init__(self, file: str, line: int, message: str):  # line 0: the file as a whole
        super().__init__(f"{file}, line {line}: {message}" if line else f"{file}: {message}")
        self.file = file
        self.line = line


@dataclass(frozen=True)
class Statement:
    file: str
    index: int  # 0-based, in the file
    line: int  # 1-based, where the statement starts
    text: str


@dataclass
class Column:
    name: str
    affinity: str  # INTEGER, REAL or TEXT
    not_null: bool = False
    primary_key: bool = False
    auto_increment: bool = False
    default: str | None = None  # SQL text of the default value
    serial_auto_increment: bool = False  # SERIAL with an explicit AUTO_INCREMENT, which MariaDB refuses


@dataclass
class Change:
    """One statement of a migration that corrected published data: renames, vendor fixes, removals, moves."""

    file: str
    line: int
    table: str
    action: str  # update, delete, insert
    rows: list[dict]  # for updates: {"id", "column", "before", "after"}; else the rows removed or added


@dataclass
class ReplayReport:
    files: list[str] = field(default_factory=list)
    statements: int = 0
    skipped: list[tuple[str, int, str]] = field(default_factory=list)  # (file, line, reason)
    corrections: list[tuple[Correction, int]] = field(default_factory=list)  # (correction, line)

    def lines(self) -> list[str]:
        out = [f"{len(self.files)} files, {self.statements} statements"]
        out += [f"corrected {c.file} statement {c.statement} (line {line}): {c.reason}" for c, line in self.corrections]
        out += [f"skipped {file}, line {line}: {reason}" for file, line, reason in self.skipped]
        return out


def split_statements(file: str, text: str) -> list[Statement]:
    """The statements of a MySQL file, cut at the semicolons the MySQL tokenizer sees (not those in strings or
    comments)."""
    try:
        tokens = Tokenizer(dialect="mysql").tokenize(text)
    except SqlglotError as exc:
        raise ReplayError(file, 1, f"cannot be tokenized as MySQL: {exc}") from exc
    statements: list[Statement] = []
    current: list = []
    for token in [*tokens, None]:
        if token is None or token.token_type == TokenType.SEMICOLON:
            if current:
                start, end = current[0].start, current[-1].end
                statements.append(Statement(file, len(statements), current[0].line, text[start : end + 1]))
            current = []
        else:
            current.append(token)
    return statements


class Staging:
    """The staging SQLite database and the column definitions of its tables."""

    def __init__(self):
        self.db = sqlite3.connect(":memory:", isolation_level=None)
        self.tables: dict[str, list[Column]] = {}
        self.views: set[str] = set()
        self.changes: list[Change] = []

    # -- schema ----------------------------------------------------------------------------------------------
    def column_from(self, definition: exp.ColumnDef) -> Column:
        kind = definition.args.get("kind")
        type_ = kind.this if isinstance(kind, exp.DataType) else None
        affinity = "INTEGER" if type_ in INTEGER_TYPES else "REAL" if type_ in REAL_TYPES else "TEXT"
        column = Column(definition.name, affinity)
        for constraint in definition.args.get("constraints") or []:
            kind_ = constraint.args.get("kind") if isinstance(constraint, exp.ColumnConstraint) else constraint
            if isinstance(kind_, exp.NotNullColumnConstraint):
                column.not_null = not kind_.args.get("allow_null")
            elif isinstance(kind_, exp.PrimaryKeyColumnConstraint):
                column.primary_key = True
            elif isinstance(kind_, exp.AutoIncrementColumnConstraint):
                column.auto_increment = True
            elif isinstance(kind_, exp.DefaultColumnConstraint):
                column.default = kind_.this.sql(dialect="sqlite")
        if type_ in {exp.DataType.Type.SERIAL, exp.DataType.Type.BIGSERIAL}:
            column.serial_auto_increment = column.auto_increment
            column.not_null = column.auto_increment = True
        return column

    def create_sql(self, table: str, columns: list[Column]) -> str:
        keyed = [c for c in columns if c.primary_key]
        parts = []
        for column in columns:
            if column.auto_increment and not column.primary_key and not keyed:
                column.primary_key = True
            words = [exp.to_identifier(column.name).sql(dialect="sqlite", identify=True)]
            if column.primary_key and len(keyed) <= 1 and column.affinity == "INTEGER":
                words.append("INTEGER PRIMARY KEY")
                words += ["AUTOINCREMENT"] if column.auto_increment else []
            else:
                words.append(column.affinity)
                words += ["NOT NULL"] if column.not_null else []
            words += [f"DEFAULT {column.default}"] if column.default is not None else []
            parts.append(" ".join(words))
        return f"CREATE TABLE {quoted(table)} ({', '.join(parts)})"

    def rebuild(self, table: str, columns: list[Column], casts: dict[str, str]) -> None:
        """Recreate `table` with `columns`, copying its rows (column -> cast expression where a type changed)."""
        temporary = f"{table}__rebuild"
        self.db.execute(self.create_sql(temporary, columns))
        old_names = {old.name for old in self.tables[table]}
        names = [c.name for c in columns if c.name in old_names or c.name in casts]
        selected = ", ".join(casts.get(name, quoted(name)) for name in names)
        self.db.execute(
            f"INSERT INTO {quoted(temporary)} ({', '.join(map(quoted, names))}) SELECT {selected} FROM {quoted(table)}"
        )
        self.db.execute(f"DROP TABLE {quoted(table)}")
        self.db.execute(f"ALTER TABLE {quoted(temporary)} RENAME TO {quoted(table)}")
        self.tables[table] = columns

    def integer_values_that_are_not(self, table: str, column: str) -> int:
        """Rows whose `column` holds text MySQL's strict mode refuses to convert to an integer ('' or words)."""
        return self.db.execute(
            f"SELECT COUNT(*) FROM {quoted(table)} WHERE {quoted(column)} IS NOT NULL "
            f"AND CAST(CAST({quoted(column)} AS INTEGER) AS TEXT) != TRIM({quoted(column)})"
        ).fetchone()[0]


def quoted(name: str) -> str:
    return exp.to_identifier(name).sql(dialect="sqlite", identify=True)


def tables_named(expression: exp.Expression) -> set[str]:
    return {table.name for table in expression.find_all(exp.Table) if table.name}


class Replay:
    """Applies statements to a Staging, in order; `run()` replays a directory."""

    def __init__(self, corrections: list[Correction] = CORRECTIONS):
        self.staging = Staging()
        self.report = ReplayReport()
        self.corrections = {(c.file, c.statement): c for c in corrections}
        self.file_index = 0
        self.filled_here: set[str] = set()

    def run(self, directory: Path, order: list[str] = COMMIT_ORDER) -> "Replay":
        missing = [name for name in order if not (directory / name).is_file()]
        if missing:
            raise ReplayError(missing[0], 0, f"not found in {directory}")
        for self.file_index, name in enumerate(order):
            self.replay_file(name, (directory / name).read_text(encoding="utf-8"))
        return self

    def replay_file(self, name: str, text: str) -> None:
        for correction in (c for c in self.corrections.values() if c.file == name and c.find):
            if text.count(correction.find) != 1:
                raise ReplayError(name, 0, f"correction of statement {correction.statement} no longer matches")
            text = text.replace(correction.find, correction.replace)
        self.report.files.append(name)
        self.filled_here: set[str] = set()  # list tables this file creates or empties: its inserts publish them
        for statement in split_statements(name, text):
            self.report.statements += 1
            self.apply(statement)

    def apply(self, statement: Statement) -> None:
        correction = self.corrections.get((statement.file, statement.index))
        if correction:
            self.report.corrections.append((correction, statement.line))
        try:
            expression = sqlglot.parse_one(statement.text, read="mysql")
        except SqlglotError as exc:
            raise ReplayError(statement.file, statement.line, f"not valid MySQL: {first_line(exc)}") from exc
        if isinstance(expression, NO_DATA_EFFECT):
            return
        if isinstance(expression, exp.Command):
            raise ReplayError(statement.file, statement.line, f"unsupported statement: {statement.text[:80]!r}")
        unknown = self.unknown_tables(expression)
        unknown |= self.unknown_columns(expression)
        if unknown:
            self.report.skipped.append(
                (statement.file, statement.line, f"touches {', '.join(sorted(unknown))}, which the files never create")
            )
            return
        if correction and correction.skip:
            return
        accepts = correction.accepts if correction else ""
        try:
            self.execute(expression, statement, accepts)
        except (sqlite3.Error, SqlglotError) as exc:
            raise ReplayError(statement.file, statement.line, str(exc)) from exc

    def unknown_tables(self, expression: exp.Expression) -> set[str]:
        known = set(self.staging.tables) | self.staging.views
        if isinstance(expression, exp.Create):
            inner = expression.expression
            return (tables_named(inner) - known) if inner is not None else set()
        if isinstance(expression, exp.Drop):
            return set()
        return tables_named(expression) - known

    def unknown_columns(self, expression: exp.Expression) -> set[str]:
        """Columns an ALTER places new columns after that the files never create (a later column of the site)."""
        if not isinstance(expression, exp.Alter):
            return set()
        table = expression.this.name
        known = {column.name for column in self.staging.tables[table]}
        added = {action.name for action in expression.args.get("actions") or [] if isinstance(action, exp.ColumnDef)}
        anchors = {
            position.this.name
            for action in expression.args.get("actions") or []
            if isinstance(action, exp.ColumnDef) and (position := action.args.get("position")) is not None
        }
        return {f"{table}.{name}" for name in anchors - known - added}

    # -- statements ------------------------------------------------------------------------------------------
    def execute(self, expression: exp.Expression, statement: Statement, accepts: str) -> None:
        staging = self.staging
        if isinstance(expression, exp.Create) and expression.kind == "TABLE":
            table = expression.this.this.name
            columns = [staging.column_from(d) for d in expression.this.expressions if isinstance(d, exp.ColumnDef)]
            serial = [c.name for c in columns if c.serial_auto_increment]
            if serial and accepts != SERIAL_AUTO_INCREMENT:
                raise ReplayError(statement.file, statement.line, f"{table}.{serial[0]}: {SERIAL_REFUSED}")
            for constraint in expression.this.expressions:
                if isinstance(constraint, exp.PrimaryKey):
                    for key in constraint.expressions:
                        next(c for c in columns if c.name == key.name).primary_key = True
            staging.db.execute(staging.create_sql(table, columns))
            staging.tables[table] = columns
            self.filled_here.add(table)
        elif isinstance(expression, exp.Create) and expression.kind == "VIEW":
            staging.db.execute(expression.sql(dialect="sqlite"))
            staging.views.add(expression.this.name)
        elif isinstance(expression, exp.Drop) and expression.kind == "VIEW":
            staging.db.execute(expression.sql(dialect="sqlite"))
            staging.views.difference_update(table.name for table in expression.args.get("tables") or [])
        elif isinstance(expression, exp.Alter):
            self.alter(expression, statement, accepts == EMPTY_STRING_AS_ZERO)
        elif isinstance(expression, exp.TruncateTable):
            for table in expression.expressions:
                staging.db.execute(f"DELETE FROM {quoted(table.name)}")
                self.filled_here.add(table.name)
        elif isinstance(expression, exp.Insert):
            self.insert(expression, statement, accepts == EMPTY_STRING_AS_ZERO)
        elif isinstance(expression, (exp.Update, exp.Delete)):
            self.update_or_delete(expression, statement)
        else:
            raise ReplayError(statement.file, statement.line, f"unsupported statement {type(expression).__name__}")

    def alter(self, expression: exp.Alter, statement: Statement, lenient: bool) -> None:
        staging = self.staging
        table = expression.this.name
        columns = [Column(**vars(c)) for c in staging.tables[table]]
        casts: dict[str, str] = {}
        for action in expression.args.get("actions") or []:
            if isinstance(
                action, exp.ColumnDef
            ):  # ADD column: existing rows get its default, else MySQL's implicit one
                added = staging.column_from(action)
                columns.append(added)
                implicit = ("0" if added.affinity != "TEXT" else "''") if added.not_null else "NULL"
                casts[added.name] = added.default if added.default is not None else implicit
            elif isinstance(action, exp.ModifyColumn):  # MODIFY / CHANGE
                old_name = (action.args.get("old_column") or action.this).name
                new = staging.column_from(action.this)
                position = next(i for i, c in enumerate(columns) if c.name == old_name)
                old = columns[position]
                new.primary_key = old.primary_key
                if new.affinity == "INTEGER" and old.affinity != "INTEGER":
                    refused = staging.integer_values_that_are_not(table, old_name)
                    if refused and not lenient:
                        raise ReplayError(
                            statement.file,
                            statement.line,
                            f"{refused} values of {table}.{old_name} are not integers (MySQL's strict mode refuses)",
                        )
                    casts[new.name] = f"CAST({quoted(old_name)} AS INTEGER)"
                elif old_name != new.name:
                    casts[new.name] = quoted(old_name)
                columns[position] = new
            elif isinstance(action, exp.AddConstraint):
                for constraint in action.expressions:
                    if isinstance(constraint, exp.PrimaryKey):
                        for key in constraint.expressions:
                            next(c for c in columns if c.name == key.name).primary_key = True
            elif isinstance(action, exp.AlterSet | exp.Property | exp.AutoIncrementProperty):
                continue  # the next AUTO_INCREMENT value: the staging numbers from its rows
            else:
                raise ReplayError(statement.file, statement.line, f"unsupported ALTER action {action.sql('mysql')}")
        staging.rebuild(table, columns, casts)

    def insert(self, expression: exp.Insert, statement: Statement, lenient: bool) -> None:
        table = expression.this.this.name if isinstance(expression.this, exp.Schema) else expression.this.name
        columns = {c.name: c for c in self.staging.tables[table]}
        names = [i.name for i in expression.this.expressions] if isinstance(expression.this, exp.Schema) else []
        values = expression.expression
        if isinstance(values, exp.Values) and names:
            for row in values.expressions:
                for name, value in zip(names, row.expressions, strict=False):
                    column = columns.get(name)
                    if column and column.affinity == "INTEGER" and is_empty_string(value):
                        if not lenient:
                            raise ReplayError(
                                statement.file,
                                statement.line,
                                f"'' for the integer column {table}.{name} (MySQL's strict mode refuses)",
                            )
                        value.replace(exp.Literal.number(0))
        before = self.max_rowid(table)
        self.staging.db.execute(expression.sql(dialect="sqlite"))
        if self.is_migration(statement) and table.startswith("list_") and table not in self.filled_here:
            rows = self.rows(f"SELECT rowid AS __rowid, * FROM {quoted(table)} WHERE rowid > ?", (before,))
            self.staging.changes.append(Change(statement.file, statement.line, table, "insert", rows))

    def update_or_delete(self, expression: exp.Update | exp.Delete, statement: Statement) -> None:
        table = expression.this.name
        where = expression.args.get("where")
        condition = f" WHERE {where.this.sql(dialect='sqlite')}" if where else ""
        record = self.is_migration(statement) and (table == "submissions" or table.startswith("list_"))
        before = self.rows(f"SELECT rowid AS __rowid, * FROM {quoted(table)}{condition}") if record else []
        self.staging.db.execute(expression.sql(dialect="sqlite"))
        if not before:
            return
        if isinstance(expression, exp.Delete):
            self.staging.changes.append(Change(statement.file, statement.line, table, "delete", before))
            return
        rowids = [row["__rowid"] for row in before]
        after = {
            row["__rowid"]: row
            for row in self.rows(
                f"SELECT rowid AS __rowid, * FROM {quoted(table)} WHERE rowid IN ({','.join('?' * len(rowids))})",
                rowids,
            )
        }
        edits = [
            {"id": row.get("id"), "column": name, "before": value, "after": after[row["__rowid"]][name]}
            for row in before
            for name, value in row.items()
            if name != "__rowid" and row["__rowid"] in after and after[row["__rowid"]][name] != value
        ]
        if edits:
            self.staging.changes.append(Change(statement.file, statement.line, table, "update", edits))

    def is_migration(self, statement: Statement) -> bool:
        """A statement of a file after the dump: its changes to the record are corrections."""
        return self.file_index > 0

    def max_rowid(self, table: str) -> int:
        return self.staging.db.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {quoted(table)}").fetchone()[0]

    def rows(self, sql: str, parameters=()) -> list[dict]:
        cursor = self.staging.db.execute(sql, parameters)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def is_empty_string(value: exp.Expression) -> bool:
    return isinstance(value, exp.Literal) and value.is_string and value.this == ""


def first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


#: Files that publish lists (whole releases, their listings and links) rather than correct them: their rows are
#: the record itself, not entries of an edition's change log.
PUBLISHING_FILES = {
    "2021-06-26-insert-scc19-list.sql",
    "2021-06-26-insert-data-center-list-url.sql",
    "2021-07-1-insert-isc21-list.sql",
    "2021-05-01-fix-list-id.sql",
    "2021-07-01-fresh-update-isc21-list.sql",
    "2021-03-01-include-github-link.sql",
}


def corrections_made(changes: list[Change]) -> list[Change]:
    """The changes of the correcting migrations: values replaced (not filled in), rows removed, entries moved."""
    made = []
    for change in changes:
        if change.file in PUBLISHING_FILES:
            continue
        if change.action == "update":
            replaced = [edit for edit in change.rows if edit["before"] not in (None, "")]
            if replaced:
                made.append(Change(change.file, change.line, change.table, change.action, replaced))
        else:
            made.append(change)
    return made


@dataclass
class PublishedRecord:
    """What the replay leaves: the releases, every list table's rows, the submissions and the change log."""

    releases: dict[str, dict]  # acronym -> {"id", "release_date"}
    lists: dict[str, list[dict]]  # list table -> rows {"id", "listing_id", "submission_id", "score"}
    submissions: dict[int, dict]  # id -> every column
    changes: list[Change]
    report: ReplayReport


def read_record(replay: Replay) -> PublishedRecord:
    staging = replay.staging
    rows = replay.rows
    releases = {row["acronym"]: row for row in rows('SELECT * FROM "releases"')}
    lists = {
        table: rows(f"SELECT * FROM {quoted(table)} ORDER BY {quoted('id')}")
        for table in sorted(staging.tables)
        if table.startswith("list_")
    }
    submissions = {row["id"]: row for row in rows('SELECT * FROM "submissions"')}
    return PublishedRecord(releases, lists, submissions, corrections_made(staging.changes), replay.report)
