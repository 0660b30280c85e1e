"""Drive the worker side through HTTP as a browser would (shared by the worker tests)."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from django.test import Client
from django.urls import reverse

from mturk.models import Campaign
from mturk.tokens import campaign_token


def campaign_link(campaign: Campaign) -> str:
    return reverse("campaign-entry", kwargs={"token": campaign_token(campaign.pk)})


def start_task(client: Client, campaign: Campaign, worker_query: str = "") -> str:
    """Follow the campaign link; return the assignment token of the task page it redirects to."""
    response = client.get(campaign_link(campaign) + worker_query)
    assert response.status_code == 302, response.content
    return parse_qs(urlsplit(response["Location"]).query)["t"][0]


def submit(client: Client, body: object, raw: bytes | None = None):
    data = raw if raw is not None else json.dumps(body)
    return client.post(reverse("task-submit"), data=data, content_type="application/json")
