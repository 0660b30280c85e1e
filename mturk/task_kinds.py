"""Registry of task kinds: the one place a new kind of crowd task plugs in.

A task kind declares its page template, the payload the page needs (built for many HITs at once,
with a constant number of queries), its result validation (a DRF serializer), its automatic
quality checks, its defaults, and how an approved result becomes a dataset record.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from rest_framework import serializers

from .registry import Registry

if TYPE_CHECKING:
    from .models import HIT, Assignment, Campaign


class StrictSerializer(serializers.Serializer):
    """A serializer that refuses fields it does not declare."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = set(self.initial_data) - set(self.fields) if isinstance(self.initial_data, dict) else set()
        if unknown:
            raise serializers.ValidationError({name: "Unknown field." for name in sorted(unknown)})
        return attrs


@dataclass(frozen=True)
class TaskDefaults:
    reward: Decimal
    assignments_per_hit: int
    time_limit_seconds: int
    title: str
    description: str
    instructions: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OptionChoice:
    """One value the wizard offers for an option, with what the worker will see if it is chosen."""

    value: str
    label: str
    preview: str = ""


@dataclass(frozen=True)
class ChoiceOption:
    """An option chosen from a list in the wizard (not typed): its values, the first the default of a new
    campaign, and a line of help (what to do when the list is empty)."""

    choices: list[OptionChoice]
    help: str = ""


class TaskKind(ABC):
    name: ClassVar[str]
    label: ClassVar[str]
    blurb: ClassVar[str] = ""  # one line for the campaign wizard: what the worker does
    template: ClassVar[str]
    result_serializer: ClassVar[type[serializers.Serializer]]
    defaults: ClassVar[TaskDefaults]
    # Whether `validate` reads the HIT's page payload (context["payload"]); a kind whose answers are checked on
    # their own sets False, and its submissions are validated without building it (an empty payload).
    answer_needs_payload: ClassVar[bool] = True
    # The review page shows each answer with this template (context: `review`, what review_context built for
    # the assignment, and `layout`, "list" or "grid"); the default shows the summary text.
    review_template: ClassVar[str] = "mturk/review/answer_text.html"
    # What each of the kind's options means, in a sentence a researcher reads next to the field (the wizard).
    option_help: ClassVar[dict[str, str]] = {}

    def options(self, campaign: Campaign) -> dict[str, Any]:
        return {**self.defaults.options, **(campaign.options or {})}

    def clean_options(self, options: dict[str, Any]) -> None:
        """Check a campaign's options when it is created; raise ValueError naming the bad option."""
        return None

    def option_choices(self) -> dict[str, ChoiceOption]:
        """Options the wizard offers as a list of values (read from the database when the form is shown)."""
        return {}

    @abstractmethod
    def validate_items(self, items: list[dict[str, Any]]) -> None:
        """Check HIT items before they are stored; raise ValueError naming the bad item."""

    @abstractmethod
    def build_payloads(self, campaign: Campaign, hits: list[HIT]) -> dict[int, dict[str, Any]]:
        """Payload per HIT id for the task page, in a constant number of queries."""

    def validate(self, campaign: Campaign, payload: dict[str, Any], answer: Any) -> dict[str, Any]:
        """Validate a worker's answer; raise serializers.ValidationError with a message per field."""
        if not isinstance(answer, dict):
            raise serializers.ValidationError({"answer": "Expected a JSON object."})
        serializer = self.result_serializer(
            data=answer, context={"options": self.options(campaign), "payload": payload}
        )
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def checks(self, campaign: Campaign, answer: dict[str, Any]) -> list[str]:
        """Automatic quality checks run on a stored answer: a list of flags (empty = passes)."""
        return []

    def hit_checks(self, campaign: Campaign, hit: HIT, answer: dict[str, Any]) -> list[str]:
        """The checks of an answer to one HIT: `checks`, plus what only the HIT's items know (e.g. gold answers,
        which never reach the page). Default: `checks`."""
        return self.checks(campaign, answer)

    def gold_problems(self, options: dict[str, Any], gold: list[tuple[dict[str, Any], dict[str, Any]]]
                      ) -> list[str | None]:
        """For each (items, known answer) of gold items, why no answer a campaign with these task-kind `options`
        accepts can match the known answer (e.g. a known answer of no boxes where a worker must draw at least one),
        or None. Read for many items at once, in a constant number of queries. Default: no problem."""
        return [None] * len(gold)

    def gold_scope(self, options: dict[str, Any]) -> str:
        """Which gold items a campaign with these task-kind `options` takes: those of this scope (GoldItem.scope).
        A gold item made under some options gets their scope. Default: "" (every campaign of the kind shares its
        gold items); a kind whose items belong to one study (a human evaluation's outputs) names the study."""
        return ""

    def summary(self, answer: dict[str, Any] | None) -> str:
        """Short text of an answer for review lists."""
        return "" if answer is None else str(answer)

    def review_context(self, campaign: Campaign, assignments: list[Assignment],
                       payloads: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """What review_template needs per assignment id, for a whole page of assignments in a constant number
        of queries (`payloads`: build_payloads of their HITs). Default: the answer's summary."""
        return {a.pk: {"summary": self.summary(a.answer)} for a in assignments}

    @abstractmethod
    def on_approved(self, assignment: Assignment) -> None:
        """Turn an approved result into dataset records (idempotent)."""

    def items_from_stage(self, campaign: Campaign, assignment: Assignment) -> list[dict[str, Any]]:
        """Items a campaign of this kind takes from an approved assignment of the campaign that feeds it
        (campaign.source_stage), called after that assignment's on_approved. Default: none."""
        return []

    def ready_images(self, assignment: Assignment) -> list[int]:
        """Image ids an approved assignment of this kind makes ready for a later describe_image stage.
        Default: the HIT's image, if it shows one."""
        image = assignment.hit.items.get("image")
        return [image] if isinstance(image, int) else []

    def progress_notes(self, campaign: Campaign) -> list[str]:
        """Kind-specific progress lines for the campaign page (e.g. albums discarded). Default: none."""
        return []

    def group_of(self, item: dict[str, Any]) -> str:
        """What a HIT item is about across stages (e.g. "album:12"): a worker who took a HIT of one
        group in one campaign is never given a HIT of that group in another. Default: no group; a
        HIT created by stage chaining inherits the group of the HIT that fed it."""
        return ""


class UnknownTaskKind(LookupError):
    pass


_KINDS: Registry[TaskKind] = Registry("task kind", UnknownTaskKind)


def register(kind_class: type[TaskKind]) -> type[TaskKind]:
    _KINDS.add(kind_class.name, kind_class())
    return kind_class


def get_task_kind(name: str) -> TaskKind:
    return _KINDS.get(name)


def task_kind_names() -> list[str]:
    return _KINDS.names()
