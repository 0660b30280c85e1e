"""A compiled query gives the instances its queryset gives (every field converted, related objects attached), in
one query, on every thread, and refuses a queryset with other parameters."""
from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from mturk.models import Assignment
from mturk.selectors.campaigns import assignment_for_page
from mturk.selectors.compiled_query import CompiledQuery
from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db


def values(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def test_the_instances_are_those_of_the_queryset():
    campaign = make_campaign(images=2, options={"min_words": 3})
    done = submitted(campaign)
    with CaptureQueriesContext(connection) as queries:
        got = assignment_for_page(done.pk)
    assert len(queries) == 1
    expected = Assignment.objects.select_related("hit__campaign", "worker").get(pk=done.pk)
    assert got is not None and got._state.db == expected._state.db and not got._state.adding
    assert values(got) == values(expected)  # JSON answer and check flags decoded, datetimes aware, decimals
    assert isinstance(got.answer, dict) and got.answer == {"text": done.answer["text"]}
    assert values(got.hit) == values(expected.hit) and isinstance(got.hit.items, dict)
    assert values(got.hit.campaign) == values(expected.hit.campaign) and got.hit.campaign.options["min_words"] == 3
    assert values(got.worker) == values(expected.worker)
    with CaptureQueriesContext(connection) as queries:
        assert got.hit.campaign.name == campaign.name and got.worker.external_id == done.worker.external_id
    assert len(queries) == 0  # the related objects came with the row
    assert assignment_for_page(done.pk + 1000) is None


def test_a_locking_read_is_compiled_inside_a_transaction_and_reused():
    campaign = make_campaign(images=2)
    first, second = submitted(campaign), submitted(campaign)
    locked = CompiledQuery(lambda pk: Assignment.objects.select_for_update(of=("self",))
                           .select_related("hit__campaign", "worker").filter(pk=pk))
    with transaction.atomic():
        assert locked.first(first.pk).pk == first.pk
        with CaptureQueriesContext(connection) as queries:
            assert locked.first(second.pk).worker.external_id == second.worker.external_id
    assert len(queries) == 1
    if connection.features.has_select_for_update:
        assert "FOR UPDATE" in queries[0]["sql"]


@pytest.mark.django_db(transaction=True)
def test_each_thread_compiles_and_runs_on_its_own_connection():
    campaign = make_campaign(images=2)
    done = submitted(campaign)
    found: list[object] = []

    def read() -> None:
        try:
            found.append(assignment_for_page(done.pk))
        finally:
            connection.close()

    threads = [threading.Thread(target=read) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.pk for a in found] == [done.pk] * 3  # type: ignore[attr-defined]


def test_a_queryset_with_other_parameters_is_refused():
    campaign = make_campaign(images=1)
    query = CompiledQuery(lambda pk: Assignment.objects.filter(pk=pk, status="submitted"))
    with pytest.raises(ValueError, match="exactly one parameter"):
        query.first(submitted(campaign).pk)


def test_a_compiled_update_stores_what_save_would_store():
    from datetime import timedelta

    from django.utils import timezone

    from mturk.selectors.compiled_query import CompiledUpdate
    from mturk.work.services.assignments import assign_next_hit, new_local_worker

    campaign = make_campaign(images=2)
    by_update = assign_next_hit(campaign, new_local_worker())
    by_save = assign_next_hit(campaign, new_local_worker())
    now = timezone.now()
    for assignment in (by_update, by_save):
        assignment.answer = {"text": "Ünïcode and \"quotes\"", "nested": [1, {"x": None}]}
        assignment.status = "submitted"
        assignment.submitted_at = now
        assignment.time_on_task = timedelta(seconds=93, microseconds=250)
        assignment.check_flags = ["too_short"]
    fields = ("answer", "status", "submitted_at", "time_on_task", "check_flags")
    with CaptureQueriesContext(connection) as queries:
        assert CompiledUpdate(Assignment, fields).run(by_update) == 1
    assert len(queries) == 1 and queries[0]["sql"].startswith("UPDATE")
    by_save.save(update_fields=list(fields))
    stored = {a.pk: values(a) for a in Assignment.objects.filter(pk__in=[by_update.pk, by_save.pk])}
    got, expected = stored[by_update.pk], stored[by_save.pk]
    for name in ("answer", "status", "submitted_at", "time_on_task", "check_flags"):
        assert got[name] == expected[name], name
    assert got["answer"]["nested"] == [1, {"x": None}]
    assert got["time_on_task"] == timedelta(seconds=93, microseconds=250)
