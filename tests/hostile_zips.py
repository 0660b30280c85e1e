"""Hostile zips and NumPy files for the upload tests: members whose header lies about their size or CRC, members
that expand far past their compressed size, .npy headers claiming huge shapes, object arrays."""
from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import numpy as np
from numpy.lib import format as npy_format

LOCAL, CENTRAL = b"PK\x03\x04", b"PK\x01\x02"


def patch_member(path: Path, *, file_size: int | None = None, crc: int | None = None, only: str | None = None) -> Path:
    """Rewrite the stated uncompressed size and/or CRC-32 of the zip's members (`only`: of that member), in both
    the local header and the central directory (the data stays as it is): a zip that lies about its entries."""
    data = bytearray(path.read_bytes())
    for signature, crc_at, size_at, name_length_at, name_at in ((LOCAL, 14, 22, 26, 30), (CENTRAL, 16, 24, 28, 46)):
        start = data.find(signature)
        while start != -1:
            length = struct.unpack_from("<H", data, start + name_length_at)[0]
            name = bytes(data[start + name_at:start + name_at + length]).decode()
            if only is None or name == only:
                if crc is not None:
                    struct.pack_into("<I", data, start + crc_at, crc)
                if file_size is not None:
                    struct.pack_into("<I", data, start + size_at, file_size)
            start = data.find(signature, start + 4)
    path.write_bytes(bytes(data))
    return path


def bomb_zip(path: Path, name: str, size: int, line: bytes = b"", others: dict[str, bytes] | None = None) -> Path:
    """A zip whose member `name` expands to `size` bytes (`line` repeated, else zeros) from a few kB, with the
    other members `others`."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for other, content in (others or {}).items():
            archive.writestr(other, content)
        with archive.open(name, "w", force_zip64=True) as member:
            block = (line * (1024 * 1024 // len(line) + 1))[:1024 * 1024] if line else bytes(1024 * 1024)
            left = size
            while left > 0:
                member.write(block[:left])
                left -= len(block)
    return path


def npy_header(shape: tuple[int, ...], descr: str = "<f8", data: bytes = b"") -> bytes:
    """An .npy file's header stating `shape` and `descr`, followed by `data` (nothing: it claims what it lacks)."""
    buffer = io.BytesIO()
    npy_format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue() + data


def npz_of(members: dict[str, bytes], compress: bool = True) -> bytes:
    """An .npz: a zip of .npy members (name -> the .npy file's bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as z:
        for name, content in members.items():
            z.writestr(name, content)
    return buffer.getvalue()


def object_npy() -> bytes:
    """An .npy holding an object array (a pickle): never to be unpickled."""
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    return buffer.getvalue()
