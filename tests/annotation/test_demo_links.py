"""`make demo PORT=...` prints and uses links on the port it serves: the Makefile passes PUBLIC_BASE_URL (unless
set) to seed_demo and runserver, and seed_demo prints every link from it."""
from __future__ import annotations

import os
import re
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_seed_demo_prints_every_link_on_the_public_base_url(settings, django_capture_on_commit_callbacks):
    settings.PUBLIC_BASE_URL = "http://127.0.0.1:8123"
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_demo", stdout=out)
    links = re.findall(r"https?://\S+", out.getvalue())
    assert len(links) >= 3  # dashboard, API docs, worker link
    assert all(link.startswith("http://127.0.0.1:8123/") for link in links), links
    assert "Worker link: http://127.0.0.1:8123/w/" in out.getvalue()


def dry_run(*args: str, **env: str) -> list[str]:
    environment = {key: value for key, value in os.environ.items() if key != "PUBLIC_BASE_URL"} | env
    result = subprocess.run(["make", "-n", "demo", *args], cwd=ROOT, env=environment, capture_output=True, text=True,
                            check=True)
    return [line for line in result.stdout.splitlines() if "seed_demo" in line or "runserver" in line]


def test_make_demo_passes_the_served_port_to_seed_demo_and_runserver():
    seed, serve = dry_run("PORT=8123")
    assert seed.startswith("PUBLIC_BASE_URL='http://127.0.0.1:8123' ") and seed.endswith("manage.py seed_demo")
    assert serve.startswith("PUBLIC_BASE_URL='http://127.0.0.1:8123' ") and "runserver 127.0.0.1:8123" in serve


def test_make_demo_keeps_a_public_base_url_the_user_set():
    seed, serve = dry_run("PORT=8123", PUBLIC_BASE_URL="https://crowd.example.org")
    assert seed.startswith("PUBLIC_BASE_URL='https://crowd.example.org' ")
    assert serve.startswith("PUBLIC_BASE_URL='https://crowd.example.org' ") and "runserver 127.0.0.1:8123" in serve
