"""The public development key: refused outside DEBUG by the checks, the WSGI application and Celery workers;
`make demo`'s key file is written once and then used."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _env(var_dir: Path, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG", "DJANGO_SETTINGS_MODULE"}}
    env.update(VAR_DIR=str(var_dir), DATABASE_URL=f"sqlite:///{var_dir / 'db.sqlite3'}", **overrides)
    return env


PRINT_KEY = "import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'; " \
    "from django.conf import settings; print(settings.SECRET_KEY)"


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_check_deploy_refuses_the_public_key_outside_debug(tmp_path):
    result = _run(["manage.py", "check", "--deploy"], _env(tmp_path, DEBUG="0"))
    assert result.returncode != 0
    assert "config.E001" in result.stderr
    assert "SECRET_KEY is not set" in result.stderr and "export SECRET_KEY=" in result.stderr


def test_wsgi_application_refuses_the_public_key_outside_debug(tmp_path):
    result = _run(["-c", "import config.wsgi"], _env(tmp_path, DEBUG="0"))
    assert result.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY is not set" in result.stderr


def test_debug_runs_with_the_public_key(tmp_path):
    env = _env(tmp_path, DEBUG="1")
    assert _run(["manage.py", "check"], env).returncode == 0
    result = _run(["-c", "import config.wsgi; print('loaded')"], env)
    assert result.returncode == 0, result.stderr
    assert "loaded" in result.stdout


def test_a_key_from_the_environment_is_accepted(tmp_path):
    env = _env(tmp_path, DEBUG="0", SECRET_KEY="an-operator-chosen-key-" + "x" * 40)
    result = _run(["manage.py", "check"], env)
    assert result.returncode == 0, result.stderr


def test_demo_key_file_is_written_once_private_and_used(tmp_path):
    env = _env(tmp_path, DEBUG="0")
    first = _run(["-m", "config.secret_key"], env)
    assert first.returncode == 0, first.stderr
    key_file = tmp_path / "secret_key"
    key = key_file.read_text().strip()
    assert len(key) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

    second = _run(["-m", "config.secret_key"], env)
    assert second.returncode == 0
    assert key_file.read_text().strip() == key  # worker links signed yesterday stay valid

    shown = _run(["-c", PRINT_KEY], env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == key
    assert _run(["-c", "import config.wsgi"], env).returncode == 0


def test_the_environment_key_wins_over_the_key_file(tmp_path):
    (tmp_path / "secret_key").write_text("the-file-key-" + "y" * 40)
    env = _env(tmp_path, DEBUG="0", SECRET_KEY="the-env-key-" + "z" * 40)
    shown = _run(["-c", PRINT_KEY], env)
    assert shown.stdout.strip() == "the-env-key-" + "z" * 40


def test_celery_worker_refuses_the_public_key_outside_debug(tmp_path):
    env = _env(tmp_path, DEBUG="0", CELERY_BROKER_URL="memory://")
    result = subprocess.run(
        [str(Path(sys.executable).parent / "celery"), "-A", "config", "worker", "--pool=solo", "--loglevel=WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr
