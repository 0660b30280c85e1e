"""The study the scale-out run drives through the balancer (scripts/scaleout.py): import, campaign, workers
arriving and submitting, review, quality and parse jobs, the kill of one web node and one Celery worker in the
middle of the second half of the arrivals, export and download, a Prolific study on the fake server."""
from __future__ import annotations

import io
import random
import re
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from PIL import Image, ImageDraw

from scripts.scaleout_http import Client, Recorder
from scripts.scaleout_stack import Stack

COLOURS = ["red", "blue", "green", "yellow", "white", "black", "orange", "purple"]
THINGS = ["dog", "bicycle", "umbrella", "boat", "kite", "bench", "horse", "car"]
PLACES = ["harbour", "park", "market", "station", "beach", "square", "bridge", "garden"]
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
FINISHED = ("done", "failed")


def photos_zip(count: int, seed: int = 7) -> bytes:
    """`count` distinct 640x480 JPEG "photos" (a sky, a ground, a few shapes), zipped."""
    rng = random.Random(seed)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for i in range(count):
            image = Image.new("RGB", (640, 480), (rng.randrange(90, 200), rng.randrange(120, 220), 255))
            draw = ImageDraw.Draw(image)
            draw.rectangle((0, 300, 640, 480), fill=(rng.randrange(40, 120), rng.randrange(80, 160), 40))
            for _ in range(6):
                x, y = rng.randrange(0, 560), rng.randrange(100, 400)
                draw.ellipse((x, y, x + rng.randrange(20, 80), y + rng.randrange(20, 80)),
                             fill=tuple(rng.randrange(256) for _ in range(3)))
            out = io.BytesIO()
            image.save(out, "JPEG", quality=85)
            archive.writestr(f"IMG_{i + 1:04d}.jpg", out.getvalue())
    return buffer.getvalue()


def caption(worker: int, task: int) -> str:
    return (f"A {COLOURS[worker % 8]} {THINGS[(worker + task) % 8]} stands near the {PLACES[task % 8]} "
            f"while {worker % 5 + 2} people walk past it slowly.")


@dataclass
class Submitted:
    worker: int
    assignment: int
    status: str  # "stored" or "already_stored" (a repeated submission)


@dataclass
class Study:
    stack: Stack
    recorder: Recorder
    token: str
    password: str
    images: int
    workers: int
    tasks_per_worker: int
    job_wait: float
    prolific: Any  # the FakeProlific state
    timings: dict[str, float] = field(default_factory=dict)
    submitted: list[Submitted] = field(default_factory=list)
    no_task: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    campaign: dict[str, Any] = field(default_factory=dict)
    killed: dict[str, str] = field(default_factory=dict)
    kill_time: float = 0.0
    down_time: float = 0.0  # when HAProxy's stats first said the killed node was down
    stale: list[str] = field(default_factory=list)

    @property
    def assignments_per_hit(self) -> int:
        return self.workers * self.tasks_per_worker // self.images

    def api(self) -> Client:
        return self.recorder.session(self.token)

    def phase(self, name: str, started: float) -> None:
        self.timings[name] = time.monotonic() - started
        print(f"  {name}: {self.timings[name]:.1f} s", flush=True)

    # ---- the researcher's console (a session, CSRF) ------------------------------------------------------
    def console(self) -> Client:
        client = self.recorder.session()
        page = client.get("/accounts/login/", "console login page")
        found = CSRF.search(page.text)
        if found is None:
            raise RuntimeError("the login page has no CSRF token")
        client.post("/accounts/login/", "console login", expect=(302,),
                    data={"username": "researcher", "password": self.password, "csrfmiddlewaretoken": found[1]})
        return client

    def console_post(self, client: Client, page: str, action: str, label: str) -> None:
        found = CSRF.search(client.get(page, f"{label} page").text)
        if found is None:
            raise RuntimeError(f"{page} has no CSRF token")
        client.post(action, label, expect=(302,), data={"csrfmiddlewaretoken": found[1]})

    # ---- the steps ------------------------------------------------------------------------------------------
    def import_photos(self) -> None:
        started = time.monotonic()
        api = self.api()
        body = api.post("/api/imports/", "import", expect=(202,), data={"importer": "images", "set": "Scale-out"},
                        files={"file": ("scaleout-photos.zip", photos_zip(self.images), "application/zip")}).json()
        self.follow_job("import", api, f"/api/imports/{body['id']}/", lambda b: b["status"] in FINISHED)
        self.phase("import", started)

    def create_campaign(self) -> None:
        started = time.monotonic()
        api = self.api()
        created = api.post("/api/campaigns/", "campaign create", expect=(201,), json={
            "name": "Scale-out descriptions", "task_kind": "describe_image", "reward": "0.05",
            "assignments_per_hit": self.assignments_per_hit,
            "select": {"source": "images", "set": ["Scale-out"]}}).json()
        self.campaign = api.post(f"/api/campaigns/{created['id']}/publish/", "campaign publish", json={}).json()
        self.phase("campaign", started)

    def work(self, worker: int) -> None:
        """One worker: opens the campaign link, starts and submits `tasks_per_worker` tasks."""
        client = self.recorder.session()
        link = self.campaign["worker_link"]
        client.get(link, "worker start page")
        for task in range(self.tasks_per_worker):
            started = client.post(link, "worker start task", expect=(200, 303))
            if started.status_code == 200:  # "No task left"
                with self.lock:
                    self.no_task.append(worker)
                return
            location = started.headers["Location"]
            client.get(location, "worker task page")
            token = parse_qs(urlsplit(location).query)["t"][0]
            answer = client.post("/task/submit/", "worker submit", expect=(200, 201),
                                 json={"token": token, "answer": {"text": caption(worker, task)}}).json()
            with self.lock:
                self.submitted.append(Submitted(worker, answer["assignment"], answer["status"]))

    def arrivals(self, workers: range, pool: ThreadPoolExecutor) -> list[Any]:
        return [pool.submit(self.work, worker) for worker in workers]

    def approve_submitted(self, label: str) -> int:
        api = self.api()
        body = api.get(f"/api/assignments/?campaign={self.campaign['id']}&status=submitted&limit=500",
                       "assignments list").json()
        for row in body["results"]:
            api.post(f"/api/assignments/{row['id']}/approve/", "approve", json={})
        return len(body["results"])

    def progress_everywhere(self, expected: int, reads: int = 6) -> set[str]:
        """Read the campaign's progress (API) and its console page `reads` times in a row (round-robin: every
        node); each must count `expected` answers. Returns the nodes that answered."""
        api, console = self.api(), self.console()
        nodes: set[str] = set()
        for _ in range(reads):
            answer = api.get(f"/api/campaigns/{self.campaign['id']}/", "campaign progress")
            answered = answer.json()["progress"]["answered"]
            nodes.add(answer.headers.get("X-Served-By", ""))
            if answered != expected:
                self.stale.append(f"{answer.headers.get('X-Served-By')}: API progress {answered} != {expected}")
            page = console.get(f"/campaigns/{self.campaign['id']}/", "console campaign page")
            nodes.add(page.headers.get("X-Served-By", ""))
        return nodes

    def request_quality(self, console: Client) -> None:
        page = f"/campaigns/{self.campaign['id']}/quality/"
        self.console_post(console, page, page + "recompute/", "quality recompute")

    def follow_job(self, kind: str, client: Client, path: str, done: Any, wait: float | None = None) -> None:
        body, seconds = client.wait_json(path, f"{kind} poll", done, wait if wait is not None else self.job_wait)
        self.jobs[f"{kind} #{len(self.jobs) + 1}"] = {"status": body.get("status") or (body.get("job") or {}).get(
            "status"), "seconds": round(seconds, 1), "error": body.get("error", "")}

    def worker_running(self, task_name: str) -> str | None:
        """The Celery worker whose log shows `task_name` received (the last one to receive it)."""
        last: tuple[int, str] | None = None
        for name in ("worker1", "worker2"):
            text = self.stack.processes[name].log.read_text(errors="replace")
            at = text.rfind(f"{task_name}[")
            if at >= 0 and (last is None or at > last[0]):
                last = (at, name)
        return last[1] if last else None
