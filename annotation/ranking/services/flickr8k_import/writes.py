"""Second pass: the checked release written (images by reference or with their files, origins with the split,
captions keeping their #n, one judgement per expert grade and per crowd vote). Re-importing writes nothing new."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from django.db import reset_queries

from ....models import Description, Image, ImageOrigin
from ....services.image_files import inspect_image
from ....services.images import import_image_bytes
from ...models import CaptionJudgement
from ..board_queue import judgements_changed
from .checks import Plan, ReleasedImage, captions
from .release import Flickr8kImportError, Release

DATASET = SOURCE = "flickr8k"
BATCH = 2000
CROWD_JUDGE = "CrowdFlower"
T = TypeVar("T")


def expert_judge(n: int) -> str:
    return f"expert {n}"


def chunks(items: Sequence[T], size: int = BATCH) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def caption_external_id(image: ReleasedImage, n: int) -> int:
    """A caption's id among imported flickr8k captions: the Flickr id and the caption's #n (0-9)."""
    return image.flickr_id * 10 + n


def check_image_files(plan: Plan, release: Release) -> list[str]:
    """Each given image file decoded (a bad one refuses the import); the names of the images that have one."""
    problems, found = [], []
    for image in plan.images.values():
        data = release.image_bytes(image.name)
        if data is None:
            continue
        try:
            inspect_image(data)
        except ValueError as exc:
            problems.append(f"{image.name}: {exc}")
            continue
        found.append(image.name)
    if problems:
        raise Flickr8kImportError(problems[:50])
    return found


def write_images(plan: Plan, release: Release, with_file: set[str], stored: list[str],
                 counts: dict[str, int], step: Callable[[], None]) -> dict[str, int]:
    """The platform image of every released image: known by its flickr8k origin, or by its key (an origin is
    added), else new. Returns image ids by released name."""
    ids: dict[str, int] = {}
    images = list(plan.images.values())
    for chunk in chunks(images):
        by_flickr = {image.flickr_id: image for image in chunk}
        origins = {o.external_id: o for o in ImageOrigin.objects.filter(dataset=DATASET,
                                                                         external_id__in=list(by_flickr))}
        keyed = dict(Image.objects.filter(key__in=[i.key for i in chunk if i.flickr_id not in origins])
                     .values_list("key", "pk"))
        new_origins, changed, by_reference = [], [], []
        for image in chunk:
            origin = origins.get(image.flickr_id)
            if origin is not None:
                ids[image.name] = origin.image_id
                if (origin.subset, origin.name) != (image.split, image.name):
                    origin.subset, origin.name = image.split, image.name
                    changed.append(origin)
                counts["images already known"] += 1
            elif image.key in keyed:
                ids[image.name] = keyed[image.key]
                new_origins.append(ImageOrigin(image_id=keyed[image.key], dataset=DATASET,
                                               external_id=image.flickr_id, subset=image.split, name=image.name))
                counts["images already known"] += 1
            elif image.name in with_file:
                data = release.image_bytes(image.name) or b""
                created, new = import_image_bytes(image.name, data, key=image.key)
                if new:
                    stored.append(created.original.name)
                ids[image.name] = created.pk
                new_origins.append(ImageOrigin(image_id=created.pk, dataset=DATASET, external_id=image.flickr_id,
                                               subset=image.split, name=image.name))
                counts["images with their file"] += 1
            else:
                by_reference.append(image)
            step()
        made = Image.objects.bulk_create([
            Image(key=image.key, sha256=None, original="", source_url="", original_name=image.name, format="JPEG",
                  width=0, height=0, file_size=0) for image in by_reference])
        for image, row in zip(by_reference, made, strict=True):
            ids[image.name] = row.pk
            new_origins.append(ImageOrigin(image_id=row.pk, dataset=DATASET, external_id=image.flickr_id,
                                           subset=image.split, name=image.name))
        counts["images by reference"] += len(by_reference)
        ImageOrigin.objects.bulk_create(new_origins)
        ImageOrigin.objects.bulk_update(changed, ["subset", "name"])
        counts["image splits updated"] += len(changed)
        reset_queries()
    return ids


def _caption_chunks(release: Release, size: int = BATCH) -> Iterator[list[tuple[str, int, str]]]:
    chunk: list[tuple[str, int, str]] = []
    for caption in captions(release):
        chunk.append(caption)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def write_captions(plan: Plan, release: Release, ids: dict[str, int], counts: dict[str, int],
                   needed: set[str]) -> dict[str, int]:
    """Captions by their external id (Flickr id and #n), read again from the token file a chunk at a time: new
    ones stored. Returns the description ids of the `needed` caption ids (those judged, or in the test pool)."""
    described: dict[str, int] = {}
    for chunk in _caption_chunks(release):
        rows = [(f"{name}#{n}", plan.images[name], n, text) for name, n, text in chunk]
        wanted = {caption_external_id(image, n): caption_id for caption_id, image, n, _ in rows}
        known = dict(Description.objects.filter(source=SOURCE, external_id__in=list(wanted))
                     .values_list("external_id", "pk"))
        new = [Description(image_id=ids[image.name], text=text, tokens=text.split(), source=SOURCE,
                           external_id=caption_external_id(image, n))
               for _, image, n, text in rows if caption_external_id(image, n) not in known]
        Description.objects.bulk_create(new)
        counts["captions"] += len(new)
        counts["captions already known"] += len(known)
        if needed:
            known.update(Description.objects.filter(source=SOURCE, external_id__in=[d.external_id for d in new])
                         .values_list("external_id", "pk"))
            described.update({caption_id: known[external] for external, caption_id in wanted.items()
                              if caption_id in needed})
        reset_queries()
    return described


def write_judgements(plan: Plan, ids: dict[str, int], described: dict[str, int], counts: dict[str, int]) -> None:
    """One imported judgement per expert grade (judge "expert 1".."expert 3") and per CrowdFlower vote (judge
    "CrowdFlower": `yes` relevant, `no` not). A pair already holding a judge's judgements gets none again."""
    judges = {expert_judge(n) for _, _, grades in plan.expert for n in range(1, len(grades) + 1)} | {CROWD_JUDGE}
    image_ids = sorted(set(ids.values()))
    have: set[tuple[int, int, str]] = set()
    for chunk in chunks(image_ids):
        have.update(CaptionJudgement.objects.filter(source=CaptionJudgement.Source.IMPORTED, image_id__in=chunk,
                                                    judge__in=judges)
                    .values_list("image_id", "description_id", "judge"))
    new: list[CaptionJudgement] = []
    for image, caption, grades in plan.expert:
        pair = (ids[image], described[caption])
        for n, grade in enumerate(grades, start=1):
            if (*pair, expert_judge(n)) in have:
                counts["expert grades already known"] += 1
                continue
            new.append(CaptionJudgement(image_id=pair[0], description_id=pair[1], grade=grade, judge=expert_judge(n),
                                        source=CaptionJudgement.Source.IMPORTED))
            counts["expert grades"] += 1
    for image, caption, yes, no in plan.crowd:
        pair = (ids[image], described[caption])
        if (*pair, CROWD_JUDGE) in have:
            counts["crowd votes already known"] += yes + no
            continue
        new.extend(CaptionJudgement(image_id=pair[0], description_id=pair[1], relevant=relevant, judge=CROWD_JUDGE,
                                    source=CaptionJudgement.Source.IMPORTED)
                   for relevant, times in ((True, yes), (False, no)) for _ in range(times))
        counts["crowd votes"] += yes + no
    for batch in chunks(new, 5000):
        CaptionJudgement.objects.bulk_create(batch)
        reset_queries()
    if new:
        judgements_changed(j.image_id for j in new)
