"""Registry of item sources for the campaign wizard: where a campaign's HITs come from.

The crowd core knows no dataset: the apps register their sources (annotation: images and descriptions;
storyboard: albums) and, per task kind, how to find a sample item for the worker-page preview. A source
says which task kinds it feeds; the output of another campaign (a chained stage) is the core's own
source, offered to every kind whose `items_from_stage` takes items from an earlier stage."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .registry import Registry
from .task_kinds import TaskKind, get_task_kind


@dataclass(frozen=True)
class Choice:
    """One thing the researcher may tick: an image, an album."""

    id: int
    label: str
    thumbnail: str = ""  # the 320 px rendition's URL, when the thing has a picture
    note: str = ""


@dataclass(frozen=True)
class ChoicePage:
    choices: list[Choice]
    total: int
    next_page: int | None
    next_after: int | None = None  # keyset paging (`matching`): the id to go on after; None on the last page


@dataclass(frozen=True)
class SourceFilter:
    """One parameter of a source's selector (the wizard shows it as a field, the API takes it in `select`, the CLI
    as a flag): a set, a tag, a name search, a state..."""

    name: str
    label: str
    kind: str = "text"  # text, number, choice, check
    help: str = ""
    choices: Callable[[], list[tuple[str, str]]] | None = None  # (value, label), read when the form is shown
    multiple: bool = False  # several values (a list in the API, a repeated flag in the CLI)


class ItemSource(ABC):
    name: ClassVar[str]
    label: ClassVar[str]
    kinds: ClassVar[frozenset[str]]
    # A selection: the researcher ticks some of `choices`; otherwise the source takes everything it has.
    selectable: ClassVar[bool] = False
    page_size: ClassVar[int] = 40

    def describe(self) -> str:
        """A short line on what the source holds (e.g. "24 images"): one query at most."""
        return ""

    # A selector: parameters that choose the items (`matching` pages them, `select` takes every match).
    filters: ClassVar[tuple[SourceFilter, ...]] = ()

    def matching(self, params: Mapping[str, Any], after: int = 0) -> ChoicePage:
        """One page of the items matching `params`, after id `after`, with how many match: a constant number of
        queries whatever the number of items. Raise ValueError for a bad parameter."""
        raise ValueError(f"{self.label} takes no selector")

    def select(self, kind: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One item per HIT for every item matching `params` ("select all matching"). ValueError: a bad parameter
        or nothing matches."""
        raise ValueError(f"{self.label} takes no selector")

    def choices(self, page: int = 1) -> ChoicePage:
        """One page of the things to tick (selections only), in a constant number of queries."""
        return ChoicePage([], 0, None)

    def page_of(self, rows: Any, page: int, choice: Callable[[Any], Choice]) -> ChoicePage:
        """Page `page` (from 1) of an ordered queryset, each row made a Choice: two queries."""
        total = rows.count()
        start = (page - 1) * self.page_size
        choices = [choice(row) for row in rows[start:start + self.page_size]]
        return ChoicePage(choices, total, page + 1 if start + self.page_size < total else None)

    @abstractmethod
    def items(self, kind: str, selected: list[int]) -> list[dict[str, Any]]:
        """One item per HIT; `selected`: the ids ticked (selections). Raise ValueError for a bad choice or when
        nothing matches (never an empty list: a campaign is not made of an empty selection)."""


@dataclass(frozen=True)
class Sample:
    """An item to preview a kind's worker page with; `source_stage_id` when the page reads the stage before."""

    item: dict[str, Any]
    source_stage_id: int | None = None


SampleFinder = Callable[[], Sample | None]

class UnknownItemSource(LookupError):
    pass


_SOURCES: Registry[ItemSource] = Registry("item source", UnknownItemSource)
_SAMPLES: dict[str, tuple[SampleFinder, str]] = {}


def register_source(source_class: type[ItemSource]) -> type[ItemSource]:
    _SOURCES.add(source_class.name, source_class())
    return source_class


def register_sample(kind: str, missing: str) -> Callable[[SampleFinder], SampleFinder]:
    """Register how to find any suitable existing item of `kind`; `missing` says what is needed when none is."""

    def decorator(finder: SampleFinder) -> SampleFinder:
        _SAMPLES[kind] = (finder, missing)
        return finder

    return decorator


def get_source(name: str) -> ItemSource:
    return _SOURCES.get(name)


def takes_stage_output(kind: str) -> bool:
    """Whether a campaign of this kind can be fed by another campaign (its kind takes items from a stage)."""
    return type(get_task_kind(kind)).items_from_stage is not TaskKind.items_from_stage


def sources_for(kind: str) -> list[ItemSource]:
    return [source for source in _SOURCES.values() if kind in source.kinds]


def sample_for(kind: str) -> tuple[Sample | None, str]:
    """(any suitable existing item, what is needed when there is none)."""
    finder, missing = _SAMPLES.get(kind, (lambda: None, "no sample item is known for this task kind"))
    return finder(), missing
