"""Whether a caption contains a concept pair, with the modifier attached to the noun in the dependency parse
(Nikolaus et al.): which dependency relations count is documented in docs/compositional.md.

In short (spaCy's English labels; the Universal Dependencies spellings a swapped-in UD parser gives are read too):

- a token expresses a concept when its lowercased word or its lowercased lemma is one of the concept's synonyms; a
  synonym of several words ("air plane") is expressed by its last word when the words before it come right before;
- adjective-noun: the adjective (POS ADJ) is an `amod` of the noun; or predicative, `acomp`/`attr` of a verb (the
  copula) whose subject is the noun ("the cat is black", "a cat that is black"); or, with a UD parser, the head of
  the noun's `nsubj`. An adjective `conj`-oined to, or `amod` of, a counted adjective counts too ("a white and brown
  dog" -> brown dog);
- noun-verb: the verb (POS VERB) has the noun as `nsubj` ("a man eats"), or as relative pronoun subject of a `relcl`
  ("a man who eats"), or modifies it as an active participle (`acl`: "a man eating"; `amod`: "a flying bird"; not a
  passive one: "a pizza eaten by a man" counts for neither eat-pizza nor eat-man). A verb `conj`-oined to a counted
  verb and without a subject of its own shares its subjects ("a man standing and eating"); a noun `conj`-oined to a
  counted subject is a subject too ("a man and a woman eating"), and so are the members of a collective subject ("a
  flock of birds flying": flock, birds).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .types import ADJECTIVE_NOUN, NOUN_VERB, ConceptPair, LexicalConcept, Parse

# Universal Dependencies spellings of the labels used here, read as spaCy's (ClearNLP) labels.
UD_LABELS = {"acl:relcl": "relcl", "nsubj:pass": "nsubjpass", "aux:pass": "auxpass", "obl:agent": "agent",
             "csubj:pass": "csubjpass"}
ADJECTIVE_PREDICATE = frozenset({"acomp", "attr"})
SUBJECT = "nsubj"
NOUN_MODIFIER_CLAUSE = frozenset({"acl", "relcl", "amod"})
PASSIVE_MARKERS = frozenset({"auxpass", "nsubjpass", "csubjpass", "agent"})
RELATIVE_PRONOUN_TAGS = frozenset({"WDT", "WP"})
RELATIVE_PRONOUNS = frozenset({"that", "who", "which", "whom"})
# "a flock of birds flying": the verb's subject is the flock, the birds fly. A subject (or a noun modified by a verb)
# that is one of these nouns stands for the object of its "of" as well.
COLLECTIVE_NOUNS = frozenset({"group", "couple", "pair", "flock", "herd", "bunch", "team", "crowd", "family", "lot",
                              "number", "few", "line", "row", "pack", "litter", "gaggle", "swarm", "troop", "fleet"})
MAX_CHAIN = 16  # conj/amod chains followed at most this far (a guard against malformed parses)

_WORD_PARTS = re.compile(r"[^\s-]+|-")


@dataclass(frozen=True)
class CaptionAnalysis:
    """For one caption, the names of the pairs it contains (attached), and of the pairs whose noun, and whose
    modifier (adjective or verb), it mentions at all."""

    pairs: frozenset[str]
    nouns: frozenset[str]
    modifiers: frozenset[str]


EMPTY = frozenset[str]()


class _Lexicon:
    """Word form -> concept ids, for single-word synonyms, and last word -> (preceding words, concept id) for
    synonyms of several words ("air plane"; "light-blue" read as light - blue, as tokenizers split it)."""

    def __init__(self, concepts: Sequence[LexicalConcept]) -> None:
        self.single: dict[str, set[int]] = {}
        self.multi: dict[str, list[tuple[tuple[str, ...], int]]] = {}
        for cid, concept in enumerate(concepts):
            for synonym in concept.synonyms:
                form = synonym.strip().lower()
                if not form:
                    continue
                self.single.setdefault(form, set()).add(cid)
                parts = tuple(_WORD_PARTS.findall(form))
                if len(parts) > 1:
                    self.multi.setdefault(parts[-1], []).append((parts[:-1], cid))

    def lookup(self, words: Sequence[str], lemmas: Sequence[str]) -> list[frozenset[int]] | None:
        """The concept ids each token expresses (None when no token expresses any)."""
        found: list[frozenset[int]] | None = None
        single, multi = self.single, self.multi
        for i, word in enumerate(words):
            lemma = lemmas[i]
            ids: set[int] | None = None
            for form in (word, lemma) if lemma != word else (word,):
                hit = single.get(form)
                if hit:
                    ids = set(hit) if ids is None else ids | hit
                for before, cid in multi.get(form, ()):
                    start = i - len(before)
                    if start >= 0 and tuple(words[start:i]) == before:
                        ids = {cid} if ids is None else ids | {cid}
            if ids:
                if found is None:
                    found = [EMPTY_IDS] * len(words)
                found[i] = frozenset(ids)
        return found


EMPTY_IDS = frozenset[int]()


class PairMatcher:
    """Matches many pairs at once (word forms and lemmas looked up in precomputed tables)."""

    def __init__(self, pairs: Sequence[ConceptPair]) -> None:
        self.pairs = list(pairs)
        nouns: list[LexicalConcept] = []
        adjectives: list[LexicalConcept] = []
        verbs: list[LexicalConcept] = []

        def index(concepts: list[LexicalConcept], concept: LexicalConcept) -> int:
            try:
                return concepts.index(concept)
            except ValueError:
                concepts.append(concept)
                return len(concepts) - 1

        # (modifier id, noun id) -> names, per kind; concept id -> names of the pairs it is the noun/modifier of.
        self._adjective_pairs: dict[tuple[int, int], set[str]] = {}
        self._verb_pairs: dict[tuple[int, int], set[str]] = {}
        noun_names: dict[int, set[str]] = {}
        adjective_names: dict[int, set[str]] = {}
        verb_names: dict[int, set[str]] = {}
        for pair in self.pairs:
            noun = index(nouns, pair.noun)
            noun_names.setdefault(noun, set()).add(pair.name)
            if pair.kind == ADJECTIVE_NOUN:
                modifier = index(adjectives, pair.modifier)
                adjective_names.setdefault(modifier, set()).add(pair.name)
                self._adjective_pairs.setdefault((modifier, noun), set()).add(pair.name)
            elif pair.kind == NOUN_VERB:
                modifier = index(verbs, pair.modifier)
                verb_names.setdefault(modifier, set()).add(pair.name)
                self._verb_pairs.setdefault((modifier, noun), set()).add(pair.name)
            else:
                raise ValueError(f"pair {pair.name!r}: unknown kind {pair.kind!r}")
        self._nouns = _Lexicon(nouns)
        self._adjectives = _Lexicon(adjectives)
        self._verbs = _Lexicon(verbs)
        self._noun_names = {k: frozenset(v) for k, v in noun_names.items()}
        self._adjective_names = {k: frozenset(v) for k, v in adjective_names.items()}
        self._verb_names = {k: frozenset(v) for k, v in verb_names.items()}

    def analyse(self, parse: Parse) -> CaptionAnalysis:
        n = len(parse.words)
        if n == 0:
            return CaptionAnalysis(EMPTY, EMPTY, EMPTY)
        words = [w.lower() for w in parse.words]
        lemmas = [lemma.lower() for lemma in parse.lemmas]
        noun_ids = self._nouns.lookup(words, lemmas)
        adjective_ids = self._adjectives.lookup(words, lemmas) if self._adjective_names else None
        verb_ids = self._verbs.lookup(words, lemmas) if self._verb_names else None
        nouns = _names(noun_ids, self._noun_names)
        modifiers = _names(adjective_ids, self._adjective_names) | _names(verb_ids, self._verb_names)
        if noun_ids is None or not modifiers:
            return CaptionAnalysis(EMPTY, nouns, modifiers)

        tree = _Tree(parse)
        found: set[str] = set()
        if adjective_ids is not None:
            for i, ids in enumerate(adjective_ids):
                if ids and tree.pos[i] == "ADJ":
                    for noun in tree.nouns_of_adjective(i):
                        _add(found, self._adjective_pairs, ids, noun_ids[noun])
        if verb_ids is not None:
            for i, ids in enumerate(verb_ids):
                if ids and tree.pos[i] == "VERB":
                    for noun in tree.subjects_of_verb(i):
                        _add(found, self._verb_pairs, ids, noun_ids[noun])
        return CaptionAnalysis(frozenset(found), nouns, modifiers)

    def matches(self, parse: Parse) -> frozenset[str]:
        return self.analyse(parse).pairs


def _names(ids: list[frozenset[int]] | None, names: dict[int, frozenset[str]]) -> frozenset[str]:
    if ids is None:
        return EMPTY
    out: set[str] = set()
    for token_ids in ids:
        for cid in token_ids:
            out |= names.get(cid, EMPTY)
    return frozenset(out)


def _add(found: set[str], table: dict[tuple[int, int], set[str]], modifier_ids: Iterable[int],
         noun_ids: Iterable[int]) -> None:
    for noun in noun_ids:
        for modifier in modifier_ids:
            names = table.get((modifier, noun))
            if names:
                found |= names


class _Tree:
    """A parse as a tree: labels normalised to spaCy's, children per token."""

    def __init__(self, parse: Parse) -> None:
        n = len(parse.words)
        self.words = [w.lower() for w in parse.words]
        self.lemmas = [lemma.lower() for lemma in parse.lemmas]
        self.pos = parse.pos
        self.tags = parse.tags
        self.deps = [UD_LABELS.get(d, d) for d in parse.deps]
        self.heads = [h if 0 <= h < n else i for i, h in enumerate(parse.heads)]
        self.children: list[list[int]] = [[] for _ in range(n)]
        for i, head in enumerate(self.heads):
            if head != i:
                self.children[head].append(i)

    def _is_relative_pronoun(self, i: int) -> bool:
        return self.tags[i] in RELATIVE_PRONOUN_TAGS or self.words[i] in RELATIVE_PRONOUNS

    def _with_conjuncts(self, nouns: Iterable[int]) -> set[int]:
        """The nouns, the nouns conj-oined to them ("a man and a woman"), and the members of a collective noun ("a
        flock of birds": flock, birds)."""
        out: set[int] = set()
        todo = list(nouns)
        while todo and len(out) < 4 * MAX_CHAIN:
            noun = todo.pop()
            if noun in out:
                continue
            out.add(noun)
            for child in self.children[noun]:
                if self.deps[child] == "conj":
                    todo.append(child)
                elif (self.deps[child] == "prep" and self.words[child] == "of"
                      and (self.words[noun] in COLLECTIVE_NOUNS or self.lemmas[noun] in COLLECTIVE_NOUNS)):
                    todo.extend(c for c in self.children[child] if self.deps[c] == "pobj")
        return out

    def subjects(self, predicate: int) -> set[int]:
        """The subjects of a verb or copula: its `nsubj` children, a relative pronoun subject replaced by the noun
        the relative clause modifies, each with its conj-oined nouns."""
        out: set[int] = set()
        for child in self.children[predicate]:
            if self.deps[child] != SUBJECT:
                continue
            if self._is_relative_pronoun(child):
                if self.deps[predicate] == "relcl":
                    out.add(self.heads[predicate])
            else:
                out.add(child)
        return self._with_conjuncts(out)

    def _is_passive(self, verb: int) -> bool:
        return self.tags[verb] == "VBN" or any(self.deps[c] in PASSIVE_MARKERS for c in self.children[verb])

    def subjects_of_verb(self, verb: int) -> set[int]:
        """The nouns a verb token is attached to as their predicate."""
        for _ in range(MAX_CHAIN):
            dep = self.deps[verb]
            out = self.subjects(verb)
            if dep in NOUN_MODIFIER_CLAUSE and not self._is_passive(verb) and not any(
                    self.deps[c] == SUBJECT for c in self.children[verb]):
                # An active participle modifying a noun ("a man eating", "a flying bird"), or a relative clause
                # without a subject of its own.
                out |= self._with_conjuncts([self.heads[verb]])
            if out or any(self.deps[c] in (SUBJECT, "nsubjpass") for c in self.children[verb]):
                return out
            head = self.heads[verb]
            if dep != "conj" or head == verb or self.pos[head] not in ("VERB", "AUX"):
                return out
            verb = head  # "a man standing and eating": eating shares standing's subject
        return set()

    def nouns_of_adjective(self, adjective: int) -> set[int]:
        """The nouns an adjective token describes."""
        base = adjective
        for _ in range(MAX_CHAIN):
            head = self.heads[base]
            dep = self.deps[base]
            if head != base and ((dep in ("conj", "amod") and self.pos[head] == "ADJ")
                                 or (dep == "amod" and self.deps[head] == "amod")):
                # "white and brown": brown counts where white does; "dark brown" likewise; "a big grey seagull"
                # with grey tagged a noun (big amod grey amod seagull): big describes the seagull.
                base = head
            else:
                break
        dep, head = self.deps[base], self.heads[base]
        out: set[int] = set()
        if dep == "amod" and head != base:
            out.add(head)
        elif dep in ADJECTIVE_PREDICATE and head != base:
            out |= self.subjects(head)
        # Universal Dependencies: the predicative adjective heads its subject ("the cat is black").
        out |= self.subjects(base)
        return out


def contains_pair(parse: Parse, pair: ConceptPair) -> bool:
    return pair.name in PairMatcher([pair]).matches(parse)
