import pytest

from mturk.states import (
    ASSIGNMENT_MACHINE,
    CAMPAIGN_MACHINE,
    HIT_MACHINE,
    InvalidTransition,
)
from mturk.states import (
    AssignmentStatus as A,
)
from mturk.states import (
    CampaignStatus as C,
)
from mturk.states import (
    HITStatus as H,
)


@pytest.mark.parametrize(
    ("current", "target"),
    [(A.ACCEPTED, A.SUBMITTED), (A.ACCEPTED, A.RETURNED), (A.ACCEPTED, A.EXPIRED), (A.SUBMITTED, A.APPROVED),
     (A.SUBMITTED, A.REJECTED), (A.REJECTED, A.APPROVED), (A.ACCEPTED, A.ABANDONED), (A.ABANDONED, A.SUBMITTED),
     (A.ABANDONED, A.ACCEPTED), (A.ABANDONED, A.RETURNED), (A.ABANDONED, A.EXPIRED)],
)
def test_assignment_allowed_transitions(current, target):
    ASSIGNMENT_MACHINE.check(current, target)


@pytest.mark.parametrize(
    ("current", "target"),
    [(A.ACCEPTED, A.APPROVED), (A.SUBMITTED, A.ACCEPTED), (A.APPROVED, A.REJECTED), (A.EXPIRED, A.SUBMITTED),
     (A.RETURNED, A.SUBMITTED), (A.APPROVED, A.SUBMITTED), (A.ABANDONED, A.APPROVED), (A.SUBMITTED, A.ABANDONED)],
)
def test_assignment_invalid_transitions_raise(current, target):
    with pytest.raises(InvalidTransition, match=f"from '{current}' to '{target}'"):
        ASSIGNMENT_MACHINE.check(current, target)


def test_every_assignment_status_has_a_rule():
    assert set(ASSIGNMENT_MACHINE.transitions) == set(A.values)
    assert set(HIT_MACHINE.transitions) == set(H.values)
    assert set(CAMPAIGN_MACHINE.transitions) == set(C.values)


def test_hit_transitions():
    HIT_MACHINE.check(H.DRAFT, H.PUBLISHED)
    HIT_MACHINE.check(H.PUBLISHED, H.EXPIRED)
    HIT_MACHINE.check(H.EXPIRED, H.PUBLISHED)
    with pytest.raises(InvalidTransition):
        HIT_MACHINE.check(H.DISPOSED, H.PUBLISHED)
    with pytest.raises(InvalidTransition):
        HIT_MACHINE.check(H.DRAFT, H.EXPIRED)


def test_model_transition_uses_the_machine(db):
    from tests.factories import make_campaign

    campaign = make_campaign(images=1)
    hit = campaign.hits.get()
    with pytest.raises(InvalidTransition):
        hit.transition(H.DRAFT)
    assert hit.status == H.PUBLISHED
    with pytest.raises(InvalidTransition):
        campaign.transition(C.DRAFT)
