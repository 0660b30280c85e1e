"""How each task kind's work is measured: gold scoring, agreement between workers, aggregation.

A registry by task kind, like the task kinds themselves: a kind whose work can be measured registers one
KindQuality (annotation/quality/, storyboard/quality.py). The crowd core calls it with plain data (HIT items
and answers as stored) and stores what it returns (services.gold, services.quality); the measures themselves
live in `metrics/` and know no Django."""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .registry import Registry

# A gold score below this is a failed gold item: the answer gets the "gold_failed" check flag.
GOLD_PASS_MARK = 0.5


@dataclass(frozen=True)
class Answer:
    assignment: int  # Assignment id
    worker: int  # Worker id
    answer: dict[str, Any]  # the stored (validated) answer


@dataclass(frozen=True)
class Unit:
    """One real HIT (not gold) and its answers: what several workers said about the same items."""

    hit: int  # HIT id
    items: dict[str, Any]  # HIT.items
    answers: list[Answer]


@dataclass(frozen=True)
class Aggregate:
    """A HIT's answers combined into one answer, in the kind's answer shape (what TaskKind.summary reads)."""

    answer: dict[str, Any]
    method: str  # how, for people and exports, e.g. "IoU clustering (IoU >= 0.5, label vote, quorum 50%)"
    support: int  # how many answers it was made from
    details: dict[str, Any] = field(default_factory=dict)  # e.g. per box its votes; per label its posterior


@dataclass
class Measurement:
    """What measuring a campaign's answers gives (one KindQuality.measure call for the whole campaign)."""

    measure: str  # the agreement measure's name, e.g. "box F1 at IoU >= 0.5 and mean matched IoU"
    item_agreement: dict[int, float | None]  # HIT id -> agreement among its answers (None: fewer than 2)
    answer_agreement: dict[int, float]  # assignment id -> agreement of this answer with the others on its HIT
    worker_skill: dict[int, float] = field(default_factory=dict)  # worker id -> a model's skill (Dawid-Skene, MACE)
    overall: dict[str, float | None] = field(default_factory=dict)  # campaign-wide, e.g. {"krippendorff_alpha": .6}
    aggregates: dict[int, Aggregate] = field(default_factory=dict)  # HIT id -> aggregated answer


class KindQuality(ABC):
    """How one task kind's answers are scored against gold, compared and aggregated.

    `options` is always the campaign's task-kind options (TaskKind.options(campaign)), which carry the kind's
    quality settings (e.g. draw_boxes' "gold_iou")."""

    task_kind: ClassVar[str]
    # What the known answer of a gold item looks like, for the console and `import_gold --help`.
    gold_format: ClassVar[str]
    # How gold answers are scored, in one line (reports, the console).
    gold_scoring: ClassVar[str]

    @abstractmethod
    def clean_gold(self, items: dict[str, Any], gold: Any) -> dict[str, Any]:
        """Check a known answer for these HIT items; return it cleaned, or raise ValueError saying what is wrong."""

    def gold_from_answer(self, items: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """The known answer made from an approved answer (the researcher marks it gold in the review).
        Default: the answer itself."""
        return self.clean_gold(items, answer)

    @abstractmethod
    def score_gold(self, options: dict[str, Any], items: dict[str, Any], gold: dict[str, Any],
                   answer: dict[str, Any]) -> float:
        """How well an answer matches the known answer, from 0 to 1 (GOLD_PASS_MARK and above passes)."""

    def score_inline_gold(self, options: dict[str, Any], items: dict[str, Any],
                          answer: dict[str, Any]) -> float | None:
        """The score of gold parts carried inside a real HIT's items (judge_caption's gold pairs), if it has any.
        Default: None (no inline gold)."""
        return None

    @abstractmethod
    def measure(self, options: dict[str, Any], units: list[Unit]) -> Measurement:
        """Agreement per item and per answer, and aggregated answers, over all of a campaign's real HITs.

        Bounded work per unit (except campaign-wide models such as Dawid-Skene or Krippendorff's alpha, which are
        fitted once): this runs on 10k HITs x 5 workers in the periodic job."""


class UnknownKindQuality(LookupError):
    pass


_QUALITY: Registry[KindQuality] = Registry("task kind with quality measures", UnknownKindQuality)


def register_quality(quality_class: type[KindQuality]) -> type[KindQuality]:
    _QUALITY.add(quality_class.task_kind, quality_class())
    return quality_class


def get_quality(task_kind: str) -> KindQuality:
    return _QUALITY.get(task_kind)


def has_quality(task_kind: str) -> bool:
    return task_kind in _QUALITY  # read on every submission: no sorted list of names


def quality_kind_names() -> list[str]:
    return _QUALITY.names()
