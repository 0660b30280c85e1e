"""The system-run format for challenge participants, and its parser.

A run is UTF-8 text, one line per image:

    <image key><TAB><generated sentence in markup>

The markup is the one of `metrics.text.markup`: tokens separated by spaces, a token that refers to box N of the image
written `[token]^N`, e.g. `A [woman]^2 leans on a [car]^3 .` Blank lines and lines starting with `#` (after optional
spaces) are ignored, as is a leading byte-order mark; lines may end in CRLF; the key is stripped of surrounding
spaces. The sentence may be empty (nothing after the tab): the system selected no box for that image (S = ∅).

Parsing collects every problem before failing, and `RunFormatError.errors` names the line of each: a line without a
tab, malformed markup, an unknown image key, a box number the image does not have, an image given twice.

Images of the data set the run does not mention are scored with S = ∅ (P = R = F = 0), as if the line were empty;
`missing_images` lists them and `evaluate_run` reports them under `missing`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from metrics.content_selection import evaluate_selections
from metrics.grounded import ImageRecord
from metrics.text.markup import MarkupError, parse


class RunFormatError(ValueError):
    """A run that cannot be read; `errors` lists every problem found, each naming its line."""

    def __init__(self, errors: list[str]):
        super().__init__("\n".join(errors))
        self.errors = errors


def _decode(text: str | bytes) -> str:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise RunFormatError([f"the run is not UTF-8 text ({error})"]) from None
    return text.removeprefix("\ufeff")


def _selection(sentence: str, line_number: int, image: ImageRecord, errors: list[str]) -> frozenset[int] | None:
    """The boxes a sentence refers to, or None after recording its problems in `errors`."""
    if not sentence.strip():
        return frozenset()
    try:
        marked = parse(sentence)
    except MarkupError as error:
        errors.append(f"line {line_number}: malformed markup: {error}")
        return None
    boxes = frozenset(marked.links.values())
    unknown = sorted(boxes - {box.number for box in image.boxes})
    if unknown:
        listed = ", ".join(str(box) for box in unknown)
        errors.append(f"line {line_number}: image '{image.key}' has no box {listed}")
        return None
    return boxes


def parse_run(text: str | bytes, images: Mapping[str, ImageRecord]) -> dict[str, frozenset[int]]:
    """{image key: set of box numbers the sentence refers to}; raises RunFormatError listing every problem."""
    selections: dict[str, frozenset[int]] = {}
    first_line: dict[str, int] = {}
    errors: list[str] = []
    for line_number, line in enumerate(_decode(text).split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "\t" not in line:
            errors.append(f"line {line_number}: no tab between the image key and the sentence")
            continue
        key, sentence = line.split("\t", 1)
        key = key.strip()
        if key not in images:
            errors.append(f"line {line_number}: unknown image key '{key}'")
            continue
        if key in first_line:
            errors.append(f"line {line_number}: image '{key}' given twice (first on line {first_line[key]})")
            continue
        first_line[key] = line_number
        boxes = _selection(sentence, line_number, images[key], errors)
        if boxes is not None:
            selections[key] = boxes
    if errors:
        raise RunFormatError(errors)
    return selections


def missing_images(selections: Mapping[str, frozenset[int]], images: Mapping[str, ImageRecord]) -> list[str]:
    """Keys of the data set's images the run does not mention (scored with S = ∅), in data-set order."""
    return [key for key in images if key not in selections]


def evaluate_run(text: str | bytes, images: Mapping[str, ImageRecord] | Sequence[ImageRecord]) -> dict:
    """Parse and score a run (JSON-serialisable): summary, per-image scores, skipped and missing images."""
    by_key = images if isinstance(images, Mapping) else {image.key: image for image in images}
    selections = parse_run(text, by_key)
    per_image, summary, skipped = evaluate_selections(list(by_key.values()), selections)
    return {
        "summary": summary.as_dict(),
        "per_image": [{"key": s.key, "p": s.p, "r": s.r, "f": s.f} for s in per_image],
        "skipped": [{"key": s.key, "reason": s.reason} for s in skipped],
        "missing": missing_images(selections, by_key),
    }
