"""Every JSON the platform accepts goes through one reader: size, depth, number size, storable text."""
import json

import pytest

from common.json_input import JsonInputError, JsonLimits, parse_json
from mturk.models import Assignment
from tests.factories import GOOD_TEXT, make_campaign
from tests.worker_flow import start_task, submit

ANSWER = '{"token": "TOKEN", "answer": {"text": TEXT}}'
LIMITS = JsonLimits(max_bytes=300_000, max_depth=5, max_digits=10)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper than 5 levels"),
        (b'{"a": [[[[[1]]]]]}', "$.a[0][0][0][0]: nested deeper than 5 levels"),
        (b'{"n": 12345678901}', "$.n: a number with more than 10 digits"),
        (b'{"n": -1.2345678901}', "$.n: a number with more than 10 digits"),
        (b'{"n": 1e999}', "$.n: the number 1e999 is out of range"),
        (b'{"n": [NaN]}', "$.n[0]: NaN is not a JSON number"),
        (b'{"story": ["ok", "a\\u0000b"]}', "$.story[1]: the text holds a NUL character"),
        (b'{"story": "\\ud800"}', "$.story: the text holds a lone surrogate"),
        (b'{"a b": {"\\u0000": 1}}', '$["a b"]: a key holds a NUL character'),
        (b'"' + b"x" * 300_000 + b'"', "larger than 300000 bytes"),
        (b'"\xff"', "not UTF-8"),
        (b"{oops", "malformed JSON"),
        (b'{"description": {"7": [1, 2], "8": [2], "7": [2, 1]}}', '$.description: the key "7" is given twice'),
        (b'{"a": 1, "a": 1}', '$: the key "a" is given twice'),
        (b'[{"x": {"y": 1}}, {"x": {"y": 1, "y": 2}}]', '$[1].x: the key "y" is given twice'),
    ],
)
def test_the_reader_refuses_and_says_where(raw, message):
    with pytest.raises(JsonInputError) as refused:
        parse_json(raw, LIMITS)
    assert message in str(refused.value)


def test_the_reader_accepts_what_is_within_the_limits():
    document = {"a": [[[1.5, -1234567890, "caf\u00e9 \U0001f600"]]], "b": None, "c": True, "7": 1, "07": 2}
    assert parse_json(json.dumps(document).encode(), LIMITS) == document


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (ANSWER.replace("TEXT", "[" * 50_000 + "]" * 50_000), "nested deeper"),
        (ANSWER.replace("TEXT", "9" * 5000), "$.answer.text: a number with more than"),
        (ANSWER.replace("TEXT", f'"{GOOD_TEXT}\\u0000"'), "$.answer.text: the text holds a NUL"),
        (ANSWER.replace("TEXT", f'"{GOOD_TEXT}\\udc80"'), "lone surrogate"),
    ],
)
def test_submit_refuses_what_cannot_be_stored_with_a_400(client, raw, message):
    token = start_task(client, make_campaign(images=1))
    response = submit(client, None, raw=raw.replace("TOKEN", token).encode())
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert not Assignment.objects.exclude(answer=None).exists()


@pytest.mark.django_db
def test_submit_refuses_a_body_over_the_size_limit(client, settings):
    settings.JSON_MAX_BYTES = 500
    token = start_task(client, make_campaign(images=1))
    response = submit(client, {"token": token, "answer": {"text": GOOD_TEXT + " word" * 100}})
    assert response.status_code == 400
    assert "larger than 500 bytes" in response.json()["error"]


@pytest.mark.django_db
def test_api_json_bodies_go_through_the_reader(api):
    nested = '{"name": "x", "task_kind": "describe_image", "items": %s}' % ("[" * 50_000 + "]" * 50_000)
    huge = '{"name": "x", "task_kind": "describe_image", "assignments_per_hit": %s}' % ("9" * 5000)
    nul = '{"name": "x\\u0000", "task_kind": "describe_image"}'
    for body, message in ((nested, "nested deeper"), (huge, "$.assignments_per_hit: a number with more than"),
                          (nul, "$.name: the text holds a NUL")):
        response = api.post("/api/campaigns/", body, content_type="application/json")
        assert response.status_code == 400, body[:80]
        assert message in response.json()["detail"]
