"""Reads on the hot paths (a worker's submission, the task page) whose SQL is compiled once, not per request.

Django compiles a queryset to SQL on every execution; for a row read with its related rows (an assignment with its
HIT, campaign and worker: about 70 columns) the compilation costs the web process more than the database spends
answering it. A `CompiledQuery` lets Django compile the queryset once per thread and database (the first time it is
used), keeps the SQL and what Django needs to turn rows into model instances (the select list, its converters and
the related-object populators, exactly as Django's ModelIterable uses them), and then only executes the SQL with
the new parameter on the thread's own connection (so query logging and counting see it like any other query).
The results are the same instances the queryset would give (tests compare them)."""
from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from django.db import connections
from django.db.models import Field, Model, QuerySet
from django.db.models.query import get_related_populators  # type: ignore[attr-defined]  # Django's own helper

M = TypeVar("M", bound=Model)
PLACEHOLDER = -987_654_321  # the parameter the queryset is compiled with; each execution passes its own


@dataclass(frozen=True)
class _Compiled:
    model: type[Model]
    alias: str
    sql: str
    compiler: Any
    converters: dict[int, Any]
    init_list: list[str]
    model_fields: slice
    populators: list[Any]


class CompiledQuery(Generic[M]):
    """`build(value)` returns a queryset of one model whose only SQL parameter is `value` (e.g. a primary key
    filter, with select_related and select_for_update as needed). It is built and compiled once per thread."""

    def __init__(self, build: Callable[[Any], QuerySet[M]]) -> None:
        self.build = build
        self._local = threading.local()

    def _compiled(self) -> _Compiled:
        compiled: _Compiled | None = getattr(self._local, "compiled", None)
        if compiled is None:
            queryset = self.build(PLACEHOLDER)
            alias = queryset.db
            compiler = queryset.query.get_compiler(using=alias)
            sql, params = compiler.as_sql()
            if list(params) != [PLACEHOLDER]:
                raise ValueError(f"a compiled query must have exactly one parameter, the built value; got {params!r}")
            klass_info, select = compiler.klass_info, compiler.select
            fields = klass_info["select_fields"]
            compiled = self._local.compiled = _Compiled(
                model=queryset.model, alias=alias, sql=sql, compiler=compiler,
                converters=compiler.get_converters([column[0] for column in select[:compiler.col_count]]),
                init_list=[column[0].target.attname for column in select[fields[0]:fields[-1] + 1]],
                model_fields=slice(fields[0], fields[-1] + 1),
                populators=get_related_populators(klass_info, select, alias),
            )
        return compiled

    def first(self, value: Any) -> M | None:
        """The first row for `value` as a model instance (with its select_related objects), or None."""
        compiled = self._compiled()
        with connections[compiled.alias].cursor() as cursor:
            cursor.execute(compiled.sql, [value])
            row = cursor.fetchone()
        if row is None:
            return None
        if compiled.converters:
            row = next(iter(compiled.compiler.apply_converters([row], compiled.converters)))
        obj = compiled.model.from_db(compiled.alias, compiled.init_list, row[compiled.model_fields])
        for populator in compiled.populators:
            populator.populate(row, obj)
        return obj  # type: ignore[return-value]


class CompiledUpdate:
    """`UPDATE <table> SET <fields> WHERE <pk> = %s`, its SQL built once per database from the model's metadata;
    each value is prepared by its field for the connection (JSON adapted, durations and dates converted), as
    `Model.save(update_fields=...)` prepares it. Unlike save(), it sends no pre_save / post_save signal (the
    platform connects none to the models it is used on) and does not compile a query per call."""

    def __init__(self, model: type[Model], fields: tuple[str, ...]) -> None:
        self.model = model
        self.fields: list[Field[Any, Any]] = [cast("Field[Any, Any]", model._meta.get_field(name)) for name in fields]
        self._sql: dict[str, str] = {}
        self._lock = threading.Lock()

    def run(self, instance: Model) -> int:
        """Store the instance's current values of the fields; returns the number of rows changed (0 or 1)."""
        alias = instance._state.db or "default"
        connection = connections[alias]
        sql = self._sql.get(alias)
        if sql is None:
            quote = connection.ops.quote_name
            pk = self.model._meta.pk
            assert pk is not None
            sets = ", ".join(f"{quote(field.column)} = %s" for field in self.fields)
            sql = f"UPDATE {quote(self.model._meta.db_table)} SET {sets} WHERE {quote(pk.column)} = %s"
            with self._lock:
                self._sql[alias] = sql
        params = [field.get_db_prep_save(getattr(instance, field.attname), connection) for field in self.fields]
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, instance.pk])
            return cursor.rowcount
