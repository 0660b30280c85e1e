"""The Flickr30k Entities layout (documented in docs/formats/flickr30k.md).

    Sentences/<key>.txt    one line per description; a run of consecutive tokens linked to the same box is
                           the phrase `[/EN#<box number>/<type> token token]`
    Annotations/<key>.xml  PASCAL-VOC-like boxes, 1-based inclusive pixel coordinates, <name> = box number
    images/<key>.<ext>     the original image files

`<type>` is the name of the root ancestor of the box's concept, lower-case, spaces, `/` and brackets replaced by `_`.
Square brackets inside the words are written as the Penn Treebank escapes `-LSB-` and `-RSB-`, so that the official
reader (`flickr30k_entities_utils.get_sentence_data`) reads every sentence whatever workers typed."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from .common import (
    Provenance,
    boxes_of,
    by_reference_note,
    descriptions_of,
    formula_like,
    image_path,
    is_simulated,
    note_formulas,
    root_names,
    sorted_images,
)

if TYPE_CHECKING:
    from mturk.datasets.formats import ExportBundle

    from ..selectors import BoxRow, GroundedDataset, ImageRow


BRACKET_ESCAPES = str.maketrans({"[": "-LSB-", "]": "-RSB-"})  # the Penn Treebank's
_TYPE_BREAKERS = str.maketrans({"/": "_", "[": "_", "]": "_"})


def entity_type(name: str) -> str:
    """The phrase type: one token without `/` (the reader splits types at it) or brackets."""
    return "_".join(name.lower().split()).translate(_TYPE_BREAKERS)


def sentence_word(token: str) -> str:
    """A token as written in a sentence file: `[` and `]` escaped, so that no word opens or closes a phrase."""
    return token.translate(BRACKET_ESCAPES)


def phrase_sentence(tokens: list[str], links: dict[int, int], types: dict[int, str]) -> tuple[str, int]:
    """The sentence with its linked phrases, and the number of phrases."""
    parts: list[str] = []
    phrases = 0
    i = 0
    tokens = [sentence_word(token) for token in tokens]
    while i < len(tokens):
        box = links.get(i)
        if box is None:
            parts.append(tokens[i])
            i += 1
            continue
        end = i + 1
        while end < len(tokens) and links.get(end) == box:
            end += 1
        parts.append(f"[/EN#{box}/{types.get(box, 'other')} {' '.join(tokens[i:end])}]")
        phrases += 1
        i = end
    return " ".join(parts), phrases


def annotation_xml(image: ImageRow, boxes: list[BoxRow]) -> str:
    root = ET.Element("annotation")
    ET.SubElement(root, "filename").text = image.file_name
    size = ET.SubElement(root, "size")
    ET.SubElement(size, "width").text = str(image.width)
    ET.SubElement(size, "height").text = str(image.height)
    ET.SubElement(size, "depth").text = "3"
    for box in boxes:
        item = ET.SubElement(root, "object")
        ET.SubElement(item, "name").text = str(box.number)
        bndbox = ET.SubElement(item, "bndbox")
        for tag, value in (("xmin", box.x + 1), ("ymin", box.y + 1), ("xmax", box.x + box.width),
                           ("ymax", box.y + box.height)):
            ET.SubElement(bndbox, tag).text = str(value)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"


def write_flickr30k(bundle: ExportBundle, dataset: GroundedDataset) -> int:
    """Write Sentences/, Annotations/ and images/; returns the records written (boxes and descriptions)."""
    images = sorted_images(dataset)
    roots = root_names(dataset.concepts)
    provenance = Provenance()
    box_count = description_count = phrase_count = without_file = formulas = 0
    for image in images:
        boxes = boxes_of(dataset, image)
        types = {box.number: entity_type(roots.get(box.concept, box.concept)) for box in boxes}
        with bundle.open_text(f"Sentences/{image.key}.txt") as handle:
            for description in descriptions_of(dataset, image):
                sentence, phrases = phrase_sentence(description.tokens, description.links or {}, types)
                handle.write(sentence + "\n")
                provenance.description(description)
                description_count += 1
                phrase_count += phrases
                formulas += formula_like(sentence)
        bundle.write_text(f"Annotations/{image.key}.xml", annotation_xml(image, boxes))
        for box in boxes:
            provenance.box(box)
        box_count += len(boxes)
        if image.original:
            bundle.copy_stored_file(image_path(image), image.original)
        else:  # known only by reference: no file to copy
            without_file += 1
        bundle.advance()
    bundle.counts.update({
        "images": len(images), "boxes": box_count, "descriptions": description_count, "phrases": phrase_count,
    })
    if without_file:
        bundle.counts["images without file (by reference)"] = without_file
        bundle.notes.append(by_reference_note(without_file))
    bundle.simulated |= is_simulated(dataset)
    bundle.notes.append(
        "Flickr30k Entities layout (docs/formats/flickr30k.md): `Sentences/<key>.txt` (one description per line, "
        "linked phrases written `[/EN#<box id>/<type> words]`, type = the root concept) and "
        "`Annotations/<key>.xml` (PASCAL VOC boxes, 1-based inclusive pixel coordinates, <name> = box id). "
        "Square brackets typed in a description are written `-LSB-` and `-RSB-`. "
        "A description without a correspondence is written without phrases."
    )
    note_formulas(bundle, formulas, ("line of `Sentences/*.txt`", "lines of `Sentences/*.txt`"),
                  "docs/formats/flickr30k.md")
    provenance.record(bundle)
    return box_count + description_count
