"""JsonShape (common/json_input.py): the nesting depth and the top-level keys of JSON fed in chunks, before any
parser reads it; brackets and quotes inside strings, escapes and chunk boundaries anywhere."""
from __future__ import annotations

import pytest

from common.json_input import JsonInputError, JsonShape


def shape(data: bytes, max_depth: int = 4, chunk: int = 1) -> None:
    """JsonShape fed `chunk` bytes at a time: every chunk boundary, inside strings and escapes included."""
    scan = JsonShape(max_depth)
    for start in range(0, len(data), chunk):
        scan.feed(data[start:start + chunk])


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 4096])
def test_the_scan_counts_brackets_outside_strings_only(chunk):
    shape(b'{"a[[[[[": "]]]]] \\" [[[[[", "b": [[["{{{{{{{{"]]], "c\\\\": "\\\\"}', chunk=chunk)
    with pytest.raises(JsonInputError, match=r"nested deeper than 4 levels \(at byte 28\)"):
        shape(b'{"a": "]]]]]]]]]]", "b": [[[[1]]]]}', chunk=chunk)
    with pytest.raises(JsonInputError, match=r"nested deeper than 4 levels \(at byte 4\)"):
        shape(b"[" * 100_000, chunk=max(chunk, 1000))


@pytest.mark.parametrize("chunk", [1, 3, 4096])
def test_the_scan_refuses_a_top_level_key_given_twice_as_the_parser_reads_it(chunk):
    with pytest.raises(JsonInputError, match='the key "albums" is given twice'):
        shape(b'{"albums": [1], "images": [{"albums": 2}], "\\u0061lbums": [3]}', chunk=chunk)
    shape(b'{"albums": [{"albums": 1, "x": {"albums": 2}}], "images": "albums"}', chunk=chunk)  # not top-level
    shape(b'[{"a": 1}, {"a": 2}]', chunk=chunk)
