"""Blindness of the human evaluation pages: a HIT's page and payload carry the outputs' texts and places only,
never an output or system id, a system's name or role."""
from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from evaluation.models import EvaluatedSystem, SystemOutput
from mturk.task_kinds import get_task_kind
from tests.worker_flow import start_task

from .kinds_data import SYSTEMS, campaign, evaluation, item_id, outputs, pair_items, rating_items

pytestmark = pytest.mark.django_db

FORBIDDEN_WORDS = ("reference", "attention", "system", *SYSTEMS, "human_eval", "evaluation")


def leaks(text: str, ev) -> list[str]:
    ids = [str(pk) for pk in SystemOutput.objects.filter(item__evaluation=ev).values_list("pk", flat=True)]
    ids += [str(pk) for pk in EvaluatedSystem.objects.filter(evaluation=ev).values_list("pk", flat=True)]
    found = [word for word in FORBIDDEN_WORDS if word.lower() in text.lower()]
    return found + [pk for pk in ids if re.search(rf"\b{pk}\b", text)]


@pytest.mark.parametrize("kind, output_kind", [("rate_output", "caption"), ("compare_outputs", "story")])
def test_the_page_and_payload_name_no_output_system_or_role(client, kind, output_kind):
    aspects = ("share_experience",) if output_kind == "story" else ("describes",)
    ev = evaluation(output_kind=output_kind, aspects=aspects)
    reference = outputs(ev, 0, EvaluatedSystem.Role.REFERENCE)[0]
    corrupted = outputs(ev, 0, EvaluatedSystem.Role.ATTENTION)[0]
    items = (rating_items(ev)[:1] if kind == "rate_output"
             else [{"item": item_id(ev, 0), "outputs": [reference, corrupted]}])
    made = campaign(ev, kind, items)
    payload = get_task_kind(kind).build_payloads(made, list(made.hits.all()))
    text = json.dumps(payload)
    assert leaks(text, ev) == []
    for shown in payload.values():
        assert set(shown) == {"images", "outputs"}
        assert all(set(output) == {"text"} for output in shown["outputs"])
    page = client.get(reverse("task-page") + f"?t={start_task(client, made)}").content.decode()
    assert "Person text 0 ." in page  # the texts are there, under their places only
    assert leaks(page, ev) == []
    assert f'data-kind="{kind}"' in page


def test_the_pairwise_page_of_a_system_pair_names_places_only(client):
    ev = evaluation(design="pairwise")
    made = campaign(ev, "compare_outputs", pair_items(ev)[:1])
    page = client.get(reverse("task-page") + f"?t={start_task(client, made)}").content.decode()
    assert "Caption A" in page and "Caption B" in page
    assert leaks(page, ev) == []
