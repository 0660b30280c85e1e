"""Compare an exported compositional split with the authors' (their data/dataset_splits/dataset_splits_N.json)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from common.safe_archives import ReadRefused, SafeZip, is_zip, open_file, read_capped
from metrics.compositional.splits import compare_splits, read_dataset_splits

MEMBER = "dataset_splits.json"


def load_splits(path: Path) -> tuple[dict[str, set[str]], list[str]]:
    """The split sets and held-out pairs of an export zip (its dataset_splits.json) or a dataset_splits JSON file;
    CommandError naming the file and the problem."""
    limit = settings.IMPORT_MAX_DOCUMENT_BYTES
    try:
        if is_zip(path):
            with SafeZip(path, str(path)) as archive:
                if MEMBER not in archive.members:
                    raise CommandError(f"{path}: no {MEMBER} in the zip (is it a compositional export?)")
                data: Any = json.loads(archive.read(MEMBER, limit))
        else:
            with open_file(path, str(path), limit) as stream:
                data = json.loads(read_capped(stream, str(path), limit).decode("utf-8"))
        splits = read_dataset_splits(data)
    except ReadRefused as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise CommandError(f"{path}: {exc}") from None
    pairs = data.get("heldout_pairs") or []
    return splits, [str(p) for p in pairs] if isinstance(pairs, list) else []


class Command(BaseCommand):
    help = ("Compare a compositional export (zip, or its dataset_splits.json) with the authors' dataset_splits_N.json: "
            "per split the images in both, in one only, and the Jaccard index.")

    def add_arguments(self, parser):
        parser.add_argument("export", type=Path, help="the export zip (or a dataset_splits.json)")
        parser.add_argument("authors", type=Path, help="the authors' dataset_splits_N.json")

    def handle(self, *args, export: Path, authors: Path, **options):
        ours, our_pairs = load_splits(export)
        theirs, their_pairs = load_splits(authors)
        if sorted(our_pairs) != sorted(their_pairs):
            self.stdout.write(f"Held-out pairs differ: ours {', '.join(our_pairs) or '-'}; "
                              f"theirs {', '.join(their_pairs) or '-'}")
        else:
            self.stdout.write(f"Held-out pairs: {', '.join(our_pairs)}")
        self.stdout.write(f"{'split':<6} {'ours':>8} {'theirs':>8} {'both':>8} {'ours only':>10} {'theirs only':>12} "
                          f"{'jaccard':>8}")
        for row in compare_splits(ours, theirs):
            jaccard = "-" if row.jaccard is None else f"{row.jaccard:.4f}"
            self.stdout.write(f"{row.split:<6} {row.ours:>8} {row.theirs:>8} {row.common:>8} {row.only_ours:>10} "
                              f"{row.only_theirs:>12} {jaccard:>8}")
        self.stdout.write("(their test_images_split is our eval split)")
