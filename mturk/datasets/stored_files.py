"""Reading stored files (local disk or S3) as streams."""
from __future__ import annotations

from typing import IO

from django.core.files.storage import default_storage
from storages.backends.s3 import S3File


def open_stream(name: str) -> tuple[IO[bytes], int]:
    """A stored file opened for reading from its start, and its size in bytes.

    On S3 the bytes come from the service's response as they arrive; django-storages' own file object
    would first copy the whole object into the process."""
    handle = default_storage.open(name, "rb")
    if isinstance(handle, S3File):
        answer = handle.obj.get()
        return answer["Body"], answer["ContentLength"]
    return handle, handle.size
