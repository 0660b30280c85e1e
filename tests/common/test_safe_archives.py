"""The safe readers of uploads (common/safe_archives.py, common/safe_arrays.py): bytes counted as they stream,
lying and corrupt zip members refused by name, lines capped, NumPy headers checked before anything is allocated."""
from __future__ import annotations

import io
import tracemalloc
import zipfile

import numpy as np
import pytest

from common.safe_archives import ReadRefused, ReleaseFiles, SafeZip, open_file, text_lines
from common.safe_arrays import ArrayRefused, read_array
from tests.hostile_zips import bomb_zip, npy_header, npz_of, object_npy, patch_member
from tests.importing import write_zip

MiB = 1024 * 1024


@pytest.fixture
def small_limits(settings):
    settings.IMPORT_MAX_ENTRY_BYTES = 64 * 1024
    settings.IMPORT_MAX_TOTAL_BYTES = 100 * 1024
    settings.IMPORT_MAX_LINE_BYTES = 100
    return settings


def read_all(stream) -> bytes:
    with stream:
        return b"".join(iter(lambda: stream.read(4096), b""))


def test_a_member_is_read_whole_when_within_the_limits(tmp_path, small_limits):
    with SafeZip(write_zip(tmp_path / "a.zip", {"dir/a.txt": b"x" * 60_000})) as archive:
        assert archive.names() == ["dir/a.txt"]
        assert read_all(archive.open("dir/a.txt")) == b"x" * 60_000


def test_a_member_expanding_past_its_limit_is_refused_by_name(tmp_path, small_limits):
    path = bomb_zip(tmp_path / "bomb.zip", "descriptions.tsv", 2 * MiB)
    assert path.stat().st_size < 10_000  # a few kB that would expand to 2 MiB
    with SafeZip(path) as archive, pytest.raises(ReadRefused) as refused:
        read_all(archive.open("descriptions.tsv"))
    assert str(refused.value) == "descriptions.tsv: expands past the limit of 65536 bytes"


def test_a_member_whose_header_states_a_small_size_is_counted_as_it_streams(tmp_path, small_limits):
    # The header says 10 bytes; zipfile stops there and the CRC of those 10 bytes is wrong: refused, not crashed.
    path = patch_member(bomb_zip(tmp_path / "lying.zip", "captions.json", 2 * MiB), file_size=10)
    with SafeZip(path) as archive, pytest.raises(ReadRefused) as refused:
        read_all(archive.open("captions.json"))
    assert str(refused.value) == "captions.json: corrupt zip entry (Bad CRC-32 for file 'captions.json')"


def test_a_member_whose_header_states_a_larger_size_is_refused(tmp_path, small_limits):
    path = patch_member(write_zip(tmp_path / "lying.zip", {"a.txt": b"hello\n" * 100}), file_size=60_000)
    with SafeZip(path) as archive, pytest.raises(ReadRefused) as refused:
        read_all(archive.open("a.txt"))
    assert str(refused.value) == "a.txt: corrupt zip entry (its header states 60000 bytes, 600 came out)"


def test_a_member_with_a_wrong_crc_is_refused(tmp_path, small_limits):
    path = patch_member(write_zip(tmp_path / "crc.zip", {"a.txt": b"hello\n" * 100}), crc=12345)
    with SafeZip(path) as archive, pytest.raises(ReadRefused) as refused:
        read_all(archive.open("a.txt"))
    assert str(refused.value) == "a.txt: corrupt zip entry (Bad CRC-32 for file 'a.txt')"


def test_the_archive_is_capped_as_a_whole_each_member_counted_once(tmp_path, small_limits):
    files = {f"{n}.txt": bytes([65 + n]) * 40_000 for n in range(3)}  # 3 x 40 kB, the archive may give 100 kB
    with SafeZip(write_zip(tmp_path / "three.zip", files)) as archive:
        assert read_all(archive.open("0.txt")) == files["0.txt"]
        assert read_all(archive.open("0.txt")) == files["0.txt"]  # read again: not counted twice
        assert read_all(archive.open("1.txt")) == files["1.txt"]
        with pytest.raises(ReadRefused) as refused:
            read_all(archive.open("2.txt"))
    assert str(refused.value) == "2.txt: the archive three.zip expands past the limit of 102400 bytes"


def test_a_file_that_is_not_a_zip(tmp_path):
    (tmp_path / "x.zip").write_bytes(b"hello")
    with pytest.raises(ReadRefused, match=r"^x.zip: not a readable zip file \(File is not a zip file\)$"):
        SafeZip(tmp_path / "x.zip")
    with pytest.raises(ReadRefused, match=r"x.zip: not a readable zip file"):
        ReleaseFiles(tmp_path / "x.zip")


def test_a_plain_file_is_capped_too(tmp_path, small_limits):
    (tmp_path / "big.tsv").write_bytes(b"a\n" * 40_000)
    with pytest.raises(ReadRefused, match=r"^big.tsv: larger than the limit of 65536 bytes$"):
        open_file(tmp_path / "big.tsv")
    assert read_all(open_file(tmp_path / "big.tsv", cap=100_000)) == b"a\n" * 40_000


def test_text_lines_are_streamed_with_their_numbers_and_capped(small_limits):
    data = "\ufeffname\tvalue\r\nb\u00e9\t2\n\nlast".encode()
    assert list(text_lines(io.BytesIO(data), "t.tsv")) == [(1, "name\tvalue"), (2, "b\u00e9\t2"), (3, ""),
                                                           (4, "last")]
    exactly = b"x" * 99 + b"\n"  # 100 bytes with its line break: at the limit
    assert list(text_lines(io.BytesIO(exactly), "t.tsv")) == [(1, "x" * 99)]
    with pytest.raises(ReadRefused, match=r"^t.tsv line 2: longer than 100 bytes$"):
        list(text_lines(io.BytesIO(b"ok\n" + b"x" * 5000 + b"\n"), "t.tsv"))
    with pytest.raises(ReadRefused, match=r"^t.tsv: not text: the file looks damaged at byte 5 \(line 2\)$"):
        list(text_lines(io.BytesIO(b"ok\nab\xff\n"), "t.tsv"))


def test_a_damaged_run_of_bytes_is_said_to_be_damaged_not_a_long_line(small_limits):
    """32 KiB of 0xff in the middle of a text file: no line break in it, so it reads as one long line; what is
    wrong is that it is not text, and where."""
    good = "caf\u00e9\tok\n".encode() * 10  # 9 bytes a line
    data = good + b"ab" + b"\xff" * 32 * 1024 + b"\n" + good
    with pytest.raises(ReadRefused, match=r"^t.tsv: not text: the file looks damaged at byte 92 \(line 11\)$"):
        list(text_lines(io.BytesIO(data), "t.tsv"))
    with pytest.raises(ReadRefused, match=r"^t.tsv: not text: the file looks damaged at byte 3 \(line 1\)$"):
        list(text_lines(io.BytesIO(b"\xef\xbb\xbf\xc3("), "t.tsv"))  # after a BOM, a broken two-byte character
    long_text = ("\u00e9" * 60).encode() + b"\n"  # 120 bytes of text, cut by the limit inside a character
    with pytest.raises(ReadRefused, match=r"^t.tsv line 1: longer than 100 bytes$"):
        list(text_lines(io.BytesIO(long_text), "t.tsv"))


def peak_bytes(call):
    """The most memory Python and NumPy allocated while `call` ran (tracemalloc traces NumPy's buffers)."""
    tracemalloc.start()
    try:
        call()
    except (ArrayRefused, ReadRefused):
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_an_npy_header_claiming_a_huge_shape_is_refused_before_allocating():
    huge = npy_header((100_000, 100_000))  # 80 GB claimed, a few bytes sent
    with pytest.raises(ArrayRefused) as refused:
        read_array(huge, "s.npy", (3, 6), 10 * MiB, "(images, captions)")
    assert str(refused.value) == "s.npy: the array has shape (100000, 100000), expected (3, 6) (images, captions)"
    assert peak_bytes(lambda: read_array(huge, "s.npy", (3, 6), 10 * MiB)) < MiB
    with pytest.raises(ArrayRefused, match=r"^s.npy: the array holds 80000000000 bytes, over the limit of 1048576"):
        read_array(huge, "s.npy", (None, None), MiB)


def test_an_npz_of_a_huge_zero_matrix_is_refused_from_its_header():
    member = npy_header((12_000, 12_000), data=bytes(4 * MiB))  # as np.savez_compressed(np.zeros(...)) starts
    content = npz_of({"arr_0.npy": member})
    assert len(content) < 20_000
    with pytest.raises(ArrayRefused, match=r"^s.npz \(arr_0.npy\): the array has shape \(12000, 12000\), expected"):
        read_array(content, "s.npz", (3, 6), 10 * MiB)
    assert peak_bytes(lambda: read_array(content, "s.npz", (3, 6), 10 * MiB)) < 2 * MiB


def test_object_arrays_are_refused_unread():
    with pytest.raises(ArrayRefused, match=r"^s.npy: the array's type is object, not numeric$"):
        read_array(object_npy(), "s.npy", (2,), MiB)
    with pytest.raises(ArrayRefused, match=r"^s.npz \(a.npy\): the array's type is object, not numeric$"):
        read_array(npz_of({"a.npy": object_npy()}), "s.npz", (2,), MiB)


def test_a_truncated_or_malformed_npy_is_refused():
    with pytest.raises(ArrayRefused, match=r"^s.npy: the file ends before the array's 144 bytes$"):
        read_array(npy_header((3, 6), data=b"\0" * 10), "s.npy", (3, 6), MiB)
    with pytest.raises(ArrayRefused, match=r"^s.npy: not a NumPy .npy array"):
        read_array(b"PK not numpy", "s.npy", (3, 6), MiB)


def test_a_good_array_is_read_as_numpy_saves_it():
    scores = np.arange(18, dtype=np.float32).reshape(3, 6)
    for order in ("C", "F"):
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(scores, order=order))
        assert np.array_equal(read_array(buffer.getvalue(), "s.npy", (3, None), MiB), scores)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, scores=scores)
    loaded = read_array(buffer.getvalue(), "s.npz", (3, 6), MiB)
    assert loaded.dtype == np.float32 and np.array_equal(loaded, scores)


def test_an_npz_whose_member_lies_about_its_size_is_refused(tmp_path):
    buffer = io.BytesIO()
    np.savez(buffer, a=np.ones((3, 6)))
    path = tmp_path / "s.npz"
    path.write_bytes(buffer.getvalue())
    patch_member(path, crc=1)
    with pytest.raises(ArrayRefused, match=r"^s.npz: a.npy: corrupt zip entry \(Bad CRC-32 for file 'a.npy'\)$"):
        read_array(path.read_bytes(), "s.npz", (3, 6), MiB)
    assert zipfile.is_zipfile(path)
    with pytest.raises(ArrayRefused, match=r"^s.npz: not a readable zip file"):
        read_array(b"PK\x03\x04 broken", "s.npz", (3, 6), MiB)
