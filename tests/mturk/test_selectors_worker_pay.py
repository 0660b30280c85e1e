"""The worker rows of the crowd report and the dataset card: every worker with an answer, with approvals,
rejections and pay as they stand when the export is made, beside the scores of the last quality computation."""
from __future__ import annotations

from decimal import Decimal

import pytest

from mturk.models import Assignment
from mturk.quality.services.computation import compute_quality
from mturk.selectors.campaigns import crowd_statistics
from mturk.selectors.quality import worker_pseudonym
from mturk.services.review import approve_assignment, grant_bonus, reject_assignment
from tests.factories import make_image
from tests.mturk.review_builders import answer, box, published, street_vocabulary

pytestmark = pytest.mark.django_db


def test_a_worker_who_answered_after_the_quality_computation_is_listed_without_scores():
    concepts = street_vocabulary()
    images = [make_image(f"late-{n}.png", size=(640, 480)) for n in range(2)]
    campaign = published("late", "draw_boxes", [{"image": i.pk} for i in images], assignments=3, vocabulary="street")
    drawn = {"boxes": [box(concepts["woman"], 20, 30), box(concepts["dog"], 300, 250)]}
    early = [answer(campaign, drawn) for _ in range(4)]  # two workers per image
    compute_quality(campaign)
    late = answer(campaign, drawn)  # after the computation
    approve_assignment(early[0])
    reject_assignment(early[1], "The boxes do not cover the objects of the image.")
    approve_assignment(late)
    grant_bonus(late, Decimal("0.50"), "thanks")

    (stats,) = crowd_statistics([campaign])
    workers = {row["worker"]: row for row in stats.quality["workers"]}
    assert len(workers) == stats.workers == 5
    newcomer = workers[worker_pseudonym(late.worker.provider, late.worker.external_id)]
    assert (newcomer["items"], newcomer["agreement"], newcomer["answered"]) == (None, None, 1)
    assert (newcomer["approved"], newcomer["rejected"], newcomer["pay"]) == (1, 0, "0.60")
    scored = workers[worker_pseudonym(early[1].worker.provider, early[1].worker.external_id)]
    assert scored["items"] == 1 and (scored["approved"], scored["rejected"], scored["pay"]) == (0, 1, "0.00")
    assert sum(row["approved"] for row in workers.values()) == stats.approved == 2
    assert sum(row["rejected"] for row in workers.values()) == stats.rejected == 1
    assert Assignment.objects.filter(hit__campaign=campaign).count() == 5
