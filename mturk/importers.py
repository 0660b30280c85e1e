"""Registry of importers: what a researcher can import from the console (images, albums, vocabularies...).

The crowd core knows no dataset: each importer is registered by the app that owns the data it writes
(annotation/importers.py, storyboard/importers.py) and is run by the import job (mturk/datasets/services/imports.py)
on a local copy of the uploaded file. An importer returns a JSON-able report:
{"summary": "...", "imported": [{"name", "detail"}], "refused": [{"name", "reason"}], "counts": {...}}."""
from __future__ import annotations

import io
import json
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import ijson
from django.conf import settings

from common.json_input import JsonInputError, JsonShape
from common.safe_archives import ReadRefused

from .registry import Registry

# progress(done, total): called as the importer goes; total is None while it is not known yet.
Progress = Callable[[int, int | None], None]


class ImportRefused(ValueError):
    """An upload or option refused before anything is stored; the message is shown to the researcher."""


class ImportProblems(ValueError):
    """An all-or-nothing import found problems and wrote nothing; `problems` are (name, reason) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__(f"{len(problems)} problem(s); nothing was imported")
        self.problems = problems

    @classmethod
    def from_messages(cls, messages: list[str]) -> ImportProblems:
        """From the import services' messages, `<where>: <what>`: the place becomes the name."""
        pairs = []
        for message in messages:
            where, sep, what = message.partition(": ")
            pairs.append((where, what) if sep and what else ("", message))
        return cls(pairs)


class ProblemList:
    """What an all-or-nothing import service found wrong, in the order found: the first `limit` messages listed
    (each once), the others counted. `raise_any` raises `error(messages)` (its last message "... and N more
    problem(s)")."""

    def __init__(self, error: Callable[[list[str]], Exception], limit: int = 50) -> None:
        self.error = error
        self.limit = limit
        self.listed: list[str] = []
        self.count = 0

    def add(self, message: str) -> None:
        if message in self.listed:  # the same problem met again (a file read once per section): said once
            return
        self.count += 1
        if len(self.listed) < self.limit:
            self.listed.append(message)

    def raise_any(self) -> None:
        if self.count:
            more = self.count - len(self.listed)
            raise self.error(self.listed + ([f"... and {more} more problem(s)"] if more else []))


class _Shaped(io.RawIOBase):
    """A stream whose bytes go through JsonShape before the parser reads them: nesting past the limit, or a
    top-level key given twice, stops the read (JsonInputError) before the parser sees the chunk that holds it."""

    def __init__(self, raw: IO[bytes], max_depth: int) -> None:
        super().__init__()
        self.raw, self.shape = raw, JsonShape(max_depth)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        data = self.raw.read(len(buffer))
        self.shape.feed(data)
        buffer[:len(data)] = data
        return len(data)


def _unique_map(repeated: list[tuple[dict[str, Any], str]]) -> type[dict[str, Any]]:
    """The parser's object type: a dict that keeps the first value of a key and notes (itself, the key) in
    `repeated` (the parser's C code cannot carry an exception raised here)."""

    class UniqueKeys(dict[str, Any]):
        def __setitem__(self, key: str, value: Any) -> None:
            if key in self:
                repeated.append((self, key))
                return
            super().__setitem__(key, value)

    return UniqueKeys


def _repeated_in(item: Any, repeated: list[tuple[dict[str, Any], str]]) -> str | None:
    """The key given twice in one of `item`'s objects, if one of them is noted in `repeated` (the parser builds the
    items of a whole chunk before giving the first: the note may be of a later item)."""
    noted = {id(document): key for document, key in repeated}
    stack = [item]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if id(value) in noted:
                return noted[id(value)]
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return None


# The files (by the callable that opens them) already read to their end through the scan: an import reads each file
# once per section and pass, and the scan's verdict does not change.
_SCANNED: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()


def streamed_items(name: str, opened: Callable[[], AbstractContextManager[IO[bytes]]], section: str,
                   problems: ProblemList, use_float: bool = False) -> Iterator[tuple[int, Any]]:
    """The items of a JSON file's top-level list `section`, streamed (ijson), with their index. As everywhere JSON
    is read (common/json_input.py): nesting deeper than JSON_MAX_DEPTH is refused before the parser reads it (a
    scan of the bytes as they come: the parser's own memory grows with the square of the depth), and so is a key
    given twice, at the top level or in an item. A file that cannot be read or is not valid JSON is a problem of
    `problems`; a zip member lying about its size, corrupt or too large refuses the whole import at once
    (`problems.error`): its records cannot be trusted."""
    repeated: list[tuple[dict[str, Any], str]] = []
    try:
        with opened() as handle:
            stream = handle if opened in _SCANNED else _Shaped(handle, settings.JSON_MAX_DEPTH)
            items = ijson.items(stream, f"{section}.item", use_float=use_float, map_type=_unique_map(repeated))
            for index, item in enumerate(items):
                key = _repeated_in(item, repeated) if repeated else None
                if key is not None:
                    problems.add(f"{name}: {section}[{index}]: the key {json.dumps(key)} is given twice")
                    return
                yield index, item
        _SCANNED.add(opened)  # read to its end: its other sections, and the next pass, skip the scan
    except ReadRefused as exc:
        raise problems.error([str(exc)]) from None
    except OSError as exc:
        problems.add(f"{name}: cannot be read ({exc})")
    except JsonInputError as exc:
        problems.add(f"{name}: {exc}")
    except ijson.JSONError as exc:
        problems.add(f"{name}: not valid JSON ({exc})")


@dataclass(frozen=True)
class ImportOption:
    name: str
    label: str
    help: str = ""
    required: bool = False
    # The choices of a select (value, label), read when the form is shown; None: a text field.
    choices: Callable[[], list[tuple[str, str]]] | None = None
    max_length: int = 100


@dataclass(frozen=True)
class Importer:
    name: str
    label: str  # what the form's button says after "Import": "images", "albums"...
    description: str  # one paragraph: what the file must hold
    extensions: tuple[str, ...]  # accepted file name endings, lower case: (".zip", ".jpg")
    run: Callable[[Path, dict[str, Any], Progress], dict[str, Any]]
    options: tuple[ImportOption, ...] = ()
    multiple: bool = False  # several files at once (the console packs them into one zip)
    # Several files: a bad one (wrong type, too large, empty, damaged) is refused by name in the job's report and the
    # good ones are imported, as the entries of a zip are; only when every file is bad is the upload refused.
    keeps_good: bool = False
    file_label: str = "File"  # the label of the form's file field
    progress_unit: str = "files"  # what done/total count: "files", or "steps" for an all-or-nothing importer
    position: int = 100  # order on the Imports page
    documentation: str = ""  # path of the format's documentation in the repository
    # Raises ImportRefused on a bad option value (after the generic checks); returns the cleaned options.
    check_options: Callable[[dict[str, str], str], dict[str, Any]] | None = None

    def accepts(self, file_name: str) -> bool:
        return file_name.lower().endswith(self.extensions)

    def max_bytes(self, file_name: str) -> int:
        """The largest accepted upload: a zip may hold up to IMPORT_MAX_TOTAL_BYTES, any other file IMAGE_MAX_BYTES."""
        if file_name.lower().endswith(".zip"):
            return int(settings.IMPORT_MAX_TOTAL_BYTES)
        return int(settings.IMAGE_MAX_BYTES)


_IMPORTERS: Registry[Importer] = Registry("importer", ImportRefused)


def register_importer(importer: Importer) -> Importer:
    return _IMPORTERS.add(importer.name, importer)


def get_importer(name: str) -> Importer:
    return _IMPORTERS.get(name)


def importer_names() -> list[str]:
    return [importer.name for importer in all_importers()]


def all_importers() -> list[Importer]:
    return sorted(_IMPORTERS.values(), key=lambda importer: (importer.position, importer.name))
