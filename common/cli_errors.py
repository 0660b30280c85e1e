"""How a command says what is wrong with a file it was given: the file named once, then what is wrong."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from django.core.management.base import CommandError


def _without_name(error: str, path: Path) -> str:
    """`error` without a leading name of the file (its path, its name, or "the file"), which the message gives."""
    for name in (str(path), path.name, "the file"):
        if error.startswith(f"{name}: "):
            return error[len(name) + 2:]
    return error


def file_errors(path: Path, errors: Sequence[str]) -> CommandError:
    """A CommandError naming `path` once: `<path>: <error>`, or `<path>:` and one error a line. The services'
    messages that name the file themselves (`bad1.json: not valid JSON`) lose their own name."""
    lines = [_without_name(error, path) for error in errors] or ["refused"]
    if len(lines) == 1:
        return CommandError(f"{path}: {lines[0]}")
    return CommandError(f"{path}:\n" + "\n".join(lines))
