"""How the Flickr30k Entities sentence reader reads a `Sentences/<image>.txt` file, restated for the tests.

The data set's own reader (`get_sentence_data` in `flickr30k_entities_utils.py` of the Flickr30k Entities
repository) works token by token on each non-empty line split at whitespace, with these rules, reproduced here
(failures included) so that the tests can tell whether our files read as they should:

- outside a phrase, a token whose first character is `[` opens a phrase: it is not a word; split at `/`, its
  second part without its first three characters (`EN#`) is the phrase id and the parts after it the types (a
  token with no `/` fails with IndexError);
- inside a phrase, every token is a word of the phrase; one whose last character is `]` closes the phrase and loses
  that character;
- every other token is a word. A sentence is its words joined by spaces; a phrase records the index of its first
  word, its words joined by spaces, its id and its types (phrases still open at the end of a line are dropped).
"""
from __future__ import annotations

from typing import Any


def read_sentences(text: str) -> list[dict[str, Any]]:
    sentences = []
    for line in text.split("\n"):
        if not line:
            continue
        words: list[str] = []
        opened: list[tuple[int, str, list[str]]] = []  # first word index, id, types, in opening order
        closed: list[str] = []
        phrase: list[str] | None = None
        for token in line.split():
            if phrase is not None:
                if token[-1] == "]":
                    token = token[:-1]
                    phrase.append(token)
                    closed.append(" ".join(phrase))
                    phrase = None
                else:
                    phrase.append(token)
                words.append(token)
            elif token[0] == "[":
                parts = token.split("/")
                opened.append((len(words), parts[1][3:], parts[2:]))
                phrase = []
            else:
                words.append(token)
        sentences.append({
            "sentence": " ".join(words),
            "phrases": [{"first_word_index": first, "phrase": text_, "phrase_id": phrase_id, "phrase_type": types}
                        for (first, phrase_id, types), text_ in zip(opened, closed, strict=False)],
        })
    return sentences
