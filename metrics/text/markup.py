"""Tokens and the correspondence markup `A [woman]^2 in a white [dress]^0 .`

A description is stored with its tokens (words, and each punctuation mark on its own). In the
markup, tokens are separated by single spaces and a token that refers to box N of the image is
written `[token]^N`. Linking is word level: a bracket holds exactly one token (a bracket token itself,
linked, is `[[]^N` or `[]]^N`)."""
from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*|\S", re.UNICODE)
# A linked bracket token (workers type "[stop]": tokenize splits the brackets off) is `[[]^N` or `[]]^N`.
LINKED = re.compile(r"\[([^\s\[\]]+|\[|\])\]\^(\d+)")


class MarkupError(ValueError):
    """A markup text that cannot be read; the message says which token is wrong."""


@dataclass(frozen=True)
class Marked:
    tokens: list[str]
    links: dict[int, int]  # token index -> box number

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


def tokenize(text: str) -> list[str]:
    return TOKEN.findall(text)


def render(tokens: list[str], links: dict[int, int]) -> str:
    """Tokens joined by spaces, linked ones as `[token]^box`."""
    return " ".join(f"[{token}]^{links[i]}" if i in links else token for i, token in enumerate(tokens))


def parse(markup: str) -> Marked:
    tokens: list[str] = []
    links: dict[int, int] = {}
    for raw in markup.split():
        match = LINKED.fullmatch(raw)
        if match:
            links[len(tokens)] = int(match.group(2))
            tokens.append(match.group(1))
        elif "]^" in raw or (raw.startswith("[") and "]" in raw[1:]):
            raise MarkupError(f"malformed link '{raw}' (expected [word]^<box id>, one word per bracket)")
        else:
            tokens.append(raw)
    if not tokens:
        raise MarkupError("empty description")
    return Marked(tokens, links)
