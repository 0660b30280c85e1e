"""Counting the SQL queries one request makes."""
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext


def queries_for(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, response.status_code
    return len(ctx.captured_queries)
