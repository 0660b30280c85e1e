"""compute_quality and review_rules commands, and the periodic review job (apply_review_rules)."""
from __future__ import annotations

from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from mturk.models import Assignment, Campaign, QualityDecision, WorkerScore
from mturk.quality.services.review_rules import applying
from mturk.quality.services.review_rules.rule import save_rule
from mturk.states import AssignmentStatus, CampaignStatus
from mturk.tasks import apply_review_rules

from . import quality_fakes
from .quality_fakes import rule_crowd, rule_data

text_quality = quality_fakes.text_quality  # fixture
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("text_quality")]


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_compute_quality_prints_what_it_measured():
    campaign, _, _ = rule_crowd()
    out = run("compute_quality", campaign.name)
    assert out.strip() == (f"Quality of '{campaign.name}' (exact text match): 12 answers, 2 items compared, "
                           "5 workers, 2 items aggregated")
    assert WorkerScore.objects.filter(campaign=campaign).count() == 5


def test_an_unknown_campaign_is_named():
    with pytest.raises(CommandError, match="no campaign named or numbered 'nope'"):
        run("compute_quality", "nope")


def test_review_rules_shows_previews_and_applies():
    campaign, _, work = rule_crowd()
    with pytest.raises(CommandError, match="has no review rule"):
        run("apply_review_rule", str(campaign.pk))
    save_rule(campaign, rule_data(enabled=True))
    shown = run("apply_review_rule", campaign.name)
    assert "approve when gold accuracy >= 0.8" in shown and "reject when gold accuracy < 0.5" in shown
    assert "bonus $0.50 to the top 10% of workers" in shown and "enabled" in shown
    preview = run("apply_review_rule", campaign.name, "--preview")
    assert "scores computed: never" in preview and "Problem: Quality has not been computed yet" in preview
    run("compute_quality", campaign.name)
    preview = run("apply_review_rule", campaign.name, "--preview")
    assert "Approve: 6  Reject: 2  Bonus: 1  Left to a person: 4  Cost: $1.10" in preview
    assert f"reject  bad assignment {work['bad'][0].pk}: gold 0.00 (1), agreement 0.00 (1); gold accuracy 0.00 < 0.5" \
        in preview
    assert "leave   newbie" in preview and "0 scored gold item(s), the rule needs 1" in preview
    assert not QualityDecision.objects.exists()  # a preview changes nothing
    applied = run("apply_review_rule", campaign.name, "--apply")
    assert "9 done, 0 skipped (decided already), 0 failed" in applied
    assert QualityDecision.objects.filter(source="command").count() == 9


def test_the_periodic_job_applies_enabled_rules_of_open_campaigns_and_survives_a_failure(monkeypatch):
    first, _, _ = rule_crowd()
    second, _, _ = rule_crowd()
    disabled, _, _ = rule_crowd()
    closed, _, _ = rule_crowd()
    for campaign in (first, second, closed):
        save_rule(campaign, rule_data(enabled=True))
    save_rule(disabled, rule_data(enabled=False))
    Campaign.objects.filter(pk=closed.pk).update(status=CampaignStatus.CLOSED)
    real_apply = applying.apply_rule

    def broken_for_the_first(campaign, **kwargs):
        if campaign.pk == first.pk:
            raise RuntimeError("database hiccup")
        return real_apply(campaign, **kwargs)

    monkeypatch.setattr(applying, "apply_rule", broken_for_the_first)
    report = apply_review_rules.delay().get()
    assert report == {"campaigns": 1, "done": 9, "failed": 0, "skipped": 0,
                      "errors": {str(first.pk): "database hiccup"}}
    decided = Assignment.objects.exclude(status=AssignmentStatus.SUBMITTED).values_list("hit__campaign", flat=True)
    assert set(decided) == {second.pk}
    assert set(QualityDecision.objects.values_list("source", flat=True)) == {"periodic"}


def test_the_job_is_scheduled_every_review_rules_seconds():
    entry = settings.CELERY_BEAT_SCHEDULE["review-rules"]
    assert entry == {"task": "mturk.tasks.apply_review_rules", "schedule": float(settings.REVIEW_RULES_SECONDS)}
    assert apply_review_rules.acks_late
