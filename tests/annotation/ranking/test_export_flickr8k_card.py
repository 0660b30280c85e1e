"""The Flickr8k export's dataset card names every campaign whose answers are in its files: the describe_image
campaign of the captions and the judge_caption campaign of the crowd judgements."""
from __future__ import annotations

import io
import zipfile

import pytest

from annotation.models import Description
from mturk.datasets.formats import write_export
from mturk.services.review import approve_assignment, approve_submitted
from tests.export_cards import campaign_table, card_counts
from tests.factories import make_campaign, submitted
from tests.mturk.review_builders import answer, published

pytestmark = pytest.mark.django_db


def test_the_card_describes_the_judging_campaign_behind_the_crowd_judgements():
    described = make_campaign(images=2, assignments=1, name="captions")
    for _ in range(2):
        approve_assignment(submitted(described))
    pairs = [{"image": d.image_id, "description": d.pk} for d in Description.objects.order_by("pk")]
    judging = published("judged", "judge_caption", [{"pairs": pairs}], assignments=2)
    for _ in range(2):
        answer(judging, {"judgements": [{"relevant": True}, {"relevant": False}]})
    approve_submitted(judging)

    buffer = io.BytesIO()
    write_export("flickr8k", buffer, [described])
    card = zipfile.ZipFile(buffer).read("README.md").decode()
    assert card_counts(card)["crowd judged pairs"] == 2
    table = campaign_table(card)
    assert set(table) == {"captions", "judged"}
    assert (table["judged"]["workers"], table["judged"]["approved"]) == ("2", "2")
