"""import_flickr8k: check every file of the release, then write it all in one transaction (or nothing)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.core.files.storage import default_storage
from django.db import transaction

from ....image_sets.services import SetSpec, file_images
from ...models import PoolImage, TestPool
from ..pools import PoolError, freeze_pool
from .checks import Plan, check_release
from .release import Flickr8kImportError, Release
from .writes import check_image_files, write_captions, write_images, write_judgements

# What the release's readme.txt states of its terms: no licence, a request to cite.
LICENCE = ('The release\'s readme states no licence; it asks: "If you use this corpus / data: Please cite: '
           'M. Hodosh, P. Young and J. Hockenmaier (2013) \'Framing Image Description as a Ranking Task: Data, '
           'Models and Evaluation Metrics\', Journal of Artificial Intelligence Research, Volume 47, pages 853-899". '
           "The images are Flickr photographs under their owners' terms.")
DEFAULT_SET = "Flickr8k"


@dataclass
class Flickr8kImport:
    files: list[str]
    counts: dict[str, int] = field(default_factory=dict)
    image_set: str = ""
    test_pool: str = ""
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"files": self.files, "counts": self.counts, "image_set": self.image_set,
                "test_pool": self.test_pool, "notes": self.notes}


def _pool(name: str, plan: Plan, ids: dict[str, int], described: dict[str, int], counts: Counter[str]) -> str:
    """The released test split as a test pool (its images and their captions, in the release's order); an
    existing pool of that name over the same images is kept."""
    tests = [image for image in plan.images.values() if image.split == "test"]
    if not tests:
        raise Flickr8kImportError(["--test-pool: the release has no test split (Flickr_8k.testImages.txt)"])
    image_ids = [ids[image.name] for image in tests]
    existing = TestPool.objects.filter(name=name).first()
    if existing is not None:
        if sorted(PoolImage.objects.filter(pool=existing).values_list("image_id", flat=True)) != sorted(image_ids):
            raise Flickr8kImportError([f"--test-pool: a test pool named '{name}' already exists with other images"])
        counts["test pool already there"] += 1
        return name
    by_image: dict[int, list[int]] = {}
    for image in sorted(tests, key=lambda image: image.name):
        by_image[ids[image.name]] = [described[caption_id] for caption_id in image.caption_ids()]
    try:
        freeze_pool(name, image_ids, by_image)
    except PoolError as exc:
        raise Flickr8kImportError([f"--test-pool: {exc}"]) from None
    counts["test pool images"] = len(image_ids)
    return name


def import_flickr8k(release: Release, *, image_set: str = DEFAULT_SET, test_pool: str = "",
                    progress: Callable[[int, int | None], None] | None = None) -> Flickr8kImport:
    """All or nothing: the release checked (Flickr8kImportError naming each problem's file and line), then
    written in one transaction; the same release again adds no row."""
    plan = check_release(release)
    with_file = set(check_image_files(plan, release)) if release.images else set()
    total = len(plan.images)
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None and done % 500 == 0:
            progress(done, total)

    counts: Counter[str] = Counter()
    stored: list[str] = []
    try:
        with transaction.atomic():
            ids = write_images(plan, release, with_file, stored, counts, step)
            needed = {caption for _, caption, _ in plan.expert} | {caption for _, caption, _, _ in plan.crowd}
            if test_pool:
                needed.update(c for image in plan.images.values() if image.split == "test" for c in image.caption_ids())
            described = write_captions(plan, release, ids, counts, needed)
            write_judgements(plan, ids, described, counts)
            file_images(SetSpec(image_set, source="flickr8k", licence=LICENCE), list(ids.values()))
            pool = _pool(test_pool, plan, ids, described, counts) if test_pool else ""
    except BaseException:
        for name in stored:  # the rows are rolled back; the stored files must go too
            default_storage.delete(name)
        raise
    if progress is not None:
        progress(total, total)
    splits = Counter(image.split or "none" for image in plan.images.values())
    summary = Flickr8kImport(plan.files, image_set=image_set, test_pool=pool)
    summary.counts = {"images": len(plan.images), **{f"{s} images": splits[s] for s in ("train", "dev", "test")},
                      "images in no split": splits["none"], "released captions": plan.captions,
                      "expert rows": len(plan.expert), "crowd rows": len(plan.crowd), **dict(counts)}
    if plan.normalized_captions:
        summary.notes.append(f"{plan.normalized_captions} caption(s) had extra tabs or spaces: stored single-spaced")
    return summary
