"""Whether a caption contains a concept pair, with the modifier attached to the noun in the dependency parse
(Nikolaus et al.): which dependency relations count is documented in docs/compositional.md.

In short (spaCy's English labels; the Universal Dependencies spellings a swapped-in UD parser gives are read too):

- a token expresses a concept when its lowercased word or its lowercased lemma is one of the concept's synonyms (a
  lemma the lemmatiser cut too short, *riding* -> *rid*, read with its e restored: `restored_e`); a synonym of
  several words ("air plane") is expressed by its last word when the words before it come right before;
- adjective-noun: the adjective (POS ADJ) is an `amod` of the noun; or predicative, `acomp`/`attr` of a verb (the
  copula) whose subject is the noun ("the cat is black", "a cat that is black"); or, with a UD parser, the head of
  the noun's `nsubj`. An adjective `conj`-oined to, or `amod` of, a counted adjective (or `amod` of another `amod`
  of the noun) counts too ("a white and brown dog" -> brown dog);
- noun-verb: the verb (POS VERB, or heading an `nsubj` whatever its tag) has the noun as `nsubj` ("a man eats"),
  or as relative pronoun subject of a `relcl` ("a man who eats"), or modifies it as an active participle (`acl`:
  "a man eating"; `amod`: "a flying bird"; not a passive one: "a pizza eaten by a man" counts for neither eat-pizza
  nor eat-man). A verb `conj`-oined to a counted verb and without a subject of its own shares its subjects ("a man
  standing and eating"); a noun `conj`-oined to a counted subject is a subject too ("a man and a woman eating"),
  and so are the members of a collective subject ("a flock of birds flying": flock, birds).
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
_SHORT_CVC = re.compile(r"^[^aeiouy]*[aeiouy][b-df-hj-np-tvz]$")  # one vowel, then one consonant (not w, x, y)
_SIBILANT_ENDS = ("s", "x", "z", "ch", "sh", "o")


def restored_e(word: str, lemma: str) -> str | None:
    """The lemma with the final e spaCy's rule lemmatiser stripped too far, when the word's spelling rules the
    shorter stem out: *riding* and *rides* are lemmatised to *rid*, whose forms are *ridding* and *rids*, so they
    are forms of *ride*. None when the lemma could be right (*sitting*: sit; *eating*: eat; *washes*: wash)."""
    if word == lemma + "ing" and _SHORT_CVC.match(lemma):
        return lemma + "e"  # a one-syllable stem ending vowel-consonant doubles the consonant before -ing
    if word == lemma + "es" and lemma.isalpha() and not lemma.endswith(_SIBILANT_ENDS):
        return lemma + "e"  # -es after a stem that takes a plain -s
    return None


@dataclass(frozen=True)
class CaptionAnalysis:
    """For one caption, the names of the pairs it contains (attached), and of the pairs whose noun, and whose
    modifier (adjective or verb), it mentions at all."""

    pairs: frozenset[str]
    nouns: frozenset[str]
    modifiers: frozenset[str]


EMPTY = frozenset[str]()
NOUN, ADJECTIVE, VERB = 0, 1, 2
MODIFIER_ROLE = {ADJECTIVE_NOUN: ADJECTIVE, NOUN_VERB: VERB}
MODIFIER_POS = {ADJECTIVE: "ADJ", VERB: "VERB"}


class PairMatcher:
    """Matches many pairs at once (word forms and lemmas looked up in precomputed tables).

    Each distinct concept in a role (the noun of some pair, the adjective or the verb of some pair) gets an id; one
    table maps every word form to the ids it expresses (single words), another the last word of each synonym of
    several words ("air plane"; "light-blue" read as light - blue, as tokenizers split it) to its other words."""

    def __init__(self, pairs: Sequence[ConceptPair]) -> None:
        self.pairs = list(pairs)
        ids: dict[tuple[int, LexicalConcept], int] = {}
        self._roles: list[int] = []
        names: list[set[str]] = []  # id -> names of the pairs whose noun (or modifier) it is

        def concept_id(role: int, concept: LexicalConcept) -> int:
            if (role, concept) not in ids:
                ids[role, concept] = len(self._roles)
                self._roles.append(role)
                names.append(set())
            return ids[role, concept]

        self._pair_names: dict[tuple[int, int], frozenset[str]] = {}  # (modifier id, noun id) -> pair names
        for pair in self.pairs:
            if pair.kind not in MODIFIER_ROLE:
                raise ValueError(f"pair {pair.name!r}: unknown kind {pair.kind!r}")
            noun = concept_id(NOUN, pair.noun)
            modifier = concept_id(MODIFIER_ROLE[pair.kind], pair.modifier)
            names[noun].add(pair.name)
            names[modifier].add(pair.name)
            self._pair_names[modifier, noun] = self._pair_names.get((modifier, noun), EMPTY) | {pair.name}
        self._names = [frozenset(n) for n in names]

        single: dict[str, set[int]] = {}
        multi: dict[str, list[tuple[tuple[str, ...], int]]] = {}
        for (_role, concept), cid in ids.items():
            for synonym in concept.synonyms:
                form = synonym.strip().lower()
                if not form:
                    continue
                single.setdefault(form, set()).add(cid)
                parts = tuple(_WORD_PARTS.findall(form))
                if len(parts) > 1:
                    multi.setdefault(parts[-1], []).append((parts[:-1], cid))
        self._single = {form: frozenset(cids) for form, cids in single.items()}
        self._multi = multi

    def _lookup(self, words: list[str], lemmas: list[str]) -> dict[int, frozenset[int]]:
        """Token index -> the concept ids the token expresses (tokens expressing none left out)."""
        single, multi = self._single, self._multi
        found: dict[int, frozenset[int]] = {}
        for i, word in enumerate(words):
            lemma = lemmas[i]
            hit = single.get(word)
            if lemma != word:
                other = single.get(lemma)
                if other:
                    hit = hit | other if hit else other
                restored = restored_e(word, lemma)
                other = single.get(restored) if restored else None
                if other:
                    hit = hit | other if hit else other
            if multi and (word in multi or lemma in multi):
                for form in {word, lemma}:
                    for before, cid in multi.get(form, ()):
                        start = i - len(before)
                        if start >= 0 and tuple(words[start:i]) == before:
                            hit = hit | {cid} if hit else frozenset({cid})
            if hit:
                found[i] = hit
        return found

    def analyse(self, parse: Parse) -> CaptionAnalysis:
        if not parse.words:
            return CaptionAnalysis(EMPTY, EMPTY, EMPTY)
        words = [w.lower() for w in parse.words]
        lemmas = [lemma.lower() for lemma in parse.lemmas]
        found = self._lookup(words, lemmas)
        if not found:
            return CaptionAnalysis(EMPTY, EMPTY, EMPTY)
        roles, names = self._roles, self._names
        noun_ids: set[int] = set()
        modifier_ids: set[int] = set()
        for cids in found.values():
            for cid in cids:
                (noun_ids if roles[cid] == NOUN else modifier_ids).add(cid)
        nouns = frozenset().union(*(names[c] for c in noun_ids)) if noun_ids else EMPTY
        modifiers = frozenset().union(*(names[c] for c in modifier_ids)) if modifier_ids else EMPTY
        pair_names = self._pair_names
        if not any((m, n) in pair_names for m in modifier_ids for n in noun_ids):
            return CaptionAnalysis(EMPTY, nouns, modifiers)

        tree = _Tree(parse, words, lemmas)
        attached: set[str] = set()
        for i, cids in found.items():
            for cid in cids:
                role = roles[cid]
                if role == NOUN or (tree.pos[i] != MODIFIER_POS[role]
                                    and not (role == VERB and tree.has_subject(i))):
                    continue
                targets = tree.nouns_of_adjective(i) if role == ADJECTIVE else tree.subjects_of_verb(i)
                for target in targets:
                    for noun in found.get(target, ()):
                        attached |= pair_names.get((cid, noun), EMPTY)
        return CaptionAnalysis(frozenset(attached), nouns, modifiers)

    def matches(self, parse: Parse) -> frozenset[str]:
        return self.analyse(parse).pairs


class _Tree:
    """A parse as a tree: labels normalised to spaCy's, children per token."""

    def __init__(self, parse: Parse, words: list[str], lemmas: list[str]) -> None:
        n = len(words)
        self.words = words  # lowercased
        self.lemmas = lemmas
        self.pos = parse.pos
        self.tags = parse.tags
        self.deps = [UD_LABELS.get(d, d) for d in parse.deps]
        self.heads = [h if 0 <= h < n else i for i, h in enumerate(parse.heads)]
        self.children: list[list[int]] = [[] for _ in range(n)]
        for i, head in enumerate(self.heads):
            if head != i:
                self.children[head].append(i)

    def has_subject(self, i: int) -> bool:
        """Whether the token heads an `nsubj`: the parser reads it as a predicate even where the tagger does not
        ("a giant black bird flies in the sky": flies tagged NNS, bird its nsubj)."""
        return any(self.deps[c] == SUBJECT for c in self.children[i])

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
