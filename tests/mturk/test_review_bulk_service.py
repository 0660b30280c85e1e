"""The selection service and the flag counts bulk approval shows: flagged answers counted per check and left out
when asked, whatever the number of assignments in one query."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from mturk.models import Assignment
from mturk.selectors.review import selection_flags, submitted_flags
from mturk.services.review_bulk import review_selection
from mturk.states import AssignmentStatus
from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db

SHOUTED = "A WOMAN IN A RED DRESS WALKS HER BROWN DOG ALONG THE BEACH."
REPEATED = "dog dog dog dog dog dog dog dog on the beach"
BOTH = "DOG DOG DOG DOG DOG DOG ON THE BEACH"


def test_flags_are_counted_per_check():
    campaign = make_campaign(images=5, assignments=1)
    good, shouted, repeated, both, other = (submitted(campaign), submitted(campaign, SHOUTED),
                                            submitted(campaign, REPEATED), submitted(campaign, BOTH),
                                            submitted(campaign))
    assert sorted(both.check_flags) == ["mostly_uppercase", "repeated_words"]
    chosen = selection_flags(campaign, [good.pk, shouted.pk, repeated.pk, both.pk])
    assert (chosen.total, chosen.flagged, chosen.passing) == (4, 3, 1)
    assert chosen.by_check == (("mostly_uppercase", 2), ("repeated_words", 2))
    assert chosen.checks_text() == "mostly_uppercase (2), repeated_words (2)"
    everything = submitted_flags(campaign)
    assert (everything.total, everything.flagged) == (5, 3)
    Assignment.objects.filter(pk=other.pk).update(status=AssignmentStatus.APPROVED)
    assert submitted_flags(campaign).total == 4  # only the work approve-all would approve


def test_an_other_campaigns_assignment_counts_for_nothing():
    campaign, other = make_campaign(images=1, assignments=1), make_campaign(images=1, assignments=1)
    stranger = submitted(other, SHOUTED)
    assert selection_flags(campaign, [stranger.pk]).total == 0


def test_submitted_flags_take_one_query_whatever_the_count():
    few, many = make_campaign(images=2, assignments=1), make_campaign(images=8, assignments=1)
    for campaign, count in ((few, 2), (many, 8)):
        for n in range(count):
            submitted(campaign, SHOUTED if n % 2 else "A calm sea under a grey sky with two boats.")
    for campaign, flagged in ((few, 1), (many, 4)):
        with CaptureQueriesContext(connection) as ctx:
            summary = submitted_flags(campaign)
        assert (len(ctx.captured_queries), summary.flagged) == (1, flagged)


def test_approving_a_selection_can_leave_the_flagged_out():
    campaign = make_campaign(images=3, assignments=1)
    good, shouted, repeated = submitted(campaign), submitted(campaign, SHOUTED), submitted(campaign, REPEATED)
    result = review_selection(campaign, [good.pk, shouted.pk, repeated.pk], "approve", leave_flagged=True)
    assert result.done == [good.pk]
    assert result.left_flagged == {shouted.pk: ["mostly_uppercase"], repeated.pk: ["repeated_words"]}
    assert result.failed == {}
    statuses = dict(Assignment.objects.values_list("pk", "status"))
    assert statuses == {good.pk: "approved", shouted.pk: "submitted", repeated.pk: "submitted"}


def test_rejecting_ignores_leave_flagged():
    campaign = make_campaign(images=1, assignments=1)
    shouted = submitted(campaign, SHOUTED)
    result = review_selection(campaign, [shouted.pk], "reject", "Please write in normal case.", leave_flagged=True)
    assert result.done == [shouted.pk] and result.left_flagged == {}
