"""The signing key: where it comes from, and the refusal to run a server with the public one.

Precedence: the `SECRET_KEY` environment variable; else the file `$VAR_DIR/secret_key` (written once
by `make demo`, i.e. `python -m config.secret_key`); else the public development key printed below,
which only a DEBUG process may use."""
from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

PUBLIC_DEVELOPMENT_KEY = "insecure-dev-key-set-SECRET_KEY-in-production-0123456789abcdef"
KEY_FILE_NAME = "secret_key"

REFUSAL = (
    "SECRET_KEY is not set, so the public development key from the repository would sign worker links, "
    "sessions and the de-identified worker ids of exports. Set one, e.g. "
    "`export SECRET_KEY=\"$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')\"`, "
    "or write one into {key_file} (`python -m config.secret_key` does it once); "
    "only DEBUG=1 runs with the public key."
)


def read_secret_key(var_dir: Path) -> str:
    """The key this installation signs with (see the module docstring for the precedence)."""
    from_env = os.environ.get("SECRET_KEY", "")
    if from_env:
        return from_env
    key_file = var_dir / KEY_FILE_NAME
    if key_file.is_file():
        from_file = key_file.read_text(encoding="utf-8").strip()
        if from_file:
            return from_file
    return PUBLIC_DEVELOPMENT_KEY


def is_public_key(key: str) -> bool:
    return key == PUBLIC_DEVELOPMENT_KEY


def refusal_message(var_dir: Path) -> str:
    return REFUSAL.format(key_file=var_dir / KEY_FILE_NAME)


def refuse_public_key_outside_debug() -> None:
    """Raises ImproperlyConfigured when a non-DEBUG process would sign with the public key (for entry points
    that run no system checks: the WSGI application and Celery workers)."""
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    if not settings.DEBUG and is_public_key(settings.SECRET_KEY):
        raise ImproperlyConfigured(refusal_message(Path(settings.VAR_DIR)))


def ensure_key_file(var_dir: Path) -> tuple[Path, bool]:
    """Writes a random key to `$VAR_DIR/secret_key` (mode 0600) unless the file exists.
    Returns the path and whether it was created now."""
    var_dir.mkdir(parents=True, exist_ok=True)
    key_file = var_dir / KEY_FILE_NAME
    try:
        descriptor = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return key_file, False
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(secrets.token_urlsafe(50) + "\n")
    return key_file, True


def main() -> int:
    from config.paths import VAR_DIR

    if os.environ.get("SECRET_KEY"):
        print("SECRET_KEY is set in the environment: it is used, no key file needed.")
        return 0
    key_file, created = ensure_key_file(VAR_DIR)
    print(f"{'Wrote a new' if created else 'Using the'} signing key in {key_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
