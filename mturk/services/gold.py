"""Gold and onboarding items: made, imported, mixed into a campaign's HITs, scored when an answer arrives.

A gold item is a HIT's items with a known answer. Mixed into a campaign (Campaign.gold_rate), it becomes an
ordinary HIT whose items are exactly the gold item's (the page cannot tell it apart) and whose `gold_item`
keeps the known answer on the server. Onboarding items (Campaign.onboarding_items) become HITs every worker
does once before their first real task (services.assignments routes them)."""
from __future__ import annotations

import logging
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from common.json_input import JsonInputError, parse_json

from ..measures import GOLD_PASS_MARK, get_quality, has_quality, quality_kind_names
from ..models import HIT, Assignment, Campaign, GoldItem
from ..models.quality import GoldPurpose
from ..selectors.quality_needs import GOLD_FROM_APPROVED, approved_for_gold
from ..states import AssignmentStatus
from ..task_kinds import UnknownTaskKind, get_task_kind

log = logging.getLogger(__name__)

GOLD_FAILED = "gold_failed"
NOTE_MAX = 200
IMPORT_MAX_LINES = 10_000
ONBOARDING_SLOTS = 32767  # an onboarding HIT takes every worker once (the largest PositiveSmallIntegerField)


class GoldError(ValueError):
    """A refused gold operation; the message is shown to the researcher (names the line of a file)."""

    def __init__(self, message: str, errors: list[str] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or [message]


def _check_kind(task_kind: str) -> None:
    try:
        get_task_kind(task_kind)
    except UnknownTaskKind as exc:
        raise GoldError(str(exc)) from None
    if not has_quality(task_kind):
        raise GoldError(f"task kind '{task_kind}' has no gold scoring; gold items can be made for: "
                        f"{', '.join(quality_kind_names()) or 'none'}")


def _check_purpose(purpose: str) -> None:
    if purpose not in GoldPurpose.values:
        raise GoldError(f"unknown purpose '{purpose}' (use {' or '.join(GoldPurpose.values)})")


UNMATCHABLE = "no answer a campaign with {settings} accepts can match it"


def gold_options(task_kind: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The task-kind options gold items are checked against at import: the kind's defaults, with `options` (the
    settings of the campaigns they are meant for) over them, checked as a campaign's are."""
    if options is not None and not isinstance(options, dict):
        raise GoldError("options must be a JSON object of the task kind's options")
    kind = get_task_kind(task_kind)
    merged = {**kind.defaults.options, **(options or {})}
    try:
        kind.clean_options(merged)
    except ValueError as exc:
        raise GoldError(f"options: {exc}") from None
    return merged


def _settings(options: dict[str, Any] | None) -> str:
    return "these options" if options else "the default options"


def _cleaned(task_kind: str, items: Any, answer: Any, note: Any) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(items, known answer, note) checked by the task kind and its quality; GoldError says what is wrong."""
    if not isinstance(items, dict):
        raise GoldError("'items' must be a JSON object (a HIT's items, e.g. {\"image\": 12})")
    if not isinstance(note, str):
        raise GoldError("'note' must be a text")
    if len(note) > NOTE_MAX:
        raise GoldError(f"'note' has {len(note)} characters; at most {NOTE_MAX}")
    try:
        get_task_kind(task_kind).validate_items([items])
    except ValueError as exc:
        raise GoldError(f"items: {exc}") from None
    try:
        known = get_quality(task_kind).clean_gold(items, answer)
    except ValueError as exc:
        raise GoldError(f"answer: {exc}") from None
    return items, known, note.strip()


def create_gold_item(*, task_kind: str, items: dict[str, Any], answer: Any, purpose: str = "gold", note: str = "",
                     user: Any = None, options: dict[str, Any] | None = None) -> GoldItem:
    """Check items (TaskKind.validate_items) and the known answer (KindQuality.clean_gold, and that an answer can
    match it under the kind's default options, or `options`: TaskKind.gold_problems), then store."""
    _check_kind(task_kind)
    _check_purpose(purpose)
    settings = gold_options(task_kind, options)
    items, known, note = _cleaned(task_kind, items, answer, note)
    kind = get_task_kind(task_kind)
    problem = kind.gold_problems(settings, [(items, known)])[0]
    if problem:
        raise GoldError(f"answer: {UNMATCHABLE.format(settings=_settings(options))}: {problem}")
    return GoldItem.objects.create(task_kind=task_kind, purpose=purpose, items=items, answer=known, note=note,
                                   scope=kind.gold_scope(settings), created_by=_user(user))


def _user(user: Any) -> Any:
    return user if user is not None and getattr(user, "is_authenticated", False) else None


def gold_from_assignment(assignment: Assignment, *, purpose: str = "gold", user: Any = None) -> GoldItem:
    """A gold item made from an approved answer: the HIT's items, the answer as known answer.

    Marking the same answer twice for the same purpose returns the item made the first time."""
    _check_purpose(purpose)
    hit = assignment.hit
    task_kind = hit.campaign.task_kind
    _check_kind(task_kind)
    if assignment.status != AssignmentStatus.APPROVED:
        raise GoldError(f"assignment {assignment.pk} is {assignment.status}: only approved answers can become gold")
    if hit.gold_item_id is not None:
        raise GoldError(f"assignment {assignment.pk} answers a gold HIT: its known answer is already gold item "
                        f"{hit.gold_item_id}")
    if not isinstance(assignment.answer, dict):
        raise GoldError(f"assignment {assignment.pk} has no stored answer")
    existing = GoldItem.objects.filter(source_assignment=assignment, purpose=purpose).first()
    if existing is not None:
        return existing
    try:
        known = get_quality(task_kind).gold_from_answer(hit.items, assignment.answer)
    except ValueError as exc:
        raise GoldError(f"answer: {exc}") from None
    return GoldItem.objects.create(
        task_kind=task_kind, purpose=purpose, items=hit.items, answer=known, source_assignment=assignment,
        note=f"approved answer of assignment {assignment.pk} (campaign {hit.campaign_id})"[:NOTE_MAX],
        created_by=_user(user),
    )


def gold_from_approved(campaign: Campaign, limit: int = GOLD_FROM_APPROVED, *, user: Any = None) -> list[GoldItem]:
    """Gold items of the campaign's task kind made from up to `limit` of its approved answers (approved_for_gold:
    one per item, the most agreed-with first), each as `gold_from_assignment` makes it. Items already made gold
    from this campaign are skipped, so running it again makes the next ones."""
    if not 1 <= limit <= 1000:
        raise GoldError("make 1 to 1000 gold items at a time")
    _check_kind(campaign.task_kind)
    chosen: list[Assignment] = []
    seen: set[int] = set()
    for assignment in approved_for_gold(campaign).select_related("hit__campaign").iterator(chunk_size=200):
        if assignment.hit_id in seen:
            continue
        seen.add(assignment.hit_id)
        chosen.append(assignment)
        if len(chosen) >= limit:
            break
    if not chosen:
        raise GoldError(f"campaign '{campaign.name}' has no approved answer that is not gold already: approve "
                        "some answers in the review first")
    made: list[GoldItem] = []
    with transaction.atomic():
        for assignment in chosen:
            try:
                made.append(gold_from_assignment(assignment, user=user))
            except GoldError as exc:
                log.info("approved answer %s not made gold: %s", assignment.pk, exc)
    if not made:
        raise GoldError("none of the approved answers could be made a known answer")
    return made


def set_gold_active(gold_item: GoldItem, active: bool) -> GoldItem:
    """Whether new campaigns (and HITs added later) mix it in; HITs already made from it keep it."""
    if gold_item.active != active:
        gold_item.active = active
        gold_item.save(update_fields=["active"])
    return gold_item


@dataclass(frozen=True)
class _Line:
    number: int
    items: dict[str, Any]
    answer: Any
    note: str


def _parse_line(number: int, text: str) -> _Line:
    try:
        row = parse_json(text)  # the platform's JSON limits, per line
    except JsonInputError as exc:
        raise GoldError(f"not accepted as JSON: {exc}") from None
    if not isinstance(row, dict):
        raise GoldError('expected an object {"items": {...}, "answer": ..., "note": "..."}')
    unknown = sorted(set(row) - {"items", "answer", "note"})
    if unknown:
        raise GoldError(f"unknown key(s) {', '.join(unknown)} (expected items, answer, note)")
    missing = [key for key in ("items", "answer") if key not in row]
    if missing:
        raise GoldError(f"missing {' and '.join(missing)}")
    return _Line(number, row["items"], row["answer"], row.get("note", ""))


def import_gold_lines(task_kind: str, lines: Iterable[str], purpose: str = "gold", user: Any = None,
                      options: dict[str, Any] | None = None) -> list[GoldItem]:
    """Gold items from JSON Lines, one {"items": {...}, "answer": ..., "note": "..."} per line (blank lines are
    skipped). All or nothing: every line is checked first, its known answer also against the kind's default options
    (or `options`: the settings of the campaigns the items are for; TaskKind.gold_problems); any problem raises
    GoldError whose `errors` name the line ("line 3: ..."), and nothing is written."""
    _check_kind(task_kind)
    _check_purpose(purpose)
    settings = gold_options(task_kind, options)
    errors: list[str] = []
    checked: list[tuple[dict[str, Any], dict[str, Any], str]] = []
    numbers: list[int] = []
    count = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        count += 1
        if count > IMPORT_MAX_LINES:
            errors.append(f"line {number}: more than {IMPORT_MAX_LINES} gold items in one file; split it")
            break
        try:
            line = _parse_line(number, text)
            checked.append(_cleaned(task_kind, line.items, line.answer, line.note))
            numbers.append(number)
        except GoldError as exc:
            errors.append(f"line {number}: {exc}")
    problems = get_task_kind(task_kind).gold_problems(settings, [(items, known) for items, known, _ in checked])
    errors += [f"line {number}: answer: {UNMATCHABLE.format(settings=_settings(options))}: {problem}"
               for number, problem in zip(numbers, problems, strict=True) if problem]
    errors.sort(key=lambda error: int(error.split(":", 1)[0].removeprefix("line ")))
    if not errors and not checked:
        errors.append("line 1: the file holds no gold item")
    if errors:
        raise GoldError(f"{len(errors)} problem(s); nothing was imported: {errors[0]}", errors)
    creator = _user(user)
    with transaction.atomic():
        return GoldItem.objects.bulk_create([
            GoldItem(task_kind=task_kind, purpose=purpose, items=items, answer=known, note=note, created_by=creator)
            for items, known, note in checked
        ])


def score_submission(campaign: Campaign, hit: HIT, answer: dict[str, Any]) -> tuple[float | None, list[str]]:
    """The gold score of an answer to a HIT (None when the HIT carries no gold) and the flags it adds
    (["gold_failed"] below mturk.measures.GOLD_PASS_MARK).

    A gold or onboarding HIT is scored against its gold item's known answer (read with the HIT: the submission
    selects it in its one statement); a real HIT by the gold parts its items may carry (judge_caption's pairs).
    No query for a real HIT."""
    if not has_quality(campaign.task_kind):
        return None, []
    quality = get_quality(campaign.task_kind)
    options = get_task_kind(campaign.task_kind).options(campaign)
    try:
        if hit.gold_item_id is not None:
            gold = hit.gold_item
            assert gold is not None
            score: float | None = quality.score_gold(options, hit.items, gold.answer, answer)
        else:
            score = quality.score_inline_gold(options, hit.items, answer)
    except Exception:  # a fault in a kind's scoring must not lose the worker's answer: stored unscored, logged
        log.exception("gold scoring of an answer to HIT %s (%s) failed", hit.pk, campaign.task_kind)
        return None, []
    if score is None:
        return None, []
    score = float(score)
    return score, [GOLD_FAILED] if score < GOLD_PASS_MARK else []


def with_flags(flags: list[str], more: list[str]) -> list[str]:
    """`flags` followed by those of `more` not already present."""
    return flags + [flag for flag in more if flag not in flags]


# --- mixing gold HITs into a campaign (services.campaigns.add_hits) -----------------------------------------------


def gold_share(real: int, rate: float) -> int:
    """How many gold HITs make `rate` of real + gold: round(real * rate / (1 - rate)), halves rounded up."""
    if rate <= 0 or real <= 0:
        return 0
    return math.floor(real * rate / (1 - rate) + 0.5 + 1e-9)


def active_gold(task_kind: str, purpose: str = GoldPurpose.GOLD, scope: str = "") -> list[GoldItem]:
    """The active gold items of a kind, purpose and scope (GoldItem.scope), in id order."""
    return list(GoldItem.objects.filter(task_kind=task_kind, purpose=purpose, scope=scope, active=True)
                .order_by("id"))


def gold_scope_of(campaign: Campaign) -> str:
    """The scope of the gold items the campaign takes (TaskKind.gold_scope of its options)."""
    kind = get_task_kind(campaign.task_kind)
    return kind.gold_scope(kind.options(campaign))


def unmatchable_gold(task_kind: str, options: dict[str, Any], items: list[GoldItem]) -> list[str]:
    """"gold item <id>: <why>" for each item whose known answer no answer accepted under `options` can match."""
    problems = get_task_kind(task_kind).gold_problems(options, [(item.items, item.answer) for item in items])
    return [f"{item.purpose} item {item.pk}: {problem}" for item, problem in zip(items, problems, strict=True)
            if problem]


def check_gold_settings(task_kind: str, provider: Any, gold_rate: float, onboarding_items: int,
                        options: dict[str, Any] | None = None) -> None:
    """Refuse (GoldError) a campaign asking for gold or onboarding it cannot have: among it, active gold items (and
    the onboarding items it would take) whose known answer no answer can match under the campaign's task-kind
    `options` (TaskKind.gold_problems); every such item is named."""
    if gold_rate > 0 or onboarding_items > 0:
        if not has_quality(task_kind):
            raise GoldError(f"task kind '{task_kind}' has no gold scoring, so it cannot take gold or onboarding "
                            f"items; kinds that can: {', '.join(quality_kind_names()) or 'none'}")
    kind = get_task_kind(task_kind)
    scope = kind.gold_scope({**kind.defaults.options, **(options or {})})
    if gold_rate > 0 and not GoldItem.objects.filter(task_kind=task_kind, purpose=GoldPurpose.GOLD, scope=scope,
                                                     active=True).exists():
        raise GoldError(f"a gold rate of {gold_rate:g} needs active gold items of {task_kind}; there are none "
                        "(add some under /api/gold-items/, with import_gold, or from the review)")
    if onboarding_items > 0:
        if provider.creates_hits:
            raise GoldError(f"{provider.name} hands out its HITs itself, so it cannot route a worker to onboarding "
                            "items first; onboarding needs a provider whose workers this server routes (local, "
                            "prolific)")
        active = GoldItem.objects.filter(task_kind=task_kind, purpose=GoldPurpose.ONBOARDING, scope=scope,
                                         active=True).count()
        if active < onboarding_items:
            raise GoldError(f"{onboarding_items} onboarding item(s) asked for, but {task_kind} has {active} active "
                            "onboarding gold item(s)")
    if options is None or not (gold_rate > 0 or onboarding_items > 0):
        return
    used = (active_gold(task_kind, scope=scope) if gold_rate > 0 else []) + (
        active_gold(task_kind, GoldPurpose.ONBOARDING, scope)[:onboarding_items])
    problems = unmatchable_gold(task_kind, options, used)
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise GoldError(f"{len(problems)} gold item(s) cannot be matched by any answer under this campaign's "
                        f"settings (deactivate them or change the settings): {shown}", problems)


def mix_gold(campaign: Campaign, real: list[HIT], real_before: int, gold_before: int, group_of: Any,
             require: bool = True) -> list[HIT]:
    """`real` (new HITs, not saved, in order) with the campaign's gold HITs interleaved at random positions,
    enough to keep the gold share of all its HITs at Campaign.gold_rate; positions are set from the first
    of `real`. The random positions come from a generator seeded by the campaign id (and this batch's first
    position), so a campaign is mixed the same way every time. The gold items are cycled in id order,
    continuing where the campaign's previous batch stopped. `require`: no active gold item is a GoldError
    (False: the batch is taken without gold, e.g. an item fed by a stage)."""
    if not real:
        return real
    start = real[0].position
    wanted = gold_share(real_before + len(real), campaign.gold_rate) - gold_before
    if wanted <= 0:
        return real
    items = active_gold(campaign.task_kind, scope=gold_scope_of(campaign))
    if not items:
        if require:
            raise GoldError(f"campaign '{campaign.name}' mixes in gold items (rate {campaign.gold_rate:g}) but "
                            f"{campaign.task_kind} has no active gold item left")
        return real
    rng = random.Random(f"gold:{campaign.pk}:{start}")
    total = len(real) + wanted
    gold_slots = set(rng.sample(range(total), wanted))
    mixed: list[HIT] = []
    real_iter = iter(real)
    used = 0
    for index in range(total):
        if index in gold_slots:
            gold = items[(gold_before + used) % len(items)]
            used += 1
            hit = HIT(campaign=campaign, items=gold.items, gold_item=gold, group=group_of(gold.items) or "",
                      max_assignments=campaign.assignments_per_hit)
        else:
            hit = next(real_iter)
        hit.position = start + index
        mixed.append(hit)
    return mixed


def onboarding_hits(campaign: Campaign, start: int) -> list[HIT]:
    """The campaign's onboarding HITs (not saved): its first `onboarding_items` active onboarding items, each
    taken by every worker once."""
    if campaign.onboarding_items <= 0:
        return []
    items = active_gold(campaign.task_kind, GoldPurpose.ONBOARDING, gold_scope_of(campaign))[:campaign.onboarding_items]
    return [HIT(campaign=campaign, items=gold.items, gold_item=gold, onboarding=True, max_assignments=ONBOARDING_SLOTS,
                position=start + index) for index, gold in enumerate(items)]
