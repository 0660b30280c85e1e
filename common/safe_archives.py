"""The one way an uploaded zip member or file is read: streamed, with its bytes counted as they come.

Every importer and upload reads through here (docs/limits.md lists them with their bounds):

- `SafeZip(path)` opens a zip; `open(name)` streams one member, refusing it with `ReadRefused` (an `OSError`
  naming the member) as soon as more bytes come out than the member may expand to (IMPORT_MAX_ENTRY_BYTES, or a
  smaller cap given) or than the whole archive may (IMPORT_MAX_TOTAL_BYTES, each member counted once), when its
  data is corrupt (bad CRC, broken deflate stream) and when the bytes that come out are not the size its header
  states. The header's sizes are never trusted: they only refuse early a member that says it is too large.
- `open_file(path)` streams a plain file under the same per-file cap; `read_capped` reads a whole (small) stream
  into memory, at most `cap` bytes.
- `text_lines(stream, name)` yields (line number, text) decoded as UTF-8 (a BOM tolerated), each line at most
  IMPORT_MAX_LINE_BYTES bytes, so one huge line never sits in memory; bytes that are not UTF-8 are refused as
  "not text: the file looks damaged at byte N (line L)".

The NumPy readers (header first, shape and size checked before anything is allocated) are in
`common/safe_arrays.py`.
"""
from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from django.conf import settings

from .text_input import damaged

CHUNK = 64 * 1024


class ReadRefused(OSError):
    """A file or zip member refused while reading it; the message names it (and the line, for a text line)."""


@dataclass(frozen=True)
class ReadLimits:
    entry_bytes: int  # the most one file or zip member may expand to
    archive_bytes: int  # the most all the members read from one zip may expand to
    document_bytes: int  # the most a file held whole while it is checked may hold (a table, a JSON document)
    line_bytes: int  # the longest line of a text file (CSV, TSV, plain text)


def read_limits() -> ReadLimits:
    """The configured limits: IMPORT_MAX_ENTRY_BYTES, IMPORT_MAX_TOTAL_BYTES, IMPORT_MAX_DOCUMENT_BYTES,
    IMPORT_MAX_LINE_BYTES."""
    return ReadLimits(entry_bytes=settings.IMPORT_MAX_ENTRY_BYTES, archive_bytes=settings.IMPORT_MAX_TOTAL_BYTES,
                      document_bytes=settings.IMPORT_MAX_DOCUMENT_BYTES, line_bytes=settings.IMPORT_MAX_LINE_BYTES)


class _Counted(io.RawIOBase):
    """A stream whose bytes are counted as they are read: ReadRefused past `cap` (or past the archive's budget),
    on corrupt data, and at the end when `expected` (the size the zip's header states) is not what came out."""

    def __init__(self, raw: IO[bytes], name: str, cap: int, expected: int | None = None,
                 archive: SafeZip | None = None) -> None:
        super().__init__()
        self._raw, self.name, self._cap, self._expected, self._archive = raw, name, cap, expected, archive
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        want = min(len(buffer), self._cap + 1 - self.count)
        try:
            data = self._raw.read(max(want, 1))
        except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, ValueError) as exc:
            raise ReadRefused(f"{self.name}: corrupt zip entry ({exc})") from None
        size = len(data)
        self.count += size
        if self.count > self._cap:
            raise ReadRefused(f"{self.name}: expands past the limit of {self._cap} bytes")
        if self._archive is not None:
            self._archive.counted(self.name, self.count)
        if size == 0 and self._expected is not None and self.count != self._expected:
            raise ReadRefused(f"{self.name}: corrupt zip entry (its header states {self._expected} bytes, "
                              f"{self.count} came out)")
        buffer[:size] = data
        return size

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()


def _buffered(raw: _Counted) -> io.BufferedReader:
    return io.BufferedReader(raw, buffer_size=CHUNK)


def open_file(path: Path, name: str | None = None, cap: int | None = None) -> io.BufferedReader:
    """A plain file, streamed, refused past `cap` bytes (default IMPORT_MAX_ENTRY_BYTES); `name` in messages."""
    limit = read_limits().entry_bytes if cap is None else cap
    label = name or path.name
    if path.stat().st_size > limit:
        raise ReadRefused(f"{label}: larger than the limit of {limit} bytes")
    return _buffered(_Counted(path.open("rb"), label, limit))


def read_capped(stream: IO[bytes], name: str, cap: int) -> bytes:
    """All of a stream's bytes, at most `cap` (ReadRefused past it): for what is needed whole, e.g. an image."""
    data = stream.read(cap + 1)
    if len(data) > cap:
        raise ReadRefused(f"{name}: larger than the limit of {cap} bytes")
    return data


class SafeZip:
    """A zip read member by member through counted streams. ReadRefused when it is not a readable zip."""

    def __init__(self, path: Path | IO[bytes], label: str | None = None, limits: ReadLimits | None = None) -> None:
        self.label = label or (path.name if isinstance(path, Path) else "the zip")
        self.limits = limits or read_limits()
        try:
            self.zip = zipfile.ZipFile(path)
            self.members = {info.filename: info for info in self.zip.infolist() if not info.is_dir()}
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise ReadRefused(f"{self.label}: not a readable zip file ({exc})") from None
        self._read: dict[str, int] = {}

    def __enter__(self) -> SafeZip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.zip.close()

    def names(self) -> list[str]:
        """The members that are files (not folders), in the zip's order."""
        return list(self.members)

    def size(self, name: str) -> int:
        """The size the header states (for choosing and early refusals only: reading counts the real bytes)."""
        return self.members[name].file_size

    def counted(self, name: str, count: int) -> None:
        """A member's bytes so far (each member counted once, at the most read of it); ReadRefused past the
        archive's limit."""
        if count <= self._read.get(name, 0):
            return
        self._read[name] = count
        total = sum(self._read.values())
        if total > self.limits.archive_bytes:
            raise ReadRefused(f"{name}: the archive {self.label} expands past the limit of "
                              f"{self.limits.archive_bytes} bytes")

    def open(self, name: str, cap: int | None = None) -> io.BufferedReader:
        """A member, streamed; KeyError when it is not in the zip, ReadRefused as the module says."""
        info = self.members[name]
        limit = min(self.limits.entry_bytes, cap) if cap is not None else self.limits.entry_bytes
        if info.file_size > limit:
            raise ReadRefused(f"{name}: expands past the limit of {limit} bytes")
        try:
            raw = self.zip.open(info)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError, OSError, EOFError) as exc:
            raise ReadRefused(f"{name}: cannot be opened ({exc})") from None
        return _buffered(_Counted(raw, name, limit, info.file_size, self))

    def read(self, name: str, cap: int) -> bytes:
        """A whole member of at most `cap` bytes (an image file, a small document)."""
        with self.open(name, cap) as member:
            return read_capped(member, name, cap)


def is_zip(path: Path) -> bool:
    """A zip by its signature (a file named .zip that is not one is refused by SafeZip with its reason)."""
    return path.is_file() and (zipfile.is_zipfile(path) or path.suffix.lower() == ".zip")


def base_name(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).name


def text_lines(stream: IO[bytes], name: str, max_line: int | None = None) -> Iterator[tuple[int, str]]:
    """(line number, line without its line break) of a UTF-8 text stream (a BOM tolerated), streamed; ReadRefused
    naming the file and line for a line longer than `max_line` bytes (default IMPORT_MAX_LINE_BYTES), or, for bytes
    that are not UTF-8 (a damaged or binary file: its long run of such bytes is a "long line" too), naming the byte
    where the damage starts (common/text_input.py, `damaged`)."""
    limit = read_limits().line_bytes if max_line is None else max_line
    number = offset = 0  # offset: of the line's first byte in the stream
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        number += 1
        start = offset
        offset += len(raw)
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw, start = raw[3:], start + 3
        too_long = len(raw) > limit and not (len(raw) == limit + 1 and raw.endswith(b"\n"))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            # a long line cut by the limit may end inside a character: only what comes before counts as damage
            if not (too_long and exc.reason == "unexpected end of data"):
                raise ReadRefused(f"{name}: {damaged(start + exc.start, number)}") from None
            text = ""
        if too_long:
            raise ReadRefused(f"{name} line {number}: longer than {limit} bytes")
        yield number, text.rstrip("\n").removesuffix("\r")


class ReleaseFiles:
    """A dataset's files, in a folder or a zip (read through SafeZip), by their names inside the release; `prefix`
    is the one top folder a zip may hold them in (`use_top_folder`). ReadRefused when the path is neither."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.archive: SafeZip | None = None
        self.prefix = ""
        if path.is_dir():
            self.name = path.resolve().name
        elif path.is_file() and is_zip(path):
            self.name = path.stem
            self.archive = SafeZip(path, str(path))
        elif path.exists():
            raise ReadRefused(f"{path}: not a folder or a zip file")
        else:
            raise ReadRefused(f"{path} does not exist")

    def use_top_folder(self, holds: str) -> None:
        """In a zip without `holds` at its root: the one top folder holding a member whose name starts with
        `holds` becomes the prefix of every name."""
        if self.archive is None or any(name.startswith(holds) for name in self.archive.members):
            return
        tops = {name.split("/", 1)[0] for name in self.archive.members if "/" in name}
        nested = [top for top in sorted(tops)
                  if any(name.startswith(f"{top}/{holds}") for name in self.archive.members)]
        if len(nested) == 1:
            self.prefix = nested[0] + "/"

    def open(self, name: str, cap: int | None = None) -> io.BufferedReader | None:
        """The file streamed (None when it is missing), refused past `cap` bytes (default IMPORT_MAX_ENTRY_BYTES)."""
        if self.archive is not None:
            member = self.prefix + name
            return self.archive.open(member, cap) if member in self.archive.members else None
        file = self.path / name
        return open_file(file, name, cap) if file.is_file() else None

    def read(self, name: str, cap: int) -> bytes | None:
        """The whole file (None when it is missing), at most `cap` bytes; ReadRefused naming it otherwise."""
        stream = self.open(name, cap)
        if stream is None:
            return None
        with stream:
            return read_capped(stream, name, cap)

    def close(self) -> None:
        if self.archive is not None:
            self.archive.close()
