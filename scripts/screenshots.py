"""Take the manual's screenshots from the running demo (`make screenshots`).

Starts the demo as `make demo` does, in a temporary VAR_DIR with the embedded defaults (SQLite, tasks run
in-process, media on local disk): a signing key, `migrate`, `seed_demo`, then `runserver` on a free loopback
port. Then Playwright drives Debian's Chromium: it logs in as the demo researcher and saves PNGs into
docs/img/ at 1366x768 (and one at a 390 px phone width). Nothing outside the temporary folder and docs/img/
is written.

    .venv/bin/python scripts/screenshots.py [--out docs/img] [--keep]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
USERNAME, PASSWORD = "researcher", "researcher-demo"
GROUNDED_REVIEW = "Demo: grounded descriptions, 2 link words"
HUMAN_EVAL = "Demo: captions (rating)"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def demo_env(var_dir: Path, base: str) -> dict[str, str]:
    """The embedded defaults whatever the caller's environment: the screenshots show the demo, not a deployment."""
    env = {key: value for key, value in os.environ.items()
           if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "SECRET_KEY", "DEBUG",
                          "AWS_STORAGE_BUCKET_NAME", "MEDIA_ROOT", "DEMO_USERNAME", "DEMO_PASSWORD"}}
    env.update(VAR_DIR=str(var_dir), PUBLIC_BASE_URL=base, PYTHONUNBUFFERED="1")
    return env


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True,
                            capture_output=True, text=True)
    return result.stdout


def wait_until_up(base: str, server: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the demo server stopped (exit {server.returncode})")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the demo server did not answer on {base} within {seconds:.0f} s")


def campaign_id(env: dict[str, str], name: str) -> int:
    code = f"from mturk.models import Campaign; print(Campaign.objects.get(name={name!r}).pk)"
    return int(manage(env, "shell", "-c", code).strip().splitlines()[-1])


def shoot(page, path: Path, *, full_page: bool = False) -> None:
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(path), full_page=full_page)
    print(f"{path}: {path.stat().st_size // 1024} KB")


def take(base: str, worker_link: str, review_id: int, human_eval: str, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            researcher = browser.new_context(viewport=LAPTOP)
            page = researcher.new_page()
            page.goto(f"{base}/accounts/login/")
            page.fill("input[name=username]", USERNAME)
            page.fill("input[name=password]", PASSWORD)
            page.press("input[name=password]", "Enter")
            page.wait_for_url(f"{base}/")
            shoot(page, out / "console-dashboard.png")
            page.goto(f"{base}/campaigns/new/")
            shoot(page, out / "console-wizard.png")
            page.goto(f"{base}/campaigns/{review_id}/review/")
            shoot(page, out / "console-review.png")
            page.goto(human_eval)  # the demo's human evaluation, scrolled to its systems and leaderboard
            page.get_by_role("heading", name="Systems", exact=True).evaluate("h => h.scrollIntoView({block: 'start'})")
            shoot(page, out / "console-human-eval.png")
            # The worker's page of a kind, as the wizard's live preview renders it (read-only, a sample item).
            page.goto(f"{base}/campaigns/new/preview/?kind=draw_boxes")
            shoot(page, out / "worker-draw-boxes.png")
            page.goto(f"{base}/campaigns/new/preview/?kind=tell_story")
            shoot(page, out / "worker-tell-story.png")
            researcher.close()

            # A worker on a phone: the demo's worker link, Start task, the describe_image task page.
            worker = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
            phone = worker.new_page()
            phone.goto(worker_link)
            phone.get_by_role("button", name=re.compile("start task", re.I)).click()
            phone.wait_for_url(re.compile(r"/task/\?"))
            shoot(phone, out / "worker-phone.png")
            worker.close()
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--keep", action="store_true", help="keep the temporary VAR_DIR and say where it is")
    args = parser.parse_args()
    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"Chromium not found at {CHROMIUM}: run `make system-deps` (apt-get install chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    var_dir = Path(tempfile.mkdtemp(prefix="screenshots-var-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = demo_env(var_dir, base)
    server = None
    try:
        subprocess.run([sys.executable, "-m", "config.secret_key"], cwd=ROOT, env=env, check=True,
                       capture_output=True)
        manage(env, "migrate", "--noinput")
        seeded = manage(env, "seed_demo")
        found = re.search(r"^Worker link: (\S+)", seeded, re.M)
        if found is None:
            raise SystemExit(f"seed_demo printed no worker link:\n{seeded}")
        review_id = campaign_id(env, GROUNDED_REVIEW)
        evaluation = re.search(rf"^Completed simulated human evaluation '{re.escape(HUMAN_EVAL)}'.*: (\S+)$", seeded,
                               re.M)
        if evaluation is None:
            raise SystemExit(f"seed_demo printed no address of the human evaluation '{HUMAN_EVAL}':\n{seeded}")
        server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                                  cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until_up(base, server)
        take(base, found.group(1), review_id, evaluation.group(1), args.out)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
        if args.keep:
            print(f"VAR_DIR kept: {var_dir}")
        else:
            shutil.rmtree(var_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
