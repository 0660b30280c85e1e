"""The marketplace records are visible in the admin (HIT types, qualifications, grants, events)."""
import pytest

from mturk.models import MarketplaceEvent, MarketplaceHITType, MarketplaceQualification, QualificationGrant

from .builders import published_mturk_campaign, worker

pytestmark = pytest.mark.django_db


def test_marketplace_records_are_listed_in_the_admin(client, django_user_model):
    campaign = published_mturk_campaign(images=1)
    qualification = MarketplaceQualification.objects.create(provider="mturk", scope="album:7", external_id="3QUAL7")
    QualificationGrant.objects.create(qualification=qualification, worker=worker("W42"))
    MarketplaceEvent.objects.create(provider="mturk", event_doc_id="DOC-9", event_type="AssignmentSubmitted")
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.org", "pw-123456"))
    expected = {
        "marketplacehittype": MarketplaceHITType.objects.get(campaign=campaign).external_id,
        "marketplacequalification": "album:7",
        "qualificationgrant": "W42",
        "marketplaceevent": "DOC-9",
    }
    for model, shown in expected.items():
        response = client.get(f"/admin/mturk/{model}/")
        assert response.status_code == 200, model
        assert shown in response.content.decode(), model
