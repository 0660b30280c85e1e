"""A Prolific participant over HTTP, as their browser goes (shared by the end-to-end tests): the study is started
on the fake Prolific, the study's external URL opened with Prolific's placeholders filled in, "Start task"
pressed, each task page read and answered through POST /task/submit/, the continue link followed (GET, as the
task page's script does; "Next task" is a POST), up to the completion page, whose redirect carries the code."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from django.test import Client
from django.urls import reverse

from tests.prolific_fake.state import FakeProlific
from tests.worker_flow import submit

Answer = Callable[[dict[str, Any], int], dict[str, Any]]  # (the task page's payload, answers given so far)
PAYLOAD = re.compile(r'<script id="task-payload" type="application/json">(.*?)</script>', re.S)
MAX_STEPS = 50  # a browser loop that never ends is a failure, not a hang


@dataclass
class Visit:
    """One participant's session: who, the submission (SESSION_ID), the answers stored and the code handed back."""

    participant_id: str
    submission_id: str
    answered: int = 0
    completion_url: str = ""
    code: str = ""
    payloads: list[dict[str, Any]] = field(default_factory=list)


def study_link(fake: FakeProlific, study_id: str, participant_id: str, submission_id: str) -> str:
    """The study's external_study_url as Prolific opens it, as a path and query for Django's test client."""
    url = str(fake.studies[study_id]["external_study_url"])
    for placeholder, value in (("{{%PROLIFIC_PID%}}", participant_id), ("{{%STUDY_ID%}}", study_id),
                               ("{{%SESSION_ID%}}", submission_id)):
        assert placeholder in url, url
        url = url.replace(placeholder, value)
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def task_payload(client: Client, url: str) -> dict[str, Any]:
    """The task page's payload (task kinds with a script: the album, the sequences, ...; {} for the others)."""
    page = client.get(url)
    html = page.content.decode()
    assert page.status_code == 200 and 'id="task-form"' in html, html
    match = PAYLOAD.search(html)
    payload: dict[str, Any] = json.loads(match.group(1)) if match else {}
    return payload


def take_part(client: Client, fake: FakeProlific, study_id: str, answer: Answer,
              participant_id: str | None = None) -> Visit:
    """Start `study_id` on Prolific and do its tasks through our pages until sent back with the code (not yet
    entered on Prolific: the caller does `fake.complete(visit.submission_id, visit.code)`)."""
    remote = fake.start(study_id, participant_id)
    visit = Visit(remote.participant_id, remote.id)
    link = study_link(fake, study_id, visit.participant_id, visit.submission_id)
    start_page = client.get(link)
    html = start_page.content.decode()
    assert start_page.status_code == 200 and 'id="start-task"' in html, html
    ids = {name: values[0] for name, values in parse_qs(urlsplit(link).query).items()}
    assert ids == {"PROLIFIC_PID": visit.participant_id, "STUDY_ID": study_id, "SESSION_ID": visit.submission_id}
    response = client.post(link.split("?", 1)[0], ids)  # "Start task"
    continue_link = ""
    for _ in range(MAX_STEPS):
        if response.status_code in (302, 303):
            location = response["Location"]
            if location.startswith(reverse("task-page") + "?t="):
                token = parse_qs(urlsplit(location).query)["t"][0]
                payload = task_payload(client, location)
                visit.payloads.append(payload)
                stored = submit(client, {"token": token, "answer": answer(payload, visit.answered)})
                assert stored.status_code == 201, stored.content
                body = stored.json()
                assert body["follow_next"] is True and body["next_url"], body
                visit.answered += 1
                continue_link = body["next_url"]
                response = client.get(continue_link)
            else:
                response = client.get(location)
            continue
        html = response.content.decode()
        assert response.status_code == 200, html
        if response.has_header("Refresh"):  # the completion page: sent back to Prolific at once
            visit.completion_url = response["Refresh"].split("url=", 1)[1]
            [visit.code] = parse_qs(urlsplit(visit.completion_url).query)["cc"]
            assert f'<code id="completion-code">{visit.code}</code>' in html
            return visit
        assert 'id="next-task"' in html and continue_link, html  # "Next task (k of N)"
        response = client.post(continue_link)
    raise AssertionError(f"participant {visit.participant_id} never reached the completion page")
