"""Reads for compositional generalization: the stored concept pairs as metrics' ConceptPair, and the corpus (every
description, or the approved describe_image descriptions of some campaigns) as ImageCaptions matched from the
stored parses, without re-parsing; how often each pair occurs; how much of the corpus is parsed."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from django.db.models import FilteredRelation, Q

from metrics.compositional.matching import CaptionAnalysis, PairMatcher
from metrics.compositional.types import ConceptPair, ImageCaptions, LexicalConcept, Parse
from mturk.models import Campaign
from mturk.states import AssignmentStatus

from ..models import Description
from .models import CaptionParse, ParseJob
from .models import ConceptPair as StoredPair
from .models import LexicalConcept as StoredConcept
from .services.caption_parses import current_parser_name

CHUNK = 2000


class UnknownPairs(ValueError):
    """Some named pairs are not defined; the message names them."""

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__(f"unknown concept pair(s): {', '.join(names)}")
        self.names = list(names)


def _concept(stored: StoredConcept) -> LexicalConcept:
    return LexicalConcept(name=stored.name, part_of_speech=stored.part_of_speech,
                          synonyms=frozenset([stored.name, *stored.synonyms]))


def as_pair(stored: StoredPair) -> ConceptPair:
    """The stored pair (with its modifier and noun loaded) as metrics' ConceptPair."""
    return ConceptPair(name=stored.name, kind=stored.kind, modifier=_concept(stored.modifier),
                       noun=_concept(stored.noun), category=stored.category, heldout_group=stored.heldout_group)


def pair_rows(names: Sequence[str] | None = None):
    """The stored pairs with their concepts (one query), by name."""
    rows = StoredPair.objects.select_related("modifier", "noun").order_by("name")
    return rows if names is None else rows.filter(name__in=list(names))


def stored_pairs(names: Sequence[str] | None = None) -> list[ConceptPair]:
    """The named pairs (all when None), in the order given; UnknownPairs naming every unknown one."""
    if names is None:
        return [as_pair(p) for p in pair_rows()]
    wanted = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    found = {p.name: as_pair(p) for p in pair_rows(wanted)}
    unknown = [n for n in wanted if n not in found]
    if unknown:
        raise UnknownPairs(unknown)
    return [found[n] for n in wanted]


def corpus_descriptions(campaigns: Sequence[Campaign] | None = None):
    """Every description (campaigns None or empty), or the approved describe_image descriptions of the campaigns."""
    if not campaigns:
        return Description.objects.all()
    return Description.objects.filter(assignment__hit__campaign__in=[c.pk for c in campaigns],
                                      assignment__status=AssignmentStatus.APPROVED)


@dataclass
class _Image:
    pk: int
    key: str
    subset: str
    analyses: list[CaptionAnalysis]
    texts: list[str]
    campaigns: set[int] = field(default_factory=set)  # with_text: the campaigns whose answers made its captions


@dataclass
class _Totals:
    parser: str = ""
    captions: int = 0
    unparsed: int = 0


def _scan(pairs: Sequence[ConceptPair], campaigns: Sequence[Campaign] | None, with_text: bool,
          totals: _Totals, progress: Callable[[int], None] | None = None) -> Iterator[_Image]:
    """One pass over the corpus in image order, streamed: each parsed caption analysed once. Descriptions without
    a parse by the current parser are counted in totals.unparsed and left out (so is an image with none parsed)."""
    parser = current_parser_name()
    totals.parser = parser
    matcher = PairMatcher(pairs)
    columns = ["image_id", "image__key", "image__origin__external_id", "image__origin__subset", "stored__data"]
    if with_text:
        columns += ["text", "assignment__hit__campaign_id"]
    rows = (corpus_descriptions(campaigns)
            .annotate(stored=FilteredRelation("parse", condition=Q(parse__parser=parser)))
            .order_by("image_id", "id").values_list(*columns).iterator(chunk_size=CHUNK))
    current: _Image | None = None
    for read, row in enumerate(rows, start=1):
        if progress is not None and read % CHUNK == 0:
            progress(read)
        image_id, key, external_id, subset, data = row[:5]
        if data is None:
            totals.unparsed += 1
            continue
        if current is None or current.pk != image_id:
            if current is not None:
                yield current
            current = _Image(pk=image_id, key=key if external_id is None else str(external_id),
                             subset=subset or "", analyses=[], texts=[])
        current.analyses.append(matcher.analyse(Parse.from_json(data)))
        if with_text:
            current.texts.append(row[5])
            if row[6] is not None:
                current.campaigns.add(row[6])
        totals.captions += 1
    if current is not None:
        yield current


@dataclass
class CorpusScan:
    images: list[ImageCaptions]  # ordered by image id; key = the COCO id when the image has one, else Image.key
    image_ids: dict[str, int]  # key -> Image primary key
    texts: dict[str, list[str]] | None  # key -> caption texts in the order of ImageCaptions.matches (with_text)
    campaigns: dict[str, set[int]] = field(default_factory=dict)  # key -> campaigns that made its captions (with_text)
    captions: int = 0
    unparsed: int = 0  # descriptions of the corpus without a parse by the current parser (left out)
    parser: str = ""
    notes: list[str] = field(default_factory=list)


def _unparsed_note(unparsed: int) -> list[str]:
    if not unparsed:
        return []
    return [f"{unparsed} description(s) have no parse by the current parser and are left out: run parse_captions "
            "(or Parse captions in the console) first"]


def scan_corpus(pairs: Sequence[ConceptPair], *, campaigns: Sequence[Campaign] | None = None,
                with_text: bool = False, progress: Callable[[int], None] | None = None) -> CorpusScan:
    """Every image with descriptions (campaigns=None or empty: all descriptions, imported and collected; else
    the approved describe_image descriptions of those campaigns), each caption matched against `pairs` from its
    stored parse. `progress` is called with the number of descriptions read so far, every CHUNK of them."""
    totals = _Totals()
    scan = CorpusScan(images=[], image_ids={}, texts={} if with_text else None)
    for image in _scan(pairs, campaigns, with_text, totals, progress):
        scan.images.append(ImageCaptions(key=image.key, subset=image.subset,
                                         matches=tuple(a.pairs for a in image.analyses)))
        scan.image_ids[image.key] = image.pk
        if scan.texts is not None:
            scan.texts[image.key] = image.texts
            scan.campaigns[image.key] = image.campaigns
    scan.captions, scan.unparsed, scan.parser = totals.captions, totals.unparsed, totals.parser
    scan.notes = _unparsed_note(totals.unparsed)
    return scan


@dataclass
class PairOccurrence:
    name: str
    kind: str
    category: str
    heldout_group: str
    images: int = 0  # images with at least one caption containing the pair
    captions: int = 0  # captions containing the pair
    by_count: dict[int, int] = field(default_factory=dict)  # n -> images with exactly n captions containing it
    mean_per_image: float = 0.0  # mean n over those images (the seed's reference agreement, e.g. 1.57 of 5)
    noun_images: int = 0  # images with a caption mentioning the noun (attached to the modifier or not)
    modifier_images: int = 0  # images with a caption mentioning the modifier


@dataclass
class OccurrenceTable:
    rows: list[PairOccurrence]
    images: int = 0  # images with at least one parsed caption
    captions: int = 0  # parsed captions
    unparsed: int = 0
    parser: str = ""
    notes: list[str] = field(default_factory=list)


def pair_occurrences(pairs: Sequence[ConceptPair], *,
                     campaigns: Sequence[Campaign] | None = None) -> OccurrenceTable:
    """How often each pair occurs in the corpus (one pass over the stored parses)."""
    totals = _Totals()
    rows = {p.name: PairOccurrence(name=p.name, kind=p.kind, category=p.category, heldout_group=p.heldout_group)
            for p in pairs}
    images = 0
    for image in _scan(pairs, campaigns, False, totals):
        images += 1
        counts: dict[str, int] = {}
        nouns: set[str] = set()
        modifiers: set[str] = set()
        for analysis in image.analyses:
            for name in analysis.pairs:
                counts[name] = counts.get(name, 0) + 1
            nouns |= analysis.nouns
            modifiers |= analysis.modifiers
        for name, n in counts.items():
            row = rows[name]
            row.images += 1
            row.captions += n
            row.by_count[n] = row.by_count.get(n, 0) + 1
        for name in nouns:
            rows[name].noun_images += 1
        for name in modifiers:
            rows[name].modifier_images += 1
    for row in rows.values():
        row.by_count = dict(sorted(row.by_count.items()))
        row.mean_per_image = row.captions / row.images if row.images else 0.0
    return OccurrenceTable(rows=list(rows.values()), images=images, captions=totals.captions,
                           unparsed=totals.unparsed, parser=totals.parser, notes=_unparsed_note(totals.unparsed))


@dataclass(frozen=True)
class ParseCoverage:
    descriptions: int
    parsed: int  # descriptions with a parse by the current parser
    parser: str


def parse_coverage() -> ParseCoverage:
    parser = current_parser_name()
    return ParseCoverage(descriptions=Description.objects.count(),
                         parsed=CaptionParse.objects.filter(parser=parser).count(), parser=parser)


def latest_parse_job() -> ParseJob | None:
    return ParseJob.objects.order_by("-created_at", "-id").first()
