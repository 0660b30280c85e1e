"""First pass over a Flickr8k release: every line of every file checked, nothing written. What the release holds
comes back as a Plan; every problem names its file and line.

The Plan holds each image once (its name, Flickr id, split, and which caption numbers it has, as bits), not the
captions: their text is read again from the token file when written (writes.py), so that the memory the import
takes stays below the token file's size."""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from mturk.importers import ProblemList

from .release import CROWD_FILE, EXPERT_FILE, SPLIT_FILES, TOKEN_FILE, Flickr8kImportError, Release

# `<digits>_<anything without spaces>`: the Flickr photo id, then the rest of the released file name (the real
# file also has one `<id>_<secret>.jpg.1`, kept as it is written)
IMAGE_NAME = re.compile(r"(\d{1,18})_[^\s#/\\]+")
MAX_ERRORS = 50
# The most images a token file may name: 25 times the release's 8,092 (Flickr30k's 31,783 fit). What the check
# keeps is about 340 bytes an image whatever its captions, so this bounds the import's memory (about 70 MiB) for
# any shape of file: a file of one short caption an image would otherwise take 20 times its size.
MAX_IMAGES = 200_000
GRADES = ("1", "2", "3", "4")
FRACTION_TOLERANCE = 0.001


@dataclass(slots=True)
class ReleasedImage:
    name: str  # the released file name, e.g. 1000268201_693b08cb0e.jpg
    flickr_id: int
    line: int  # of its first caption in the token file
    split: str = ""  # train, dev, test, or "" when in no split file (92 images of the real release)
    numbers: int = 0  # bit n set: the token file has its caption #n (0-9)

    def has(self, n: int) -> bool:
        return bool(self.numbers >> n & 1)

    def caption_ids(self) -> list[str]:
        """`<name>#<n>` of its captions, by n."""
        return [f"{self.name}#{n}" for n in range(10) if self.has(n)]

    @property
    def key(self) -> str:
        """The platform key: the name without its last extension, so that an export writes the same name."""
        return PurePosixPath(self.name).stem


@dataclass
class Plan:
    images: dict[str, ReleasedImage] = field(default_factory=dict)  # by released name, in the token file's order
    captions: int = 0  # in the token file
    expert: list[tuple[str, str, list[int]]] = field(default_factory=list)  # image, caption id, grades
    crowd: list[tuple[str, str, int, int]] = field(default_factory=list)  # image, caption id, yes, no
    files: list[str] = field(default_factory=list)  # the released files read
    normalized_captions: int = 0  # captions whose spacing was tidied (extra tabs, doubled or trailing spaces)


class Problems(ProblemList):
    def __init__(self) -> None:
        super().__init__(Flickr8kImportError, MAX_ERRORS)

    def at(self, file: str, line: int, message: str) -> None:
        self.add(f"{file}: line {line}: {message}")


def _caption_id(value: str) -> tuple[str, int] | None:
    name, sep, number = value.rpartition("#")
    if not sep or not number.isdigit() or len(number) != 1 or not IMAGE_NAME.fullmatch(name):
        return None
    return name, int(number)


def token_line(line: str) -> tuple[str, str, str | None] | None:
    """A token file line as (caption id, caption single-spaced, the caption as written: None without a tab); None
    when blank. The caption id is checked by check_tokens."""
    if not line.strip():
        return None
    head, sep, caption = line.partition("\t")
    return (head.strip(), " ".join(caption.split()), caption) if sep else (head.strip(), "", None)


def captions(release: Release) -> Iterator[tuple[str, int, str]]:
    """(image name, n, caption) of every line of a checked token file, read again in the file's order."""
    for _, line in release.lines(TOKEN_FILE):
        parsed = token_line(line)
        if parsed is not None:
            name, n = _caption_id(parsed[0]) or ("", 0)
            yield name, n, parsed[1]


def check_tokens(release: Release, plan: Plan, problems: Problems) -> None:
    """`<image file>#<n>` TAB caption. A caption with further tabs or extra spaces keeps its words, single-spaced."""
    for number, line in release.lines(TOKEN_FILE):
        parsed_line = token_line(line)
        if parsed_line is None:
            continue
        head, text, caption = parsed_line
        parsed = _caption_id(head)
        if caption is None:
            problems.at(TOKEN_FILE, number, "expected `<image file>#<n>` TAB caption, found no tab")
            continue
        if parsed is None:
            problems.at(TOKEN_FILE, number, f"the caption id {head[:80]!r} is not `<flickr id>_<...>#<0-9>`")
            continue
        if not text:
            problems.at(TOKEN_FILE, number, f"the caption of {head} is empty")
            continue
        if text != caption:
            plan.normalized_captions += 1
        name, n = parsed
        image = plan.images.get(name)
        if image is not None and image.has(n):
            problems.at(TOKEN_FILE, number, f"the caption id {head} appears twice")
            continue
        if image is None:  # a Flickr id used twice is found after the file (below)
            if len(plan.images) == MAX_IMAGES:
                raise Flickr8kImportError([f"{TOKEN_FILE}: line {number}: more than {MAX_IMAGES:,} images (the "
                                           "release has 8,092): refused, so that the import stays within memory"])
            match = IMAGE_NAME.fullmatch(name)
            assert match is not None
            image = plan.images[name] = ReleasedImage(name, int(match.group(1)), number)
        image.numbers |= 1 << n
        plan.captions += 1
    seen: dict[int, str] = {}
    for image in plan.images.values():
        if image.flickr_id in seen:
            problems.at(TOKEN_FILE, image.line, f"the images {seen[image.flickr_id]} and {image.name} have the "
                                                 f"same Flickr id {image.flickr_id}")
        seen[image.flickr_id] = image.name
    plan.files.append(TOKEN_FILE)


def check_splits(release: Release, plan: Plan, problems: Problems) -> None:
    for split, file in SPLIT_FILES.items():
        if not release.has(file):
            continue
        plan.files.append(file)
        for number, line in release.lines(file):
            name = line.strip()
            if not name:
                continue
            image = plan.images.get(name)
            if image is None:
                problems.at(file, number, f"the image {name[:80]!r} has no caption in {TOKEN_FILE}")
            elif image.split and image.split != split:
                problems.at(file, number, f"the image {name} is already in the {image.split} split")
            else:
                image.split = split


def _known_caption(plan: Plan, caption_id: str) -> bool:
    parsed = _caption_id(caption_id)
    image = plan.images.get(parsed[0]) if parsed is not None else None
    return image is not None and parsed is not None and image.has(parsed[1])


def _pair(file: str, number: int, cells: list[str], plan: Plan, problems: Problems,
          seen: set[tuple[str, str]]) -> tuple[str, str] | None:
    image, caption = cells[0], cells[1]
    if image not in plan.images:
        problems.at(file, number, f"the image {image[:80]!r} has no caption in {TOKEN_FILE}")
    elif not _known_caption(plan, caption):
        problems.at(file, number, f"the caption id {caption[:80]!r} is not in {TOKEN_FILE}")
    elif (image, caption) in seen:
        problems.at(file, number, f"the pair {image} / {caption} appears twice")
    else:
        seen.add((image, caption))
        return image, caption
    return None


def check_expert(release: Release, plan: Plan, problems: Problems) -> None:
    """image TAB caption id TAB one grade per expert (three in the release), 1 unrelated ... 4 describes it. The
    number of grades is the file's own, set by its first line: a line with fewer or more is refused (a file cut
    inside its last line would otherwise lose a grade, and shift the pair's median without a word)."""
    if not release.has(EXPERT_FILE):
        return
    plan.files.append(EXPERT_FILE)
    seen: set[tuple[str, str]] = set()
    layout: tuple[int, int] | None = None  # (grades a line, the line that set it): the file's first record
    for number, line in release.lines(EXPERT_FILE):
        cells = line.split()
        if not cells:
            continue
        if len(cells) < 3:
            problems.at(EXPERT_FILE, number, f"{len(cells)} fields, expected image, caption id and grades")
            continue
        if layout is None:
            layout = (len(cells) - 2, number)
        elif len(cells) - 2 != layout[0]:  # a line cut short (a file cut inside its last line), or run together
            problems.at(EXPERT_FILE, number, f"{len(cells) - 2} grade(s), but the file has {layout[0]} a line (one "
                                              f"per expert, as on line {layout[1]}): the line is cut short or damaged")
            continue
        bad = [g for g in cells[2:] if g not in GRADES]
        if bad:
            problems.at(EXPERT_FILE, number, f"a grade must be 1, 2, 3 or 4 (4 = describes the image), got "
                                              f"{bad[0][:20]!r}")
            continue
        pair = _pair(EXPERT_FILE, number, cells, plan, problems, seen)
        if pair is not None:
            plan.expert.append((*pair, [int(g) for g in cells[2:]]))


def check_crowd(release: Release, plan: Plan, problems: Problems) -> None:
    """image TAB caption id TAB fraction of yes TAB yes count TAB no count."""
    if not release.has(CROWD_FILE):
        return
    plan.files.append(CROWD_FILE)
    seen: set[tuple[str, str]] = set()
    for number, line in release.lines(CROWD_FILE):
        cells = line.split()
        if not cells:
            continue
        if len(cells) != 5:
            problems.at(CROWD_FILE, number, f"{len(cells)} fields, expected image, caption id, fraction of yes, "
                                             "yes count, no count")
            continue
        if not cells[3].isdigit() or not cells[4].isdigit():
            problems.at(CROWD_FILE, number, f"the yes and no counts must be whole numbers, got {cells[3][:20]!r}, "
                                             f"{cells[4][:20]!r}")
            continue
        yes, no = int(cells[3]), int(cells[4])
        try:
            fraction = float(cells[2])
        except ValueError:
            fraction = -1.0
        if yes + no == 0:
            problems.at(CROWD_FILE, number, "no vote (yes and no are both 0)")
            continue
        if abs(fraction - yes / (yes + no)) > FRACTION_TOLERANCE:
            problems.at(CROWD_FILE, number, f"the fraction of yes {cells[2][:20]!r} is not {yes}/{yes + no}")
            continue
        pair = _pair(CROWD_FILE, number, cells, plan, problems, seen)
        if pair is not None:
            plan.crowd.append((*pair, yes, no))


def check_release(release: Release) -> Plan:
    """Every file checked (Flickr8kImportError with every problem, up to 50 named); the Plan of what it holds."""
    plan, problems = Plan(), Problems()
    check_tokens(release, plan, problems)
    problems.raise_any()  # the other files refer to the captions: no point checking them against a broken one
    check_splits(release, plan, problems)
    check_expert(release, plan, problems)
    check_crowd(release, plan, problems)
    problems.raise_any()
    return plan
