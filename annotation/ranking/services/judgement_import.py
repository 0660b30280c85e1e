"""Import relevance judgements of image-caption pairs (e.g. experts' graded scores, or judgements collected
elsewhere) from CSV or TSV with a header line: `image,caption,relevant,judge` (relevant: 1/0, yes/no,
true/false) or `image,caption,grade,judge` (grade 1-4 on the Flickr8k release's scale: 4 describes the image
without errors, 3 minor errors, 2 somewhat related, 1 unrelated); `judge` is optional. All or nothing: every bad
line is named. A file of the release itself is pointed to import_flickr8k."""
from __future__ import annotations

import csv
import io
import re

from django.db import transaction

from ...models import Description, Image
from ..models import CaptionJudgement
from .board_queue import judgements_changed

# A line of ExpertAnnotations.txt or CrowdFlowerAnnotations.txt: image file, TAB, `<image file>#<n>`, ...
RELEASED_LINE = re.compile(r"\S+\.jpg\S*\t\S+#\d\t")
YES = {"1", "yes", "y", "true", "relevant"}
NO = {"0", "no", "n", "false", "unrelated"}


class JudgementImportError(ValueError):
    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors[:5]))
        self.errors = errors


def parse_judgements(text: str) -> list[CaptionJudgement]:
    """Unsaved imported judgements; raises JudgementImportError naming each bad line (1-based, header = 1)."""
    first = text.split("\n", 1)[0]
    dialect = "excel-tab" if "\t" in first else "excel"
    reader = csv.reader(io.StringIO(text), dialect=dialect)
    header = [h.strip().lower() for h in next(reader, [])]
    errors: list[str] = []
    if RELEASED_LINE.match(first):
        raise JudgementImportError([
            "line 1: this is a file of the Flickr8k release (ExpertAnnotations.txt or CrowdFlowerAnnotations.txt): "
            "import the release with `python manage.py import_flickr8k <folder or zip>` (or the Flickr8k importer "
            "of the Imports page and POST /api/imports/), which reads its file names, caption ids, vote counts and "
            "1-4 scale as released"])
    if header[:2] != ["image", "caption"] or len(header) < 3 or header[2] not in ("relevant", "grade") \
            or header[3:] not in ([], ["judge"]):
        raise JudgementImportError([
            "line 1: the header must be image,caption,relevant[,judge] or image,caption,grade[,judge]"])
    graded = header[2] == "grade"
    rows: list[tuple[int, int, int, str, str]] = []
    for line_no, cells in enumerate(reader, start=2):
        if not cells or all(not c.strip() for c in cells):
            continue
        if len(cells) not in (3, 4):
            errors.append(f"line {line_no}: {len(cells)} fields, expected 3 or 4")
            continue
        image, caption, value = (c.strip() for c in cells[:3])
        judge = cells[3].strip() if len(cells) == 4 else ""
        if not image.isdigit() or not caption.isdigit():
            errors.append(f"line {line_no}: image and caption must be ids (numbers), got {image!r}, {caption!r}")
            continue
        rows.append((line_no, int(image), int(caption), value, judge[:200]))
    captions = dict(Description.objects.filter(id__in={c for _, _, c, _, _ in rows})
                    .values_list("id", "image_id"))
    images = set(Image.objects.filter(id__in={i for _, i, _, _, _ in rows}).values_list("id", flat=True))
    out: list[CaptionJudgement] = []
    for line_no, image_id, caption_id, value, judge in rows:
        if image_id not in images:
            errors.append(f"line {line_no}: unknown image id {image_id}")
        if caption_id not in captions:
            errors.append(f"line {line_no}: unknown caption id {caption_id}")
        judgement = CaptionJudgement(image_id=image_id, description_id=caption_id,
                                     source=CaptionJudgement.Source.IMPORTED, judge=judge)
        if graded:
            if value not in ("1", "2", "3", "4"):
                errors.append(f"line {line_no}: grade must be 1, 2, 3 or 4, got {value!r}")
            else:
                judgement.grade = int(value)
        elif value.lower() in YES:
            judgement.relevant = True
        elif value.lower() in NO:
            judgement.relevant = False
        else:
            errors.append(f"line {line_no}: relevant must be 1/0, yes/no or true/false, got {value!r}")
        out.append(judgement)
    if errors:
        raise JudgementImportError(errors)
    if not out:
        raise JudgementImportError(["no judgements after the header"])
    return out


def import_judgements(content: bytes) -> int:
    """Store the file's judgements (all or none); returns how many."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise JudgementImportError(["the file is not UTF-8 text"]) from None
    judgements = parse_judgements(text)
    with transaction.atomic():
        CaptionJudgement.objects.bulk_create(judgements)
        judgements_changed(j.image_id for j in judgements)
    return len(judgements)
