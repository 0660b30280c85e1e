"""create_story_campaign's --set: an amount of money is read as written (a Decimal), never as a float, so 1.20
is stored as 1.20 (a float's 1.19999… used to fail "no more than 8 digits in total")."""
from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from mturk.models import Campaign
from storyboard.management.commands.create_story_campaign import stage_setting
from tests.factories import make_album

pytestmark = pytest.mark.django_db


def test_a_reward_of_1_20_is_stored_as_decimal_1_20():
    album = make_album(photos=5)
    out = StringIO()
    call_command("create_story_campaign", "Day out", "--album", album.external_id, "--set", "tell.reward=1.20",
                 "--set", "retell.budget_cap=12.30", "--set", "retell.assignments_per_hit=3", stdout=out)
    tell = Campaign.objects.get(name="Day out · tell")
    retell = Campaign.objects.get(name="Day out · retell")
    assert tell.reward == Decimal("1.20") and str(tell.reward) == "1.20"
    assert retell.budget_cap == Decimal("12.30") and retell.assignments_per_hit == 3
    assert "$1.20 x" in out.getvalue()


def test_money_settings_parse_as_decimal_and_other_values_as_json():
    assert stage_setting("tell.reward=1.20") == ("tell", "reward", Decimal("1.20"))
    assert stage_setting('tell.options={"discard_after_skips": 1}') == ("tell", "options", {"discard_after_skips": 1})
    with pytest.raises(CommandError, match="reward is an amount of money"):
        stage_setting("tell.reward=lots")
    with pytest.raises(CommandError, match="reward is an amount of money"):
        stage_setting("tell.reward=NaN")


def test_a_float_reward_given_to_the_service_is_kept_as_written():
    from storyboard.services.workflow import create_story_workflow

    campaigns = create_story_workflow("Floats", [make_album(photos=5)], settings={"tell": {"reward": 1.2}})
    assert Campaign.objects.get(pk=campaigns["tell"].pk).reward == Decimal("1.20")
