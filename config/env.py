"""Typed readers for environment variables (every setting has an embedded default)."""
import os


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


# Environment variables renamed, each read for one release after its rename when the new one is unset:
# old name -> new name (config.checks warns while the old one is set).
RENAMED: dict[str, str] = {"MTURK_SYNC_SECONDS": "MARKETPLACE_SYNC_SECONDS"}


def env_int_renamed(name: str, default: int) -> int:
    """`name`, else the deprecated variable it replaces (RENAMED), else the default."""
    if os.environ.get(name, "") != "":
        return env_int(name, default)
    old = next(old for old, new in RENAMED.items() if new == name)
    return env_int(old, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name}={raw!r} is not an integer") from exc


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]
