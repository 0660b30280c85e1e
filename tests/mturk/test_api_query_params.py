"""API list endpoints: query parameters are validated (400 naming the parameter) and declared in the schema."""
import pytest

from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/hits/", "/api/assignments/", "/api/campaigns/", "/api/images/"])
@pytest.mark.parametrize("query", ["limit=99999999999999999999", "offset=99999999999999999999", "limit=-1",
                                   "limit=abc", "offset=1.5", "limit=0"])
def test_out_of_range_pagination_is_a_400_naming_the_parameter(api, path, query):
    response = api.get(f"{path}?{query}")
    assert response.status_code == 400
    assert query.split("=")[0] in response.json()


def test_a_large_limit_is_capped(api):
    campaign = make_campaign(images=3)
    response = api.get(f"/api/hits/?campaign={campaign.pk}&limit=5000")
    assert response.status_code == 200
    assert len(response.json()["results"]) == 3


@pytest.mark.parametrize("path", ["/api/hits/", "/api/assignments/"])
@pytest.mark.parametrize("value", ["abc", "1.5", "99999999999999999999", "-1"])
def test_a_campaign_filter_that_is_no_id_is_a_400(api, path, value):
    response = api.get(f"{path}?campaign={value}")
    assert response.status_code == 400
    assert "campaign" in response.json()


def test_filters_select_the_rows(api):
    campaign, other = make_campaign(images=2), make_campaign(images=1)
    assignment = submitted(campaign)
    submitted(other)
    hits = api.get(f"/api/hits/?campaign={campaign.pk}").json()
    assert {hit["campaign"] for hit in hits["results"]} == {campaign.pk} and hits["count"] == 2
    found = api.get(f"/api/assignments/?campaign={campaign.pk}&status=submitted").json()
    assert [row["id"] for row in found["results"]] == [assignment.pk]
    assert api.get(f"/api/assignments/?campaign={campaign.pk}&status=approved").json()["count"] == 0


def test_an_unknown_status_filter_is_a_400_listing_the_statuses(api):
    response = api.get("/api/assignments/?status=happy")
    assert response.status_code == 400
    assert "submitted" in str(response.json()["status"])


def test_the_filters_are_in_the_schema(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    hit_params = {p["name"] for p in schema["paths"]["/api/hits/"]["get"]["parameters"]}
    assignment_params = {p["name"] for p in schema["paths"]["/api/assignments/"]["get"]["parameters"]}
    assert {"campaign", "limit", "offset"} <= hit_params
    assert {"campaign", "status", "limit", "offset"} <= assignment_params
