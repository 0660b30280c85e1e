"""The scale-out run (`make scaleout`): the platform on several nodes, one of each killed mid-run.

Starts two web nodes (gunicorn with config/gunicorn.conf.py, DEBUG off, a random signing key, each with its own
VAR_DIR and port) behind HAProxy (scripts/scaleout_haproxy.cfg: round-robin, health checks on /healthz), two
Celery workers (each its own VAR_DIR) on Redis (broker and shared cache), one PostgreSQL database (dropped and
created afresh), S3 from moto's server and the fake Prolific of the tests. Then a whole study goes through the
balancer only (scripts/scaleout_study.py): an import of a zip of photos, a campaign through the API, workers
arriving and submitting, review, a quality job (console) and a parse job (API), an export requested and
downloaded, a Prolific study published on the fake. In the middle of the second half of the arrivals it SIGKILLs
one web node and the Celery worker running the parse job, then checks: every later request answered by the
surviving node, every submission stored once and counted on every node, every background job finished (done
or failed with a reason). Prints a summary; exit status 1 when a check fails. Every process it started is
stopped at the end, whatever happens.

    .venv/bin/python scripts/scaleout.py [--images 20] [--workers 30] [--job-wait 60]

SCALEOUT_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/scaleout: that database is dropped and
re-created) and SCALEOUT_REDIS_URL (default redis://127.0.0.1:6379/6: flushed) name the servers. Logs and the
summary (summary.json) are kept in var/scaleout/<time>/.
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.scaleout_checks import check_run, print_summary  # noqa: E402
from scripts.scaleout_http import Recorder  # noqa: E402
from scripts.scaleout_stack import Stack, flush_redis, recreate_database  # noqa: E402
from scripts.scaleout_study import Study  # noqa: E402
from tests.prolific_fake.server import FakeProlificServer  # noqa: E402
from tests.prolific_fake.state import FakeProlific  # noqa: E402

WEBS, WORKERS = ["web1", "web2"], ["worker1", "worker2"]


def set_up_database(env: dict[str, str], password: str) -> str:
    """Migrate the fresh database (in this process, with the deployment's settings) and make the researcher and
    their API token; this process then reads the database to check the run."""
    os.environ.update(env)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    call_command("migrate", verbosity=0, interactive=False)
    user = get_user_model().objects.create_superuser("researcher", "researcher@example.org", password)
    return str(Token.objects.create(user=user).key)


def drive(study: Study, stack: Stack) -> None:
    study.import_photos()
    study.create_campaign()
    half = study.workers // 2
    started = time.monotonic()
    with ThreadPoolExecutor(6) as pool:
        for future in study.arrivals(range(half), pool):
            future.result()
    study.phase("arrivals, first half", started)
    study.notes.append(f"nodes that answered the progress reads before the kill: "
                       f"{sorted(study.progress_everywhere(len(study.submitted)))}")
    study.approve_submitted("first half")

    started = time.monotonic()
    api, console = study.api(), study.console()
    study.request_quality(console)  # two jobs in the workers' hands when one of them is killed
    api.post("/api/compositional/parse/", "parse request", expect=(202,))
    with ThreadPoolExecutor(6) as pool:
        futures = study.arrivals(range(half, study.workers), pool)
        api.wait_json("/api/compositional/parse/", "parse poll",
                      lambda body: (body["job"] or {}).get("status") != "queued", 30)
        victim = study.worker_running("parse_captions") or "worker1"
        stack.processes[victim].kill()
        stack.processes["web1"].kill()
        study.kill_time = time.monotonic()
        study.killed = {"web": "web1", "worker": victim}
        print(f"  killed web1 and {victim} (SIGKILL to each process group)", flush=True)
        study.notes.append(f"HAProxy marked web1 down {wait_down(stack, 'web1'):.2f} s after the kill")
        study.down_time = time.monotonic()
        for future in futures:
            future.result()
        for future in study.arrivals(range(study.workers, study.workers + 4), pool):
            future.result()  # new workers take the slots the others could not (a HIT they had already done)
    study.phase("arrivals, second half (kill)", started)
    study.approve_submitted("second half")
    study.progress_everywhere(len(study.submitted))

    started = time.monotonic()
    pk = study.campaign["id"]
    study.request_quality(console)
    study.follow_job("quality", console, f"/campaigns/{pk}/quality/status/", lambda body: body["finished"])
    api.post("/api/compositional/parse/", "parse request", expect=(202,))
    study.follow_job("parse", api, "/api/compositional/parse/",
                     lambda body: (body["job"] or {}).get("status") in ("done", "failed"))
    study.phase("quality and parse jobs", started)

    started = time.monotonic()
    export = api.post("/api/exports/", "export request", expect=(202,),
                      json={"format": "coco", "campaigns": [pk]}).json()
    study.follow_job("export", api, f"/api/exports/{export['id']}/", lambda body: body["status"] in ("done", "failed"))
    if study.jobs[list(study.jobs)[-1]]["status"] == "done":
        download = api.get(f"/api/exports/{export['id']}/download/", "export download")
        study.notes.append(f"export downloaded: {len(download.content)} bytes")
        study.timings["export bytes"] = len(download.content)
        (stack.run_dir / "export.zip").write_bytes(download.content)
    study.phase("export", started)

    started = time.monotonic()
    publish_on_prolific(study)
    study.phase("prolific", started)


def publish_on_prolific(study: Study) -> None:
    api = study.api()
    images = api.get("/api/images/?limit=4", "images list").json()["results"]
    created = api.post("/api/campaigns/", "prolific campaign create", expect=(201,), json={
        "name": "Scale-out on Prolific", "task_kind": "describe_image", "provider": "prolific", "reward": "0.50",
        "assignments_per_hit": 2, "tasks_per_submission": 2, "qualifications": {"estimated_minutes": 2},
        "items": [{"image": image["id"]} for image in images]}).json()
    api.post(f"/api/campaigns/{created['id']}/publish/", "prolific publish", json={})
    deadline = time.monotonic() + study.job_wait
    while time.monotonic() < deadline:
        active = [s for s in study.prolific.studies.values() if s.get("status") == "ACTIVE"]
        if active:
            study.notes.append(f"Prolific study {active[0]['id']} ACTIVE on the fake "
                               f"({active[0].get('total_available_places')} places)")
            return
        time.sleep(0.25)
    study.notes.append("Prolific study not ACTIVE within the job wait: "
                       + json.dumps({k: v.get("status") for k, v in study.prolific.studies.items()}))


def wait_down(stack: Stack, name: str, timeout: float = 30) -> float:
    """Seconds until HAProxy's stats say `name` is no longer up (0 when it already is)."""
    started = time.monotonic()
    while stack.server_states().get(name, "").startswith("UP") and time.monotonic() - started < timeout:
        time.sleep(0.05)
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=20)
    parser.add_argument("--workers", type=int, default=30, help="simulated crowd workers (2 tasks each)")
    parser.add_argument("--job-wait", type=float, default=45, help="seconds a background job may take")
    args = parser.parse_args()
    if (args.workers * 2) % args.images:
        parser.error("--workers x 2 must be a multiple of --images (assignments per HIT)")
    database_url = os.environ.get("SCALEOUT_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/scaleout")
    redis_url = os.environ.get("SCALEOUT_REDIS_URL", "redis://127.0.0.1:6379/6")
    run_dir = ROOT / "var" / "scaleout" / time.strftime("%Y%m%d-%H%M%S")
    run_dir.mkdir(parents=True)
    print(f"== scale-out run: logs in {run_dir}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below still stops everything

    started = time.monotonic()
    recreate_database(database_url)
    flush_redis(redis_url)
    stack = Stack(run_dir, database_url, redis_url)
    fake = FakeProlific()
    fake_server = FakeProlificServer(fake).start()
    prolific = {"PROLIFIC_API_URL": fake_server.url, "PROLIFIC_TOKEN": fake.token,
                "PROLIFIC_WORKSPACE_ID": fake.workspace_id, "PROLIFIC_RETRY_BASE_SECONDS": "0",
                "PROLIFIC_TIMEOUT_SECONDS": "5"}
    result: dict[str, Any] = {}
    password = secrets.token_urlsafe(16)
    try:
        stack.start_s3()  # before the environment is used: its port is in it
        env = stack.environment(prolific)
        token = set_up_database({**env, "VAR_DIR": str(run_dir / "driver")}, password)
        for name in WEBS:
            stack.start_web(name, env)
        for name in WORKERS:
            stack.start_worker(name, env)
        stack.start_beat(env)
        stack.start_balancer(WEBS)
        stack.wait_ready(WEBS, WORKERS)
        setup_seconds = time.monotonic() - started
        print(f"  stack up: {setup_seconds:.1f} s (balancer {stack.balancer})", flush=True)
        study = Study(stack, Recorder(stack.balancer), token, password, args.images, args.workers, 2, args.job_wait,
                      fake)
        study.timings["stack up"] = setup_seconds
        error = ""
        try:
            drive(study, stack)
        except Exception as exc:  # the run goes on to the checks: what was stored, what is stuck
            error = f"{type(exc).__name__}: {exc}"
            print(f"  the study stopped: {error}", flush=True)
        result = check_run(study, error)
        result["total seconds"] = round(time.monotonic() - started, 1)
    finally:
        stack.stop()
        fake_server.stop()
    (run_dir / "summary.json").write_text(json.dumps(result, indent=2, default=str))
    print_summary(result)
    return 0 if result.get("passed") else 1


if __name__ == "__main__":
    sys.exit(main())
