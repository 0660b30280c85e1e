"""Reading /metrics as Prometheus does (its own text parser)."""
from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

TOKEN = "scrape-token-for-tests"


def scrape(client, token: str = TOKEN) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an authorised GET /metrics: (name, sorted labels) -> value."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def value(samples: dict, name: str, **labels: str) -> float:
    """A sample's value; 0 if absent (a labelled counter appears at its first increment)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)
