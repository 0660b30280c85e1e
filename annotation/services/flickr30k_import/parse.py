"""Flickr30k Entities import: one sentence file and one annotation file read, each problem naming file and line.

A sentence line is read as the release's own reader (`get_sentence_data`) reads it, token by token at whitespace,
but strictly: a phrase opens with a token `[/EN#<entity id>/<type>[/<type>...]` and closes with the token ending in
`]`; a phrase that does not close, opens inside another, has no words, or a `]` outside a phrase is a malformed
bracket. The XML is read with expat (no DTD, no entities) so that every problem has its line."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.parsers import expat

from common.text_input import unstorable

OPENER = re.compile(r"\[/EN#(\d{1,9})((?:/[^/\s\[\]]+)+)")
COORDINATES = ("xmin", "ymin", "xmax", "ymax")

BOX_TOLERANCE = 1  # px a box may stick out of its image: clipped (and counted), as the COCO importer does


@dataclass(frozen=True, slots=True)
class Phrase:
    first: int  # index of its first word in the sentence
    length: int  # words
    entity: int
    types: tuple[str, ...]


@dataclass(slots=True)
class Sentence:
    line: int
    words: list[str]
    phrases: list[Phrase]


def parse_sentences(text: str, name: str, problems: list[str]) -> list[Sentence]:
    """The sentences of a `Sentences/<id>.txt` text (empty lines skipped, as the release's reader does)."""
    sentences: list[Sentence] = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        where = f"{name} line {number}"
        if unusable := unstorable(line):
            problems.append(f"{where}: holds {unusable}")
            continue
        sentence = _sentence(line, number, where, problems)
        if sentence is not None:
            sentences.append(sentence)
    return sentences


def _sentence(line: str, number: int, where: str, problems: list[str]) -> Sentence | None:
    words: list[str] = []
    phrases: list[Phrase] = []
    opened: tuple[int, int, tuple[str, ...]] | None = None  # first word, entity, types
    for position, token in enumerate(line.split(), start=1):
        if token.startswith("["):
            if opened is not None:
                problems.append(f"{where}: malformed bracket: token {position} {token[:40]!r} opens a phrase "
                                "inside another")
                return None
            match = OPENER.fullmatch(token)
            if match is None:
                problems.append(f"{where}: malformed bracket: token {position} {token[:40]!r} is not a phrase "
                                "opener [/EN#<entity id>/<type>")
                return None
            opened = (len(words), int(match.group(1)), tuple(match.group(2)[1:].split("/")))
            continue
        if token.endswith("]"):
            if opened is None:
                problems.append(f"{where}: malformed bracket: token {position} {token[:40]!r} closes no phrase")
                return None
            token = token[:-1]
            if not token:
                problems.append(f"{where}: malformed bracket: token {position} is a lone ']' (the phrase's last "
                                "word must carry it)")
                return None
            words.append(token)
            first, entity, types = opened
            phrases.append(Phrase(first, len(words) - first, entity, types))
            opened = None
            continue
        words.append(token)
    if opened is not None:
        problems.append(f"{where}: malformed bracket: the phrase of entity {opened[1]} is not closed")
        return None
    return Sentence(number, words, phrases)


@dataclass(slots=True)
class XmlObject:
    line: int
    names: list[int] = field(default_factory=list)
    box: tuple[int, int, int, int] | None = None  # xmin, ymin, xmax, ymax as written (1-based, inclusive)
    nobox: bool = False
    scene: bool = False
    has_bndbox: bool = False  # a <bndbox> element, right or wrong


@dataclass(slots=True)
class Annotation:
    file_name: str = ""
    width: int = 0
    height: int = 0
    objects: list[XmlObject] = field(default_factory=list)


class _Reader:
    """expat handlers building an Annotation; every problem with its line."""

    def __init__(self, name: str, problems: list[str]) -> None:
        self.name, self.problems = name, problems
        self.annotation = Annotation()
        self.path: list[str] = []
        self.text: list[str] = []
        self.parser = expat.ParserCreate()
        self.parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.text.append
        self.parser.EntityDeclHandler = self.entity
        self.coordinates: dict[str, int] = {}

    def where(self) -> str:
        return f"{self.name} line {self.parser.CurrentLineNumber}"

    def entity(self, *args: object) -> None:
        raise ValueError("entity declarations are not accepted")

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        self.path.append(tag)
        self.text.clear()
        if self.path == ["annotation", "object"]:
            self.annotation.objects.append(XmlObject(self.parser.CurrentLineNumber))
        elif self.path == ["annotation", "object", "bndbox"] and self.annotation.objects:
            self.coordinates = {}
            self.annotation.objects[-1].has_bndbox = True

    def end(self, tag: str) -> None:
        text = "".join(self.text).strip()
        self.text.clear()
        path, self.path = tuple(self.path), self.path[:-1]
        current = self.annotation.objects[-1] if self.annotation.objects else None
        if path == ("annotation", "filename"):
            self.annotation.file_name = text
        elif path in (("annotation", "size", "width"), ("annotation", "size", "height")):
            value = self.whole(tag, text)
            setattr(self.annotation, tag, value if value and value > 0 else 0)
            if value is not None and value < 1:
                self.problems.append(f"{self.where()}: <{tag}> must be at least 1, got {value}")
        elif current is not None and path == ("annotation", "object", "name"):
            value = self.whole("name", text)
            if value is not None:
                current.names.append(value)
        elif current is not None and path == ("annotation", "object", "nobndbox"):
            current.nobox = bool(self.whole(tag, text))
        elif current is not None and path == ("annotation", "object", "scene"):
            current.scene = bool(self.whole(tag, text))
        elif current is not None and len(path) == 4 and path[:3] == ("annotation", "object", "bndbox") \
                and tag in COORDINATES:
            value = self.whole(tag, text)
            if value is not None:
                self.coordinates[tag] = value
        elif current is not None and path == ("annotation", "object", "bndbox"):
            missing = [tag for tag in COORDINATES if tag not in self.coordinates]
            if missing:
                self.problems.append(f"{self.where()}: <bndbox> lacks {', '.join(missing)}")
            else:
                xmin, ymin, xmax, ymax = (self.coordinates[tag] for tag in COORDINATES)
                current.box = (xmin, ymin, xmax, ymax)

    def whole(self, tag: str, text: str) -> int | None:
        if re.fullmatch(r"-?\d{1,9}", text):
            return int(text)
        self.problems.append(f"{self.where()}: <{tag}> must be a whole number, got {text[:40]!r}")
        return None


def parse_annotation(data: bytes, name: str, problems: list[str]) -> Annotation | None:
    """The `Annotations/<id>.xml` file read (None when it is not well-formed XML: reported)."""
    reader = _Reader(name, problems)
    try:
        reader.parser.Parse(data, True)
    except expat.ExpatError as exc:
        problems.append(f"{name} line {exc.lineno}: bad XML ({expat.errors.messages[exc.code]})")
        return None
    except ValueError as exc:
        problems.append(f"{reader.where()}: bad XML ({exc})")
        return None
    annotation = reader.annotation
    if not annotation.width or not annotation.height:
        problems.append(f"{name}: no <size> with <width> and <height> (the image's size in pixels)")
    for item in annotation.objects:
        where = f"{name} line {item.line}"
        if not item.names:
            problems.append(f"{where}: an <object> without a <name> (its entity id)")
        if not item.has_bndbox and not item.nobox and not item.scene:
            problems.append(f"{where}: an <object> with neither <bndbox> nor <nobndbox>1 / <scene>1")
        if item.box is not None and annotation.width and annotation.height:
            xmin, ymin, xmax, ymax = item.box
            if xmax < xmin or ymax < ymin:
                problems.append(f"{where}: box ({xmin}, {ymin}, {xmax}, {ymax}) has xmax < xmin or ymax < ymin")
            elif (xmin < 1 - BOX_TOLERANCE or ymin < 1 - BOX_TOLERANCE or xmax > annotation.width + BOX_TOLERANCE
                  or ymax > annotation.height + BOX_TOLERANCE or xmin > annotation.width
                  or ymin > annotation.height or xmax < 1 or ymax < 1):
                problems.append(f"{where}: box ({xmin}, {ymin}, {xmax}, {ymax}) lies outside the image "
                                f"({annotation.width}x{annotation.height} px; coordinates are 1-based, inclusive)")
    return annotation
