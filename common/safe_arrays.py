"""NumPy .npy and .npz uploads read header first: the dtype (never an object array: nothing is unpickled), the
shape against the one expected and the size against a cap are checked BEFORE the array is allocated; then the
data is read straight into it. An .npz is a zip: its member is read through common/safe_archives.py (a lying
or corrupt member is refused like any other)."""
from __future__ import annotations

import io
import math
from typing import IO

import numpy as np
from numpy.lib import format as npy_format

from .safe_archives import ReadLimits, ReadRefused, SafeZip


class ArrayRefused(ValueError):
    """An array file refused before its data was read; the message names the file and the reason."""


def _header(stream: IO[bytes], name: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    try:
        version = npy_format.read_magic(stream)
        if version == (1, 0):
            return npy_format.read_array_header_1_0(stream)
        if version == (2, 0):
            return npy_format.read_array_header_2_0(stream)
    except (ValueError, EOFError, SyntaxError, TypeError) as exc:
        raise ArrayRefused(f"{name}: not a NumPy .npy array ({exc})") from None
    raise ArrayRefused(f"{name}: NumPy format version {version[0]}.{version[1]} is not read (1.0 or 2.0)")


def read_npy(stream: IO[bytes], name: str, shape: tuple[int | None, ...], max_bytes: int,
             axes: str = "") -> np.ndarray:
    """The array in an .npy stream whose shape matches `shape` (None: any length on that axis; `axes` names
    them in the message, e.g. "(images, captions)"), of a numeric or boolean dtype, of at most `max_bytes`;
    ArrayRefused otherwise, before anything is allocated."""
    found, fortran, dtype = _header(stream, name)
    if dtype.hasobject or not (np.issubdtype(dtype, np.number) or np.issubdtype(dtype, np.bool_)):
        raise ArrayRefused(f"{name}: the array's type is {dtype}, not numeric")
    if len(found) != len(shape) or any(want not in (None, got) for got, want in zip(found, shape, strict=True)):
        expected = "(" + ", ".join("any" if n is None else str(n) for n in shape) + ")"
        raise ArrayRefused(f"{name}: the array has shape {tuple(found)}, expected {expected}"
                           + (f" {axes}" if axes else ""))
    size = math.prod(found) * dtype.itemsize
    if size > max_bytes:
        raise ArrayRefused(f"{name}: the array holds {size} bytes, over the limit of {max_bytes} bytes")
    array = np.empty(math.prod(found), dtype=dtype)
    view = array.view(np.uint8)
    done = 0
    while done < size:
        chunk = stream.read(min(size - done, 1024 * 1024))
        if not chunk:
            raise ArrayRefused(f"{name}: the file ends before the array's {size} bytes")
        view[done:done + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
        done += len(chunk)
    return array.reshape(found, order="F" if fortran else "C")


def read_npz(data: IO[bytes], name: str, shape: tuple[int | None, ...], max_bytes: int, axes: str = "",
             limits: ReadLimits | None = None) -> np.ndarray:
    """The one array of an .npz (a zip of .npy members), read as `read_npy` reads it."""
    try:
        with SafeZip(data, name, limits) as archive:
            members = archive.names()
            if len(members) != 1:
                listed = ", ".join(member.removesuffix(".npy") for member in members[:10])
                raise ArrayRefused(f"{name}: the .npz holds {len(members)} arrays ({listed}); send exactly one")
            with archive.open(members[0], cap=max_bytes + 64 * 1024) as member:
                return read_npy(member, f"{name} ({members[0]})", shape, max_bytes, axes)
    except ReadRefused as exc:
        message = str(exc)
        raise ArrayRefused(message if message.startswith(f"{name}:") else f"{name}: {message}") from None


def read_array(content: bytes, name: str, shape: tuple[int | None, ...], max_bytes: int,
               axes: str = "") -> np.ndarray:
    """An uploaded .npy or .npz (by its name's suffix). ArrayRefused naming the file (and the .npz's member)."""
    stream = io.BytesIO(content)
    if name.lower().endswith(".npz"):
        return read_npz(stream, name, shape, max_bytes, axes)
    return read_npy(stream, name, shape, max_bytes, axes)
