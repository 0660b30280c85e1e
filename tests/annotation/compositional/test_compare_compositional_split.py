"""compare_compositional_split: an export's dataset_splits.json against the authors' file, split by split."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

OURS = {"train_images_split": ["1", "2", "3"], "val_images_split": ["4"], "test_images_split": ["5", "6"],
        "heldout_pairs": ["black_cat", "eat_man"]}
THEIRS = {"train_images_split": ["1", "2", "9"], "val_images_split": ["4"], "test_images_split": ["5"],
          "heldout_pairs": ["eat_man", "black_cat"]}


def run(*args: object) -> str:
    out = io.StringIO()
    call_command("compare_compositional_split", *[str(a) for a in args], stdout=out)
    return out.getvalue()


def write_zip(path: Path, members: dict[str, object]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, json.dumps(data))
    return path


def test_overlap_per_split(tmp_path):
    export = write_zip(tmp_path / "export.zip", {"dataset_splits.json": OURS, "train.json": []})
    (tmp_path / "theirs.json").write_text(json.dumps(THEIRS))
    lines = run(export, tmp_path / "theirs.json").splitlines()
    assert lines[0] == "Held-out pairs: black_cat, eat_man"
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:5]}
    # train: 1, 2 in both; 3 ours only; 9 theirs only -> 2 / 4
    assert rows["train"] == ["3", "3", "2", "1", "1", "0.5000"]
    assert rows["val"] == ["1", "1", "1", "0", "0", "1.0000"]
    assert rows["eval"] == ["2", "1", "1", "1", "0", "0.5000"]


def test_different_pairs_are_said(tmp_path):
    (tmp_path / "ours.json").write_text(json.dumps(OURS))
    (tmp_path / "theirs.json").write_text(json.dumps({**THEIRS, "heldout_pairs": ["red_bus"]}))
    assert "Held-out pairs differ: ours black_cat, eat_man; theirs red_bus" in run(tmp_path / "ours.json",
                                                                                  tmp_path / "theirs.json")


def test_bad_files_are_named(tmp_path):
    good = tmp_path / "theirs.json"
    good.write_text(json.dumps(THEIRS))
    with pytest.raises(CommandError, match=r"missing\.zip: No such file"):
        run(tmp_path / "missing.zip", good)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CommandError, match=r"bad\.json: Expecting property name"):
        run(tmp_path / "bad.json", good)
    (tmp_path / "partial.json").write_text(json.dumps({"train_images_split": []}))
    with pytest.raises(CommandError, match=r"partial\.json: val_images_split is missing or not a list"):
        run(good, tmp_path / "partial.json")
    other = write_zip(tmp_path / "other.zip", {"captions.json": []})
    with pytest.raises(CommandError, match=r"other\.zip: no dataset_splits\.json in the zip"):
        run(other, good)
