"""What the scale-out run checks once the study is over (scripts/scaleout.py), read from the requests it recorded
and from the database itself, and the summary it prints."""
from __future__ import annotations

import statistics
import time
from collections import Counter
from typing import Any

from scripts.scaleout_study import Study


def _job_rows() -> list[dict[str, Any]]:
    from annotation.compositional.models import ParseJob
    from mturk.models import DatasetExport, ImportJob, QualityJob

    rows = []
    for model in (ImportJob, DatasetExport, QualityJob, ParseJob):
        for job in model.objects.order_by("pk"):
            rows.append({"kind": model.__name__, "id": job.pk, "status": job.status, "error": job.error[:200],
                         "seconds": round((job.finished_at - job.created_at).total_seconds(), 1)
                         if job.finished_at else None})
    return rows


def _open_jobs(wait: float) -> list[dict[str, Any]]:
    """The jobs neither done nor failed, after waiting up to `wait` seconds for them."""
    deadline = time.monotonic() + wait
    while True:
        still = [row for row in _job_rows() if row["status"] not in ("done", "failed")]
        if not still or time.monotonic() > deadline:
            return still
        time.sleep(1)


def check_run(study: Study, error: str) -> dict[str, Any]:
    from django.db.models import Count

    from annotation.models import Image
    from mturk.models import Assignment

    checks: dict[str, bool] = {}
    findings: list[str] = []
    records = study.recorder.records
    failed = [r for r in records if r.status == 0 or r.status >= 500]
    after = [r for r in records if study.kill_time and r.sent > study.kill_time]
    after_down = [r for r in records if study.down_time and r.sent > study.down_time]
    in_flight = [r for r in records if study.kill_time and r.sent <= study.kill_time < r.sent + r.seconds]
    checks["the study went through (no request failed after its retries)"] = not error
    if study.kill_time:
        checks["every request sent after HAProxy marked the node down answered by the surviving node"] = bool(
            after_down) and all(r.node == "web2" and 0 < r.status < 500 for r in after_down)
        checks["every request sent after the kill answered by the surviving node"] = all(
            r.node == "web2" for r in after if r.status)
    checks["both nodes served before the kill"] = {"web1", "web2"} <= {
        r.node for r in records if not study.kill_time or r.sent < study.kill_time}

    campaign = study.campaign.get("id")
    answered = Assignment.objects.filter(hit__campaign_id=campaign, answer__isnull=False)
    stored_ids = set(answered.values_list("pk", flat=True))
    reported = [s.assignment for s in study.submitted if s.status == "stored"]
    checks["every submission stored once (answers in the database = answers acknowledged)"] = (
        len(reported) == len(set(reported)) and set(reported) == stored_ids
        and {s.assignment for s in study.submitted} == stored_ids)
    doubles = (Assignment.objects.filter(hit__campaign_id=campaign).values("hit", "worker")
               .annotate(n=Count("pk")).filter(n__gt=1).count())
    checks["no worker holds two assignments of one HIT"] = doubles == 0
    expected = study.images * study.assignments_per_hit
    orphans = Assignment.objects.filter(hit__campaign_id=campaign, answer__isnull=True).count()
    lost_starts = sum(1 for r in failed if r.label == "worker start task")
    checks[f"{expected} slots: each answered and approved, or taken by an arrival whose answer was lost"] = (
        len(stored_ids) + orphans == expected and orphans <= lost_starts
        and answered.filter(status="approved").count() == len(stored_ids))
    if orphans:
        findings.append(f"{orphans} task(s) started on the killed node whose answer (the redirect) never reached the "
                        f"worker: the retry started another task, and the first keeps its slot until the idle-task "
                        f"release (beat's release-idle-tasks, TASK_INACTIVITY_SECONDS); {len(study.no_task)} "
                        f"arrival(s) found no task left")
    local = [str(path.relative_to(study.stack.run_dir)) for node in ("web1", "web2", "worker1", "worker2")
             for path in (study.stack.run_dir / node / "var").rglob("*") if path.is_file()]
    checks["nothing written on a node's local disk (VAR_DIR)"] = not local
    findings += [f"written on a local disk: {path}" for path in local[:10]]
    checks["no stale count on any node"] = not study.stale
    findings += study.stale
    images = Image.objects.count()
    thumbs = Image.objects.exclude(thumb_small="").count()
    checks[f"{study.images} images imported"] = images == study.images
    if thumbs != images:
        findings.append(f"renditions made for {thumbs} of {images} images")

    open_jobs = _open_jobs(10)  # the study followed each job for up to job_wait already
    jobs = _job_rows()
    checks["every job finished done (or failed with a reason)"] = not open_jobs and all(
        row["status"] == "done" or row["error"] for row in jobs)
    for row in open_jobs:
        findings.append(f"{row['kind']} #{row['id']} still {row['status']} at the end of the run")
    passed = all(checks.values())
    latencies = sorted(r.seconds for r in records if 0 < r.status < 500)
    return {
        "passed": passed, "error": error, "checks": checks, "findings": findings, "notes": study.notes,
        "killed": study.killed, "timings": {k: round(v, 1) for k, v in study.timings.items()},
        "requests": {
            "total": len(records), "by node": dict(Counter(r.node or "(none)" for r in records)),
            "by status": dict(Counter(str(r.status) for r in records)), "failed tries (5xx or no answer)":
                len(failed), "retried": sum(1 for r in records if r.attempt > 1), "in flight at the kill":
                len(in_flight), "after the kill": len(after), "after the node was marked down": len(after_down),
            "p50 ms": round(1000 * statistics.median(latencies)) if latencies else None,
            "p95 ms": round(1000 * latencies[int(0.95 * (len(latencies) - 1))]) if latencies else None,
            "by step": dict(Counter(r.label for r in records)),
        },
        "submissions": {"acknowledged": len(study.submitted), "stored": len(stored_ids),
                        "repeated (already_stored)": sum(1 for s in study.submitted if s.status != "stored")},
        "failed tries": [{"label": r.label, "status": r.status, "node": r.node, "attempt": r.attempt,
                          "after the kill (s)": round(r.sent - study.kill_time, 2) if study.kill_time else None,
                          "error": r.error} for r in failed],
        "jobs": jobs, "followed jobs": study.jobs,
    }


def print_summary(result: dict[str, Any]) -> None:
    print("== scale-out run: summary")
    if result.get("error"):
        print(f"  study stopped by: {result['error']}")
    requests = result.get("requests", {})
    for key in ("total", "by node", "by status", "failed tries (5xx or no answer)", "retried",
                "in flight at the kill", "after the kill", "after the node was marked down", "p50 ms", "p95 ms"):
        print(f"  requests {key}: {requests.get(key)}")
    print(f"  submissions: {result.get('submissions')}")
    print(f"  killed: {result.get('killed')}")
    for row in result.get("jobs", []):
        print(f"  job {row['kind']} #{row['id']}: {row['status']}"
              + (f" in {row['seconds']} s" if row["seconds"] is not None else "")
              + (f" ({row['error']})" if row["error"] else ""))
    for name, seconds in result.get("timings", {}).items():
        print(f"  time {name}: {seconds}")
    for note in result.get("notes", []):
        print(f"  note: {note}")
    for name, ok in result.get("checks", {}).items():
        print(f"  {'PASS' if ok else 'FAIL'} {name}")
    for row in result.get("failed tries", []):
        print(f"  try without answer: {row}")
    for finding in result.get("findings", []):
        print(f"  FINDING {finding}")
    print(f"  total: {result.get('total seconds')} s; {'PASSED' if result.get('passed') else 'FAILED'}")
