"""System checks of the deployment (run by runserver, migrate, `check` and `check --deploy`)."""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.checks import Error, register

from .secret_key import is_public_key, refusal_message


@register()
def public_secret_key_check(app_configs, **kwargs) -> list[Error]:
    if settings.DEBUG or not is_public_key(settings.SECRET_KEY):
        return []
    return [Error(refusal_message(Path(settings.VAR_DIR)), id="config.E001")]
