"""The crowd report (report/crowd.json) and the dataset card of every export carry each campaign's worker
quality: measure, overall figures, per pseudonymised worker items, gold accuracy, agreement, time, pay."""
from __future__ import annotations

import json
import zipfile
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from mturk.models import Bonus
from mturk.quality.services.computation import compute_quality
from mturk.selectors.campaigns import crowd_statistics
from mturk.selectors.quality import worker_pseudonym
from mturk.states import AssignmentStatus

from . import quality_fakes
from .quality_fakes import rule_crowd

text_quality = quality_fakes.text_quality  # fixture
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("text_quality")]


def export(tmp_path, *names: str) -> tuple[dict, str]:
    out = tmp_path / "export.zip"
    args = ["export_dataset", "--format", "assignments-jsonl", "--out", str(out)]
    for name in names:
        args += ["--campaign", name]
    call_command(*args, stdout=StringIO())
    with zipfile.ZipFile(out) as archive:
        return json.loads(archive.read("report/crowd.json")), archive.read("README.md").decode()


def test_each_campaign_gets_its_quality_or_not_computed(tmp_path, settings):
    measured, people, work = rule_crowd()
    never, _, _ = rule_crowd()
    work["good1"][0].status = AssignmentStatus.APPROVED
    work["good1"][0].save(update_fields=["status"])
    Bonus.objects.create(assignment=work["good1"][0], amount=Decimal("0.25"), reason="thanks", unique_token="q-1")
    compute_quality(measured)
    crowd, card = export(tmp_path, measured.name, never.name)
    by_name = {c["campaign"]: c["quality"] for c in crowd["campaigns"]}
    assert by_name[never.name] == {"status": "not computed", "measure": None, "overall": {}, "computed_at": None,
                                   "workers": []}
    quality = by_name[measured.name]
    assert (quality["status"], quality["measure"]) == ("computed", "exact text match")
    # pairs: HIT 1 cat cat dog cat (3 of 6 agree), HIT 2 sun moon sun sun (3 of 6): 6 of 12
    assert quality["overall"] == {"pair_agreement": 0.5}
    good1 = worker_pseudonym("local", "good1")
    assert len(good1) == 15 and good1 != "good1"
    assert [w["worker"] for w in quality["workers"]][:2] == [good1, worker_pseudonym("local", "good2")]
    first = quality["workers"][0]
    assert first == {"worker": good1, "items": 2, "compared_items": 2, "gold_items": 1, "gold_accuracy": 1.0,
                     "agreement": first["agreement"], "skill": 1.0, "median_seconds": 60.0, "pay": "0.35",
                     "approved": 1, "rejected": 0, "answered": 3}  # 0.10 approved reward and a 0.25 bonus
    assert first["agreement"] == pytest.approx(2 / 3)
    assert "good1" not in json.dumps(crowd) and "newbie" not in json.dumps(crowd)
    assert "## Worker quality" in card
    computed = quality["computed_at"]
    assert f"**{measured.name}**: exact text match (pair agreement 0.50), measured {computed}; 5 workers." in card
    assert f"| {good1} | 3 | 2 | 1 | 1.00 | 0.67 | 60.0 s | 0.35 | 1 | 0 |" in card
    assert f"**{never.name}**: not computed." in card


def test_the_pseudonym_is_stable_and_keyed(settings):
    first = worker_pseudonym("mturk", "A1B2C3")
    assert worker_pseudonym("mturk", "A1B2C3") == first != worker_pseudonym("prolific", "A1B2C3")
    settings.SECRET_KEY = "another installation's key"
    assert worker_pseudonym("mturk", "A1B2C3") != first


def test_the_quality_section_reads_the_same_queries_for_more_campaigns():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    one, _, _ = rule_crowd()
    compute_quality(one)
    with CaptureQueriesContext(connection) as single:
        crowd_statistics([one])
    two, _, _ = rule_crowd()
    compute_quality(two)
    with CaptureQueriesContext(connection) as double:
        stats = crowd_statistics([one, two])
    assert len(double) == len(single) + 1  # the answered rows' times: one query per campaign, as before
    assert [len(s.quality["workers"]) for s in stats] == [5, 5]
