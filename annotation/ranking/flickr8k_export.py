"""The Flickr8k layout (Hodosh et al.; documented in docs/formats/flickr8k.md).

    Flickr8k.token.txt              `<image file>#<n>\\t<caption>`, n = 0..4 per image (creation order)
    Flickr_8k.trainImages.txt       one image file name a line, and likewise dev and test
    Flickr_8k.devImages.txt
    Flickr_8k.testImages.txt
    ExpertAnnotations.txt           graded judgements: image, caption id, one score a judge (4 = describes it)
    CrowdFlowerAnnotations.txt      binary judgements: image, caption id, fraction of yes, yes, no
    CrowdLabels.txt                 each crowd-judged pair's label: image, caption id, 1 or 0, its confidence
                                    (option `aggregation`: majority, the default, or dawid_skene)
    Flicker8k_Dataset/<image file>  the original image files, with the `images` option (the original archive's
                                    misspelt folder name, which the usual readers expect)

Captions are the approved describe_image descriptions of the chosen campaigns (of every describe_image campaign
when none is chosen), at most five per image as in the original, so that `n` is one digit (readers cut the id at
`#`, or drop its last two characters). The split is by image: a seeded order (SHA-256 of seed and image key), cut
in the original's 6000/1000/1000 proportions; with `test_pool`, the exported images of that pool are the test
split and the others are cut 6000/1000 into train and dev."""
from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from django.db.models import Q

from metrics.categorical import dawid_skene
from mturk.datasets.formats import ExportError
from mturk.states import AssignmentStatus

from ..exports.common import by_reference_note, formula_like, key_problem, note_formulas
from ..models import Description, Image, ImageOrigin
from .models import CaptionJudgement, PoolImage, TestPool

if TYPE_CHECKING:
    from mturk.datasets.formats import ExportBundle
    from mturk.models import Campaign

CAPTIONS_PER_IMAGE = 5  # the original's; keeps the caption number one digit
PROPORTIONS = (6000, 1000, 1000)  # train, dev, test images in the original
SPLIT_FILES = {"train": "Flickr_8k.trainImages.txt", "dev": "Flickr_8k.devImages.txt",
               "test": "Flickr_8k.testImages.txt"}
TOKEN_FILE = "Flickr8k.token.txt"
EXPERT_FILE = "ExpertAnnotations.txt"
CROWD_FILE = "CrowdFlowerAnnotations.txt"
LABELS_FILE = "CrowdLabels.txt"
AGGREGATIONS = ("majority", "dawid_skene")
IMAGES_FOLDER = "Flicker8k_Dataset"  # sic: the folder name of the original archive
DEFAULT_SEED = "flickr8k"
RELEASE_SOURCE = "flickr8k"  # Description.source and ImageOrigin.dataset of an imported release


@dataclass(frozen=True)
class CaptionedImage:
    pk: int
    key: str
    file_name: str  # <key>.<extension of the stored original>
    original: str  # storage name of the original
    captions: list[tuple[int, str]]  # (description pk, caption), at most five, in creation order


@dataclass
class Flickr8kData:
    images: list[CaptionedImage]  # by key
    dropped_captions: int = 0  # approved descriptions beyond an image's fifth
    caption_ids: dict[int, str] = field(default_factory=dict)  # description pk -> "<image file>#<n>"
    campaigns: dict[int, int] = field(default_factory=dict)  # description pk -> the campaign that made it, if any


def caption_text(text: str, tokens: list[str]) -> str:
    """The caption as one line: its tokens joined by single spaces (the original's tokenized style)."""
    return " ".join(" ".join(tokens).split()) or " ".join(text.split())


def file_key_problem(key: str) -> str | None:
    """Why an image key cannot be a Flickr8k image id (readers split ids at `#` and lines at whitespace)."""
    problem = key_problem(key)
    if problem is None and ("#" in key or any(char.isspace() for char in key)):
        problem = f"the image key {key!r} contains '#' or a space"
    return problem


def flickr8k_data(campaigns: list[Campaign]) -> Flickr8kData:
    """The approved describe_image descriptions of the campaigns (every describe_image campaign when none), at most
    five per image, by image key and then creation order."""
    approved = Q(assignment__status=AssignmentStatus.APPROVED, assignment__hit__campaign__task_kind="describe_image")
    if campaigns:
        approved &= Q(assignment__hit__campaign__in=campaigns)
    else:  # and the captions of an imported Flickr8k release, under their released #n
        approved |= Q(source=RELEASE_SOURCE, external_id__isnull=False)
    by_image: dict[int, list[tuple[int, str]]] = defaultdict(list)
    released: dict[int, int] = {}  # description pk -> its released #n
    made_by: dict[int, int] = {}  # description pk -> campaign
    for pk, image_id, text, tokens, source, external_id, campaign in Description.objects.filter(approved).order_by(
            "image_id", "pk").values_list("pk", "image_id", "text", "tokens", "source", "external_id",
                                          "assignment__hit__campaign_id"):
        by_image[image_id].append((pk, caption_text(text, tokens)))
        if campaign is not None:
            made_by[pk] = campaign
        if source == RELEASE_SOURCE and external_id is not None:
            released[pk] = external_id % 10
    for captions in by_image.values():  # released captions first, by their #n; then the others as they came
        captions.sort(key=lambda caption: (released.get(caption[0], 10), caption[0]))
    images = [
        CaptionedImage(pk, key, f"{key}{PurePosixPath(name or imported_as).suffix.lower()}", name,
                       by_image[pk][:CAPTIONS_PER_IMAGE])
        for pk, key, name, imported_as in Image.objects.filter(pk__in=list(by_image)).order_by("key").values_list(
            "pk", "key", "original", "original_name")  # an image known by reference: the name it came under
    ]
    problems = [problem for image in images if (problem := file_key_problem(image.key))]
    if problems:
        raise ExportError("images that cannot be exported: " + "; ".join(problems))
    data = Flickr8kData(images, sum(max(0, len(c) - CAPTIONS_PER_IMAGE) for c in by_image.values()),
                        campaigns=made_by)
    for image in images:
        taken = {released[pk] for pk, _ in image.captions if pk in released}
        free = (n for n in range(10) if n not in taken)
        for pk, _ in image.captions:
            data.caption_ids[pk] = f"{image.file_name}#{released[pk] if pk in released else next(free)}"
    return data


def released_splits(image_ids: list[int]) -> dict[str, str]:
    """Image key -> the split of the imported Flickr8k release ("" when in none), for images imported from it."""
    out: dict[str, str] = {}
    for start in range(0, len(image_ids), 5000):
        out.update(ImageOrigin.objects.filter(dataset=RELEASE_SOURCE, image_id__in=image_ids[start:start + 5000])
                   .values_list("image__key", "subset"))
    return out


def split_order(keys: list[str], seed: str) -> list[str]:
    """The keys in the seed's order: by SHA-256 of seed and key (the same seed, the same order)."""
    return sorted(keys, key=lambda key: (hashlib.sha256(f"{seed}\x00{key}".encode()).digest(), key))


def split_images(keys: list[str], seed: str, test_keys: set[str] | None = None) -> dict[str, list[str]]:
    """train/dev/test keys (each sorted): the seeded order cut in the original's proportions (counts rounded, the
    test split taking the rest); with `test_keys`, those are the test split and the rest is cut into train and
    dev alone."""
    train_share, dev_share, test_share = PROPORTIONS
    if test_keys is None:
        order = split_order(keys, seed)
        total = train_share + dev_share + test_share
        n_train = round(len(order) * train_share / total)
        n_dev = round(len(order) * dev_share / total)
        test = order[n_train + n_dev:]
    else:
        order = split_order([key for key in keys if key not in test_keys], seed)
        n_train = round(len(order) * train_share / (train_share + dev_share))
        n_dev = len(order) - n_train
        test = [key for key in keys if key in test_keys]
    return {"train": sorted(order[:n_train]), "dev": sorted(order[n_train:n_train + n_dev]), "test": sorted(test)}


def pool_image_keys(name: str) -> set[str]:
    pool = TestPool.objects.filter(name=name).first()
    if pool is None:
        raise ExportError(f"no test pool named '{name}'")
    return set(PoolImage.objects.filter(pool=pool).values_list("image__key", flat=True))


def check_flickr8k_options(options: dict[str, Any]) -> None:
    """ExportError for a bad option value: `images` a flag, `split_seed` and `test_pool` text, the pool existing."""
    if "images" in options and not isinstance(options["images"], bool):
        raise ExportError(f"option images must be true or false, not {options['images']!r}")
    for name in ("split_seed", "test_pool"):
        if name in options and options[name] is not None and not isinstance(options[name], str):
            raise ExportError(f"option {name} must be text, not {options[name]!r}")
    if options.get("test_pool"):
        pool_image_keys(options["test_pool"])
    if "aggregation" in options and options["aggregation"] not in (None, "", *AGGREGATIONS):
        raise ExportError(f"option aggregation must be {' or '.join(AGGREGATIONS)}, not {options['aggregation']!r}")


@dataclass
class PairJudgements:
    yes: int = 0
    no: int = 0
    scores: list[int] = field(default_factory=list)  # the original's scale: 4 describes the image, 1 unrelated
    votes: list[tuple[Hashable, bool]] = field(default_factory=list)  # (who, yes/no) of each binary judgement
    campaigns: set[int] = field(default_factory=set)  # the campaigns whose answers judged the pair


def judge_of(pk: int, worker: int | None, judge: str) -> Hashable:
    """Who gave a judgement, for Dawid-Skene: the crowd worker, the named judge of an imported one, or else the
    judgement itself (an unknown judge counts as one who judged once)."""
    if worker is not None:
        return ("worker", worker)
    return ("judge", judge) if judge else ("judgement", pk)


def pair_judgements(data: Flickr8kData, image_files: dict[int, str]) -> tuple[dict[tuple[str, str], PairJudgements],
                                                                               int]:
    """Crowd and imported judgements of exported pairs (image exported, caption among the exported ones), by
    (image file, caption id) in that order; and how many judgements fall outside the export. Gold judgements (the
    known answers that check workers) are not exported."""
    pairs: dict[tuple[str, str], PairJudgements] = defaultdict(PairJudgements)
    outside = 0
    rows = CaptionJudgement.objects.exclude(source=CaptionJudgement.Source.GOLD).order_by(
        "image_id", "description_id", "pk").values_list("image_id", "description_id", "relevant", "grade", "pk",
                                                        "assignment__worker_id", "judge",
                                                        "assignment__hit__campaign_id")
    for image_id, description_id, relevant, grade, pk, worker, judge, campaign in rows.iterator(chunk_size=5000):
        image_file, caption = image_files.get(image_id), data.caption_ids.get(description_id)
        if image_file is None or caption is None:
            outside += 1
            continue
        pair = pairs[(image_file, caption)]
        if campaign is not None:
            pair.campaigns.add(campaign)
        if grade is not None:
            pair.scores.append(grade)  # the released scale, as stored
        elif relevant is not None:
            if relevant:
                pair.yes += 1
            else:
                pair.no += 1
            pair.votes.append((judge_of(pk, worker, judge), relevant))
    return dict(sorted(pairs.items())), outside


def _fraction(yes: int, no: int) -> str:
    return f"{yes / (yes + no):.6g}"


Labels = dict[tuple[str, str], tuple[bool, float]]  # (image file, caption id) -> label, confidence


def majority_labels(pairs: dict[tuple[str, str], PairJudgements]) -> Labels:
    """The majority of the votes and its share; a tie leaves the pair unlabelled (the leaderboard's rule)."""
    return {key: (pair.yes > pair.no, max(pair.yes, pair.no) / (pair.yes + pair.no))
            for key, pair in pairs.items() if pair.yes != pair.no}


def dawid_skene_labels(pairs: dict[tuple[str, str], PairJudgements]) -> Labels:
    """Dawid-Skene (crowd-kit) over every binary judgement of the exported pairs: the label and its posterior."""
    model = dawid_skene([(key, who, vote) for key, pair in pairs.items() for who, vote in pair.votes])
    return {key: (bool(model.labels[key]), model.posterior[key]) for key in pairs if key in model.labels}


AGGREGATION_NOTES = {
    "majority": "the majority of the votes (confidence: its share of the votes); a tie leaves the pair out",
    "dawid_skene": ("Dawid-Skene (crowd-kit), fitted on every exported binary judgement with its worker (an imported "
                    "one: its named judge), so that a reliable worker outweighs unreliable ones (confidence: the "
                    "posterior probability of the label)"),
}


def write_judgements(bundle: ExportBundle, data: Flickr8kData, aggregation: str = "majority") -> dict[str, int]:
    """Write the judgement files; note the campaigns whose answers judged the written pairs."""
    image_files = {image.pk: image.file_name for image in data.images}
    pairs, outside = pair_judgements(data, image_files)
    crowd = expert = 0
    with bundle.open_text(EXPERT_FILE) as handle:
        for (image, caption), pair in pairs.items():
            if pair.scores:
                handle.write("\t".join([image, caption, *map(str, pair.scores)]) + "\n")
                bundle.contributed(pair.campaigns)
                expert += 1
    voted = {key: pair for key, pair in pairs.items() if pair.yes + pair.no}
    with bundle.open_text(CROWD_FILE) as handle:
        for (image, caption), pair in voted.items():
            handle.write(f"{image}\t{caption}\t{_fraction(pair.yes, pair.no)}\t{pair.yes}\t{pair.no}\n")
            bundle.contributed(pair.campaigns)
            crowd += 1
    labels = dawid_skene_labels(voted) if aggregation == "dawid_skene" else majority_labels(voted)
    with bundle.open_text(LABELS_FILE) as handle:
        for (image, caption), (label, confidence) in labels.items():
            handle.write(f"{image}\t{caption}\t{int(label)}\t{confidence:.6g}\n")
    return {"expert judged pairs": expert, "crowd judged pairs": crowd,
            "crowd relevant pairs": sum(label for label, _ in labels.values()),
            "crowd unlabelled pairs (ties)": crowd - len(labels), "judgements outside the export": outside}


def export_flickr8k(bundle: ExportBundle, campaigns: list[Campaign]) -> int:
    """Write the Flickr8k files; returns the number of captions. Steps: one per image, the splits, the judgements."""
    data = flickr8k_data(campaigns)
    seed = str(bundle.options.get("split_seed") or DEFAULT_SEED)
    pool = bundle.options.get("test_pool") or ""
    with_images = bool(bundle.options.get("images"))
    aggregation = str(bundle.options.get("aggregation") or "majority")
    bundle.add_steps(len(data.images) + 2)
    captions = formulas = 0
    with bundle.open_text(TOKEN_FILE) as handle:
        for image in data.images:
            for pk, text in image.captions:
                handle.write(f"{data.caption_ids[pk]}\t{text}\n")
                bundle.contributed([data.campaigns.get(pk)])
                captions += 1
                formulas += formula_like(text)
    without_file = 0
    for image in data.images:  # an archive member is written at a time: the files once the token file is closed
        if with_images and image.original:
            bundle.copy_stored_file(f"{IMAGES_FOLDER}/{image.file_name}", image.original)
        elif with_images:  # known only by reference: no file to copy
            without_file += 1
        bundle.advance()
    if without_file:
        bundle.counts["images without file (by reference)"] = without_file
        bundle.notes.append(by_reference_note(without_file))
    files = {image.key: image.file_name for image in data.images}
    released = {} if pool else released_splits([image.pk for image in data.images])
    splits = split_images([key for key in files if key not in released], seed,
                          pool_image_keys(pool) if pool else None)
    for key, subset in released.items():  # an imported release's images keep its split (or stay in none)
        if subset in splits:
            splits[subset] = sorted([*splits[subset], key])
    for split, name in SPLIT_FILES.items():
        bundle.write_text(name, "".join(f"{files[key]}\n" for key in splits[split]))
    bundle.advance()
    judged = write_judgements(bundle, data, aggregation)
    bundle.advance()
    bundle.counts.update({
        "images": len(data.images), "captions": captions,
        "images with fewer than five captions": sum(len(i.captions) < CAPTIONS_PER_IMAGE for i in data.images),
        "captions beyond the fifth (not exported)": data.dropped_captions,
        **{f"{split} images": len(keys) for split, keys in splits.items()}, **judged,
    })
    split_rule = (f"the exported images of the test pool '{pool}' are the test split; the others are cut 6:1 into "
                  f"train and dev" if pool else "train, dev and test in the original's 6000:1000:1000 proportions")
    bundle.notes.append(
        "Flickr8k layout (docs/formats/flickr8k.md): `Flickr8k.token.txt` (`<image file>#<n>` TAB caption, n = 0-4 "
        "in creation order; captions are approved describe_image descriptions, at most five per image), "
        f"`Flickr_8k.{{train,dev,test}}Images.txt` (split by image, seed `{seed}`: {split_rule}), "
        "`ExpertAnnotations.txt` (graded judgements, one score per judge, 4 = describes the image without errors, "
        "1 = unrelated), `CrowdFlowerAnnotations.txt` (binary judgements: fraction of yes, yes, no) and "
        f"`{LABELS_FILE}` (each crowd-judged pair's aggregated label, 1 = describes the image, and its confidence; "
        f"aggregation `{aggregation}`: {AGGREGATION_NOTES[aggregation]}). "
        + (f"Images are in `{IMAGES_FOLDER}/` (sic, the original's folder name)." if with_images else
           "Images are not included (option `images`).")
    )
    note_formulas(bundle, formulas, (f"caption of `{TOKEN_FILE}`", f"captions of `{TOKEN_FILE}`"),
                  "docs/formats/flickr8k.md")
    return captions
