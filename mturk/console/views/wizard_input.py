"""The campaign wizard's form, read into what the services take: the API's serializer for one campaign
(CampaignCreateSerializer: one way to create a campaign), the workflows' per-stage settings, the items of
the chosen item source, the task kind's options and the provider's requirements. Errors are kept per field."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.http import QueryDict

from ...api.serializers import CampaignCreateSerializer
from ...item_sources import UnknownItemSource, get_source, sources_for, takes_stage_output
from ...models import Campaign
from ...providers.base import RequirementField
from ...providers.registry import UnknownProvider, default_provider_name, get_provider
from ...services.campaigns import create_campaign
from ...task_kinds import UnknownTaskKind, get_task_kind
from ...workflows import get_workflow
from ..services import Creator
from .wizard_matching import filter_params

SINGLE = "campaign"
STAGE_SOURCE = "stage"  # the output of another campaign (a chained stage)
CAMPAIGN_FIELDS = ("title", "description", "instructions", "reward", "assignments_per_hit", "time_limit_seconds",
                   "budget_cap", "max_assignments_per_worker", "tasks_per_submission", "keywords")
GOLD_FIELDS = ("gold_rate", "onboarding_items", "onboarding_pass")  # quality: known answers mixed in, a qualifying set
PILOT_FIELDS = ("pilot_items", "pilot_assignments")  # the first items to several workers: agreement early
STAGE_FIELDS = ("reward", "assignments_per_hit", "time_limit_seconds", "budget_cap", "instructions", *GOLD_FIELDS,
                *PILOT_FIELDS)


def requirement_fields(provider_name: str) -> tuple[RequirementField, ...]:
    """The provider's worker requirements as wizard fields (none for an unknown provider)."""
    try:
        return get_provider(provider_name).requirement_fields
    except UnknownProvider:
        return ()


@dataclass
class WizardInput:
    flow: str = SINGLE
    kind: str = ""
    errors: dict[str, list[str]] = field(default_factory=dict)
    create: Creator | None = None  # set when the input is valid

    def error(self, name: str, message: str) -> None:
        self.errors.setdefault(name, []).append(message)


def _text(post: QueryDict, name: str) -> str:
    return (post.get(name) or "").strip()


def _ids(post: QueryDict, name: str) -> list[int]:
    return [int(value) for value in post.getlist(name) if value.isdigit()]


def read_options(post: QueryDict, kind_name: str, found: WizardInput) -> dict[str, Any]:
    """The task kind's options from `opt-<kind>-<name>` fields, typed like the kind's defaults; blank: default."""
    options: dict[str, Any] = {}
    for name, default in get_task_kind(kind_name).defaults.options.items():
        field_name = f"opt-{kind_name}-{name}"
        if isinstance(default, bool):
            options[name] = post.get(field_name) == "on"
            continue
        value = _text(post, field_name)
        if not value:
            continue
        if isinstance(default, int):
            if not value.lstrip("-").isdigit():
                found.error("options", f"{name}: enter a whole number")
                continue
            options[name] = int(value)
        elif isinstance(default, float):
            try:
                options[name] = float(value)
            except ValueError:
                found.error("options", f"{name}: enter a number, e.g. {default:g}")
        else:
            options[name] = value
    return options


def read_requirements(post: QueryDict, provider: str, found: WizardInput) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    for requirement in requirement_fields(provider):
        name = f"q-{requirement.key}"
        if requirement.kind == "check":
            if post.get(name) == "on":
                spec[requirement.key] = True
        elif requirement.kind == "choices":
            values = [v for v in post.getlist(name) if v]
            if values:
                spec[requirement.key] = values
        elif requirement.kind == "number":
            value = _text(post, name)
            if value and not value.isdigit():
                found.error("qualifications", f"{requirement.label}: enter a whole number")
            elif value:
                spec[requirement.key] = int(value)
        elif requirement.kind == "json":
            value = _text(post, name)
            if value:
                try:
                    spec[requirement.key] = json.loads(value)
                except json.JSONDecodeError as exc:
                    found.error("qualifications", f"{requirement.label}: not valid JSON ({exc.msg})")
        else:
            values = [v.strip() for v in _text(post, name).split(",") if v.strip()]
            if values:
                spec[requirement.key] = values
    try:
        return get_provider(provider).clean_qualifications(spec)
    except ValueError as exc:
        found.error("qualifications", str(exc))
        return spec


def read_items(post: QueryDict, kind: str, found: WizardInput) -> tuple[list[dict[str, Any]] | None, str | None]:
    """(items, source stage id) from the chosen item source."""
    source_name = _text(post, "source")
    if source_name == STAGE_SOURCE:
        if not takes_stage_output(kind):
            found.error("source", f"a {kind} campaign cannot be fed by another campaign")
        stage = _text(post, "source_stage")
        if not stage:
            found.error("source_stage", "choose the campaign whose approved results feed this one")
        return None, stage or None
    if not source_name:
        found.error("source", "choose where the HITs come from")
        return None, None
    try:
        source = get_source(source_name)
    except UnknownItemSource as exc:
        found.error("source", str(exc))
        return None, None
    if source not in sources_for(kind):
        found.error("source", f"{source.label} cannot feed a {kind} campaign")
        return None, None
    try:
        if source.filters and post.get(f"all-{source.name}") == "on":  # every item matching the filters
            return source.select(kind, filter_params(post, source)), None
        return source.items(kind, _ids(post, f"item-{source.name}")), None
    except ValueError as exc:
        found.error("source", str(exc))
        return None, None


def _field_errors(errors: dict[str, Any], prefix: str = "") -> dict[str, list[str]]:
    flat: dict[str, list[str]] = {}
    for name, messages in errors.items():
        if isinstance(messages, dict):
            flat.update(_field_errors(messages, f"{prefix}{name}."))
        else:
            flat[prefix + name] = [str(m) for m in messages]
    return flat


def _check_name(name: str, found: WizardInput, names: list[str]) -> None:
    taken = set(Campaign.objects.filter(name__in=names).values_list("name", flat=True))
    for candidate in names:
        if candidate in taken:
            found.error("name", f"a campaign named '{candidate}' already exists")


def read_wizard(post: QueryDict, user: Any) -> WizardInput:
    flow = _text(post, "flow") or SINGLE
    found = WizardInput(flow=flow)
    provider = _text(post, "provider") or default_provider_name()
    try:
        get_provider(provider)
    except UnknownProvider as exc:
        found.error("provider", str(exc))
        return found
    if flow == SINGLE:
        _read_single(post, provider, user, found)
    else:
        _read_workflow(post, provider, user, found)
    return found


def _read_single(post: QueryDict, provider: str, user: Any, found: WizardInput) -> None:
    kind = _text(post, "kind")
    try:
        get_task_kind(kind)
    except UnknownTaskKind:
        found.error("kind", "choose a task kind")
        return
    found.kind = kind
    data: dict[str, Any] = {"name": _text(post, "name"), "task_kind": kind, "provider": provider}
    for name in CAMPAIGN_FIELDS + GOLD_FIELDS + PILOT_FIELDS:
        if value := _text(post, name):
            data[name] = value
    data["options"] = read_options(post, kind, found)
    data["qualifications"] = read_requirements(post, provider, found)
    items, stage = read_items(post, kind, found)
    if items is not None:
        data["items"] = items
    if stage is not None:
        data["source_stage"] = stage
    serializer = CampaignCreateSerializer(data=data)
    if not serializer.is_valid():
        for name, messages in _field_errors(serializer.errors).items():
            for message in messages:
                found.error({"task_kind": "kind", "items": "source"}.get(name, name), message)
    if data["name"]:
        _check_name(data["name"], found, [data["name"]])
    try:
        get_task_kind(kind).clean_options({**get_task_kind(kind).defaults.options, **data["options"]})
    except ValueError as exc:
        found.error("options", str(exc))
    if not found.errors:
        found.create = lambda: {"": create_campaign(**serializer.validated_data, created_by=user)}


def _stage_choices(post: QueryDict, stage: str, kind_name: str, found: WizardInput) -> dict[str, Any]:
    """A stage's options chosen from a list (`stage-<stage>-opt-<name>`, e.g. the boxes stage's vocabulary),
    checked by the kind; blank: the kind's default."""
    kind = get_task_kind(kind_name)
    options = {name: value for name in kind.option_choices() if (value := _text(post, f"stage-{stage}-opt-{name}"))}
    if options:
        try:
            kind.clean_options({**kind.defaults.options, **options})
        except ValueError as exc:
            found.error(f"stage-{stage}-opt-{next(iter(options))}", str(exc))
    return options


def _read_workflow(post: QueryDict, provider: str, user: Any, found: WizardInput) -> None:
    try:
        workflow = get_workflow(found.flow)
    except LookupError as exc:
        found.error("flow", str(exc))
        return
    found.kind = workflow.first_kind
    name = _text(post, "name")
    if not name:
        found.error("name", "This field is required.")
    elif len(name) > 180:
        found.error("name", "Ensure this field has no more than 180 characters.")
    switched_on = {keyword for keyword in workflow.switches if post.get(f"switch-{keyword}") == "on"}
    wanted = workflow.wanted(switched_on)
    qualifications = read_requirements(post, provider, found)
    settings: dict[str, dict[str, Any]] = {}
    for stage in wanted:
        raw = {f: v for f in STAGE_FIELDS if (v := _text(post, f"stage-{stage}-{f}"))}
        serializer = CampaignCreateSerializer(data=raw, partial=True)  # the API's checks of each setting
        if not serializer.is_valid():
            for field_name, messages in _field_errors(serializer.errors).items():
                for message in messages:
                    found.error(f"stage-{stage}-{field_name}", message)
            continue
        settings[stage] = dict(serializer.validated_data)
        options = _stage_choices(post, stage, workflow.stages[stage], found)
        if options:
            settings[stage]["options"] = options
        if qualifications:
            settings[stage]["qualifications"] = qualifications
    items, _ = read_items(post, workflow.first_kind, found)
    if _text(post, "source") == STAGE_SOURCE:
        found.errors.pop("source_stage", None)
        found.error("source", "a workflow starts from images or albums, not from another campaign")
    if name:
        _check_name(name, found, [f"{name} · {stage}" for stage in wanted])
    if not found.errors and items is not None:
        found.create = partial(
            workflow.create, name, items, provider=provider, settings=settings, created_by=user,
            **{keyword: keyword in switched_on for keyword in workflow.switches},
        )
