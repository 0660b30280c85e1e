"""The correspondence markup `[token]^N`: what render writes, parse reads back, whatever the tokens."""
from __future__ import annotations

import pytest

from metrics.text.markup import MarkupError, parse, render, tokenize


@pytest.mark.parametrize("text", ["A [stop] sign on a pole .", "a [ b ] c", "[[ x ]]", "price: [5]^2 dollars"])
def test_render_then_parse_gives_back_the_tokens_and_links_even_for_bracket_tokens(text):
    tokens = tokenize(text)
    links = {i: i % 3 for i in range(len(tokens))}  # every token linked, brackets included

    marked = parse(render(tokens, links))

    assert (marked.tokens, marked.links) == (tokens, links)


def test_unlinked_bracket_tokens_read_back_as_tokens():
    tokens = tokenize("a [stop] sign")
    assert parse(render(tokens, {})).tokens == ["a", "[", "stop", "]", "sign"]


@pytest.mark.parametrize("markup", ["a [two words]^1", "[dog]^x", "a [dog] ^1 b", "[dog]^1]"])
def test_malformed_links_are_refused(markup):
    with pytest.raises(MarkupError):
        parse(markup)
