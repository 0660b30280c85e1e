"""System checks of the deployment (run by runserver, migrate, `check` and `check --deploy`)."""
from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings
from django.core.checks import Error, Warning, register

from .env import RENAMED
from .secret_key import is_public_key, refusal_message


@register()
def public_secret_key_check(app_configs, **kwargs) -> list[Error]:
    if settings.DEBUG or not is_public_key(settings.SECRET_KEY):
        return []
    return [Error(refusal_message(Path(settings.VAR_DIR)), id="config.E001")]


@register()
def renamed_variables_check(app_configs, **kwargs) -> list[Warning]:
    """A deprecated environment variable still set: it is read only while its new name is unset."""
    return [Warning(f"{old} is deprecated: set {new} instead (the old name is read only while {new} is unset, "
                    "and not after the next release)", id="config.W001")
            for old, new in RENAMED.items() if os.environ.get(old, "") != ""]
