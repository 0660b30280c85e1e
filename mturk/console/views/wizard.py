"""The campaign wizard (/campaigns/new/): what to create (one campaign or a workflow), the task kind with a
live preview of its worker page, the items, the provider and its requirements, the reward and limits; then a
review with the full cost (the estimate's figures) before "Create as draft" or "Create and publish".

Thin: the form is read by wizard_input (the API's serializer and the services' own checks), the review is a
dry run of the same services (services.wizard), and the preview renders the worker's task page."""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET, require_http_methods

from ...item_sources import (
    ItemSource,
    Sample,
    UnknownItemSource,
    get_source,
    sample_for,
    sources_for,
    takes_stage_output,
)
from ...models import HIT, Campaign
from ...providers.registry import default_provider_name, own_crowd, provider_names
from ...services.campaigns import CampaignError
from ...states import CampaignStatus
from ...task_kinds import ChoiceOption, OptionChoice, TaskKind, UnknownTaskKind, get_task_kind, task_kind_names
from ...views.access import researcher_required
from ...views.campaign_confirm import currency
from ...work.views.worker import _render_task
from ...workflows import workflows
from ..services import create_and_maybe_publish, dry_run
from .wizard_input import (
    CAMPAIGN_FIELDS,
    GOLD_FIELDS,
    PILOT_FIELDS,
    SINGLE,
    STAGE_FIELDS,
    STAGE_SOURCE,
    WizardInput,
    read_options,
    read_wizard,
    requirement_fields,
)
from .wizard_matching import matching, matching_row

SOURCE_CAMPAIGNS_SHOWN = 200  # the newest open campaigns offered as a source stage


@dataclass
class FormField:
    name: str
    label: str
    type: str = "text"  # text, number, textarea, check, choices, json
    value: Any = ""
    errors: list[str] = field(default_factory=list)
    help: str = ""
    placeholder: str = ""
    choices: tuple[str, ...] = ()
    step: str = ""
    options: list[OptionChoice] = field(default_factory=list)  # type "select": the values, each with its preview
    preview_param: str = ""  # type "select": the preview frame's parameter it sets (a workflow stage's option)

    @property
    def chosen_preview(self) -> str:
        return next((o.preview for o in self.options if o.value == self.value), "")


def _field(post: QueryDict, errors: dict[str, list[str]], name: str, label: str, **extra: Any) -> FormField:
    kind = extra.get("type", "text")
    if kind == "choices":
        value: Any = post.getlist(name)
    elif kind == "check":
        value = post.get(name) == "on"
    else:
        value = post.get(name, "")
    return FormField(name, label, value=value, errors=errors.get(name, []), **extra)


LABELS = {
    "title": ("Title shown to workers", {}),
    "description": ("Description (marketplace search results)", {"type": "textarea"}),
    "instructions": ("Instructions on the task page", {"type": "textarea"}),
    "reward": ("Reward per assignment ($)", {"type": "number", "step": "0.01"}),
    "assignments_per_hit": ("Assignments per HIT (workers per item)", {"type": "number"}),
    "time_limit_seconds": ("Time limit per assignment (seconds)", {"type": "number"}),
    "budget_cap": ("Budget cap, fees included ($)", {"type": "number", "step": "0.01", "placeholder": "no cap"}),
    "max_assignments_per_worker": ("Most assignments one worker may do", {"type": "number",
                                                                          "placeholder": "no limit"}),
    "tasks_per_submission": ("Prolific: tasks per submission (a bundle)", {"type": "number", "placeholder": "1"}),
    "keywords": ("Marketplace search keywords (comma-separated)", {}),
    "gold_rate": ("Gold share of the HITs (0 to 0.5)", {
        "type": "number", "step": "0.01", "placeholder": "0 (none)",
        "help": "Gold items are HITs with a known answer, mixed in among the real ones at random places; workers "
                "see the same page. 0.1 adds one gold HIT per nine real ones. Their cost is in the review's "
                "estimate. Needs active gold items of the task kind (Imports, or the gold items API)."}),
    "onboarding_items": ("Onboarding tasks per worker", {
        "type": "number", "placeholder": "0 (none)",
        "help": "Local and Prolific only: each worker first does this many onboarding items (known answers); "
                "those who score below the pass mark get no further task. Paid like other tasks, not in the "
                "estimate (it depends on how many workers come)."}),
    "onboarding_pass": ("Onboarding pass mark (0 to 1)", {
        "type": "number", "step": "0.05", "placeholder": "0.8",
        "help": "The mean onboarding score a worker needs to go on to real tasks."}),
    "pilot_items": ("Pilot: first items to several workers", {
        "type": "number", "placeholder": "0 (no pilot; e.g. 10)",
        "help": "These first items go to several workers each and are handed out first, so the quality page shows "
                "agreement (and a careless worker) after a few answers; the rest as set above."}),
    "pilot_assignments": ("Pilot: workers per item", {"type": "number", "placeholder": "3"}),
}


def _choice_field(post: QueryDict, errors: dict[str, list[str]], field_name: str, label: str, choice: ChoiceOption,
                  preview_param: str = "") -> FormField:
    """An option chosen from a list: the posted value, else the first choice (the default of a new campaign)."""
    value = post.get(field_name) or (choice.choices[0].value if choice.choices else "")
    return FormField(field_name, label, "select", value, errors.get(field_name, []), help=choice.help,
                     options=choice.choices, preview_param=preview_param)


def _kind_rows(post: QueryDict, errors: dict[str, list[str]],
               choices: dict[str, dict[str, ChoiceOption]]) -> list[dict[str, Any]]:
    rows = []
    for name in task_kind_names():
        kind = get_task_kind(name)
        options = []
        for option, default in kind.defaults.options.items():
            field_name = f"opt-{name}-{option}"
            if option in choices[name]:
                options.append(_choice_field(post, errors, field_name, option.replace("_", " "),
                                             choices[name][option]))
            elif isinstance(default, bool):
                value: Any = post.get(field_name) == "on" if post else default
                options.append(FormField(field_name, option.replace("_", " "), "check", value))
            else:
                numeric = isinstance(default, int | float)
                options.append(FormField(field_name, option.replace("_", " "), "number" if numeric else "text",
                                         post.get(field_name, ""), placeholder=str(default) or "(all)",
                                         step="any" if isinstance(default, float) else "",
                                         help=kind.option_help.get(option, "")))
        rows.append({"name": name, "kind": kind, "defaults": kind.defaults, "options": options,
                     "sources": [s.name for s in sources_for(name)] + ([STAGE_SOURCE] if takes_stage_output(name)
                                                                        else [])})
    return rows


def _source_rows(post: QueryDict) -> list[dict[str, Any]]:
    rows = []
    seen: dict[str, ItemSource] = {}
    for name in task_kind_names():
        for source in sources_for(name):
            seen.setdefault(source.name, source)
    for source in seen.values():
        kinds = sorted(k for k in task_kind_names() if source in sources_for(k))
        if source.filters:  # a selector: filters, what matches (one page), "select all matching"
            rows.append({**matching_row(source, post), "kinds": " ".join(kinds), "describe": ""})
            continue
        ticked = set(post.getlist(f"item-{source.name}"))
        page = source.choices(1) if source.selectable else None
        rows.append({"source": source, "kinds": " ".join(kinds), "page": page, "ticked": ticked,
                     "describe": "" if source.selectable else source.describe()})
    return rows


def _context(post: QueryDict, found: WizardInput | None, prefill: QueryDict | None = None) -> dict[str, Any]:
    """The form's context; `prefill` (a GET's query, e.g. a collection's "New campaign" link) chooses the items."""
    chosen = prefill if prefill is not None and not post else post
    errors = found.errors if found else {}
    flow = post.get("flow", SINGLE)
    provider = post.get("provider", default_provider_name())
    campaigns = list(Campaign.objects.exclude(status=CampaignStatus.CLOSED).order_by("-pk")
                     .values("pk", "name", "task_kind")[:SOURCE_CAMPAIGNS_SHOWN])
    stage_kinds = " ".join(k for k in task_kind_names() if takes_stage_output(k))
    flows = [{"name": SINGLE, "label": "One campaign", "blurb": "One task kind, one campaign.", "first_kind": "",
              "stages": {}, "switches": {}}]
    flows += [{"name": w.name, "label": w.label, "blurb": w.blurb, "first_kind": w.first_kind, "stages": w.stages,
               "switches": w.switches} for w in workflows()]
    choices = {name: get_task_kind(name).option_choices() for name in task_kind_names()}  # read once
    stage_rows = []
    for w in workflows():
        for stage, kind in w.stages.items():
            fields = [_choice_field(post, errors, f"stage-{stage}-opt-{option}", f"{stage}: {option.replace('_', ' ')}",
                                    choice, preview_param=f"opt-{kind}-{option}" if kind == w.first_kind else "")
                      for option, choice in choices[kind].items()]
            fields += [_field(post, errors, f"stage-{stage}-{f}", f"{stage}: {LABELS[f][0]}",
                              **{**LABELS[f][1], "placeholder": LABELS[f][1].get("placeholder", "the default")})
                       for f in STAGE_FIELDS]
            switch = next((keyword for keyword, (s, _) in w.switches.items() if s == stage), "")
            stage_rows.append({"workflow": w.name, "stage": stage, "kind": get_task_kind(kind), "fields": fields,
                               "switch": switch})
    requirements = {
        provider_name: [_field(post, errors, f"q-{r.key}", r.label, type=r.kind, help=r.help, choices=r.choices)
                        for r in requirement_fields(provider_name)]
        for provider_name in provider_names()
    }
    first_kind = post.get("kind") or "describe_image"
    return {
        "post": post,
        "errors": errors,
        "flow": flow,
        "flows": flows,
        "kinds": _kind_rows(post, errors, choices),
        "chosen_kind": first_kind,
        "sources": _source_rows(chosen),
        "chosen_source": chosen.get("source", ""),
        "stage_source": STAGE_SOURCE,
        "stage_kinds": stage_kinds,
        "source_campaigns": campaigns,
        "chosen_stage": post.get("source_stage", ""),
        "providers": provider_names(),
        "provider": provider,
        "requirements": requirements,
        "name_field": _field(post, errors, "name", "Campaign name"),
        "campaign_fields": [_field(post, errors, f, LABELS[f][0], **LABELS[f][1]) for f in CAMPAIGN_FIELDS],
        "gold_fields": [_field(post, errors, f, LABELS[f][0], **LABELS[f][1]) for f in GOLD_FIELDS],
        "pilot_fields": [_field(post, errors, f, LABELS[f][0], **LABELS[f][1]) for f in PILOT_FIELDS],
        "stage_rows": stage_rows,
        "switched": {k for k in post if k.startswith("switch-")},
        "other_errors": [m for key, ms in errors.items() if not _shown(key) for m in ms],
    }


def _shown(key: str) -> bool:
    """Errors shown next to a field of the form (the rest are listed at the top)."""
    return key in {"name", "kind", "source", "source_stage", "provider", "options", "qualifications"} \
        or key in CAMPAIGN_FIELDS or key in GOLD_FIELDS or key in PILOT_FIELDS or key.startswith("stage-")


@require_http_methods(["GET", "POST"])
@researcher_required
def index(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST `step`: "review" (a dry run), "edit" (back to the form), "filter" (the form again with
    the items' filters applied, without JavaScript), "draft" or "publish"."""
    if request.method == "GET":
        return render(request, "mturk/wizard/form.html", _context(QueryDict(), None, request.GET))
    post = request.POST
    step = post.get("step", "review")
    if step == "filter":
        return render(request, "mturk/wizard/form.html", _context(post, None))
    found = read_wizard(post, request.user)
    if step == "edit" or found.create is None:
        return render(request, "mturk/wizard/form.html", _context(post, found), status=200 if step == "edit" else 400)
    if step in ("draft", "publish"):
        try:
            created = create_and_maybe_publish(found.create, publish=step == "publish")
        except CampaignError as exc:
            found.error("__all__", str(exc))
            return render(request, "mturk/wizard/form.html", _context(post, found), status=400)
        created_first = next(iter(created.campaigns.values()))
        if created.publish_error:
            verdict = "Created:" if created.published_here else "Created, but not published:"
            messages.error(request, f"{verdict} {created.publish_error}")
        elif step == "publish":
            messages.success(request, f"Created and published {len(created.campaigns)} campaign(s).")
        else:
            messages.success(request, f"Created {len(created.campaigns)} draft campaign(s).")
        return redirect("campaign-page", pk=created_first.pk)
    try:
        plans = dry_run(found.create)
    except CampaignError as exc:
        found.error("__all__", str(exc))
        return render(request, "mturk/wizard/form.html", _context(post, found), status=400)
    first = plans[0]
    money = currency(first.campaign)
    hidden = [(key, value) for key in post if key not in ("step", "csrfmiddlewaretoken") for value in post.getlist(key)]
    return render(request, "mturk/wizard/review.html", {
        "plans": [(plan, _requirements_text(plan.campaign.qualifications)) for plan in plans], "hidden": hidden,
        "first": first, "workflow": found.flow != SINGLE,
        "spend": first.preview.within_budget.total, "money": money,
        "can_publish": all(p.preview.error is None for p in plans),
    })


def _requirements_text(spec: dict[str, Any]) -> str:
    """{"devices": ["desktop"], "estimated_minutes": 2} -> "devices: desktop; estimated_minutes: 2"."""
    return "; ".join(f"{key}: {', '.join(map(str, value)) if isinstance(value, list) else value}"
                     for key, value in (spec or {}).items())


def _sample(request: HttpRequest, kind: str) -> tuple[Sample | None, str]:
    """The first chosen item of a selection, else any suitable existing one."""
    source_name, item = request.GET.get("source", ""), request.GET.get("item", "")
    if source_name and item.isdigit():
        try:
            source = get_source(source_name)
        except UnknownItemSource:
            source = None
        if source is not None and source.selectable and source in sources_for(kind):
            try:
                return Sample(source.items(kind, [int(item)])[0]), ""
            except ValueError:
                pass
    return sample_for(kind)


def _preview_campaign(request: HttpRequest, kind_name: str, kind: TaskKind, sample: Sample) -> Campaign:
    found = WizardInput()
    options = {**kind.defaults.options, **read_options(request.GET, kind_name, found)}
    try:
        kind.clean_options(options)
    except ValueError:
        options = dict(kind.defaults.options)
    try:
        reward = Decimal(request.GET.get("reward") or kind.defaults.reward)
    except InvalidOperation:
        reward = kind.defaults.reward
    time_limit = request.GET.get("time_limit_seconds", "")
    return Campaign(
        name="Preview", task_kind=kind_name, provider=own_crowd().name, reward=reward,
        title=request.GET.get("title") or kind.defaults.title,
        instructions=request.GET.get("instructions") or kind.defaults.instructions,
        description=kind.defaults.description, options=options,
        time_limit_seconds=int(time_limit) if time_limit.isdigit() else kind.defaults.time_limit_seconds,
        assignments_per_hit=1, source_stage_id=sample.source_stage_id,
    )


@require_GET
@researcher_required
@xframe_options_sameorigin
def preview(request: HttpRequest) -> HttpResponse:
    """The worker's task page for the chosen kind, a sample item and the typed title, instructions and options
    (read-only, as the worker's preview), for the wizard's iframe. Researchers only; nothing is stored."""
    kind_name = request.GET.get("kind", "")
    try:
        kind = get_task_kind(kind_name)
    except UnknownTaskKind:
        raise Http404("unknown task kind") from None
    sample, missing = _sample(request, kind_name)
    if sample is not None:
        try:
            kind.validate_items([sample.item])
        except ValueError as exc:
            sample, missing = None, str(exc)
    if sample is None:
        return render(request, "mturk/wizard/preview_missing.html", {"kind": kind, "missing": missing})
    campaign = _preview_campaign(request, kind_name, kind, sample)
    hit = HIT(campaign=campaign, items=sample.item, position=1, max_assignments=1)
    return _render_task(request, campaign, hit, token=None, next_url=None)


@require_GET
@researcher_required
def choices(request: HttpRequest, source: str) -> HttpResponse:
    """One more page of a selection's choices (the form's "Show more" button appends it)."""
    try:
        item_source = get_source(source)
    except UnknownItemSource:
        raise Http404("unknown item source") from None
    page = request.GET.get("page", "1")
    number = int(page) if page.isdigit() and int(page) > 0 else 1
    return render(request, "mturk/wizard/choices.html",
                  {"row": {"source": item_source, "page": item_source.choices(number), "ticked": set()}})


urlpatterns: list[URLPattern] = [
    path("", index, name="campaign-wizard"),
    path("preview/", preview, name="campaign-wizard-preview"),
    path("choices/<str:source>/", choices, name="campaign-wizard-choices"),
    path("matching/<str:source>/", matching, name="campaign-wizard-matching"),
]
