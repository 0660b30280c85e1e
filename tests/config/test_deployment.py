"""The documented production settings pass `check --deploy`; the Procfile starts the three processes `make stack`
runs; gunicorn's configuration keeps Prometheus's multiprocess files right; several processes' metrics add up."""
from __future__ import annotations

import os
import runpy
import secrets
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from honcho.environ import parse_procfile

ROOT = Path(__file__).resolve().parents[2]

# docs/deployment.md, "Production settings": what check --deploy is run with.
PRODUCTION_ENV = {
    "DEBUG": "0",
    "HTTPS": "1",
    "ALLOWED_HOSTS": "crowd.example.org",
    "PUBLIC_BASE_URL": "https://crowd.example.org",
    "CACHE_URL": "redis://127.0.0.1:6379/1",
    "DATABASE_URL": "postgres://crowd@db.internal:5432/crowd",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
    "METRICS_TOKEN": "a-long-random-scrape-token",
}


def test_check_deploy_is_clean_with_the_documented_production_settings(tmp_path):
    """Warnings count as failures; nothing is connected to (the check reads settings and the URL patterns)."""
    env = {**os.environ, **PRODUCTION_ENV, "SECRET_KEY": secrets.token_urlsafe(50), "VAR_DIR": str(tmp_path)}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set by the browser tests for their own process, never deployed
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_the_documented_settings_are_the_ones_on_the_deployment_page():
    page = (ROOT / "docs" / "deployment.md").read_text()
    for name, value in PRODUCTION_ENV.items():
        assert f"{name}={value}" in page, name


def test_the_procfile_runs_gunicorn_a_worker_and_beat():
    processes = parse_procfile((ROOT / "Procfile").read_text()).processes
    assert list(processes) == ["web", "worker", "beat"]
    assert "gunicorn config.wsgi -c config/gunicorn.conf.py" in processes["web"]
    assert "celery -A config worker" in processes["worker"]
    assert "celery -A config beat" in processes["beat"]
    # each service has its own metrics directory: a worker's start must not clear the web's files
    assert "PROMETHEUS_MULTIPROC_DIR=${VAR_DIR:-var}/prometheus/web " in processes["web"]
    assert "PROMETHEUS_MULTIPROC_DIR=${VAR_DIR:-var}/prometheus/worker " in processes["worker"]


def _gunicorn_conf(monkeypatch, **env: str) -> dict:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))


def test_gunicorn_clears_the_metric_files_of_a_previous_run(monkeypatch, tmp_path):
    directory = tmp_path / "prometheus" / "web"
    directory.mkdir(parents=True)
    (directory / "counter_123.db").write_bytes(b"old")
    (directory / "notes.txt").write_text("kept")
    conf = _gunicorn_conf(monkeypatch, PROMETHEUS_MULTIPROC_DIR=str(directory))
    conf["on_starting"](SimpleNamespace())
    assert sorted(p.name for p in directory.iterdir()) == ["notes.txt"]


def test_gunicorn_logs_json_unless_text_is_asked_for(monkeypatch):
    monkeypatch.delenv("DEBUG", raising=False)
    monkeypatch.delenv("LOG_FORMAT", raising=False)
    assert _gunicorn_conf(monkeypatch)["logconfig_dict"]["formatters"]["generic"]["()"] == (
        "pythonjsonlogger.json.JsonFormatter")
    assert "logconfig_dict" not in _gunicorn_conf(monkeypatch, LOG_FORMAT="text")


_CHILD = """
import os, sys
from common.observability.metrics import SUBMISSIONS
SUBMISSIONS.labels(task_kind="describe_image").inc(int(sys.argv[1]))
"""

_SCRAPE = """
from common.observability.metrics import exposition
print(exposition(with_queues=False).decode())
"""


def test_metrics_of_several_processes_add_up_in_multiprocess_mode(tmp_path):
    """Two processes (two gunicorn workers) count submissions; a third one's scrape reports their sum."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "config.settings"}
    for count in ("2", "5"):
        subprocess.run([sys.executable, "-c", _CHILD, count], cwd=ROOT, env=env, check=True, timeout=60)
    assert len(list(tmp_path.glob("counter_*.db"))) == 2
    scraped = subprocess.run([sys.executable, "-c", _SCRAPE], cwd=ROOT, env=env, check=True, timeout=60,
                             capture_output=True, text=True).stdout
    assert 'platform_submissions_total{task_kind="describe_image"} 7.0' in scraped
