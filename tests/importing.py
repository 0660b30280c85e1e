"""Helpers of the import tests: zips written from a dict of files, and a progress callback that records its calls."""
from __future__ import annotations

import zipfile
from pathlib import Path


class Steps(list):
    """An importer's progress callback that keeps every (done, total) it is given."""

    def __call__(self, done: int, total: int | None) -> None:
        self.append((done, total))


def write_zip(path: Path, files: dict[str, bytes], when: tuple[int, int, int, int, int, int] | None = None) -> Path:
    """A zip of `files` (name -> bytes); `when`: every entry's time in the zip."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            if when is None:
                archive.writestr(name, data)
            else:
                archive.writestr(zipfile.ZipInfo(name, date_time=when), data)
    return path
