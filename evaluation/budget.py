"""What launching a human evaluation would take (reads only): its HITs, assignments and judgements, attention HITs,
the cost with the provider's fees (mturk.services.campaigns.hit_cost: the reward plus the provider's
assignment_fee, whose tier can depend on the assignments per HIT), and the precision to expect.

The expected half-width of the 95% interval (normal approximation, 1.96 standard errors):

- rating, a system's mean rating on the first aspect: 1.96 * sqrt(s_item^2 + s_judge^2 / judges) / sqrt(items),
  where s_item is the spread of the true item means of a system and s_judge the spread of judges' ratings of one
  output. Assumed: items independent, judges exchangeable, the same spreads for every system. Both are estimated
  from the evaluation's approved judgements on the first aspect when at least two outputs have two ratings each
  (s_judge^2 the pooled within-output variance; s_item^2 the variance of the outputs' mean ratings less
  s_judge^2 over the mean ratings per output, at least 0); otherwise the defaults for an n-point scale:
  s_item^2 = s_judge^2 = (n^2 - 1) / 24, half each of the variance of ratings spread evenly over the scale
  ((n^2 - 1) / 12: 2 on 5 points), a cautious guess.
- pairwise, a system's win rate against another: 1.96 * sqrt(0.25 / (items * judges)), the widest binomial
  interval (a win rate of 0.5), counting each judgement as independent (judges and items not clustered) and ties
  as half a win."""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from decimal import Decimal

from mturk.models import Campaign
from mturk.providers.base import money
from mturk.providers.registry import default_provider_name, get_provider
from mturk.services.campaigns import hit_cost
from mturk.services.gold import gold_share
from mturk.task_kinds import get_task_kind

from .aspects import ASPECTS
from .models import Design, EvaluatedSystem, HumanEvaluation, HumanJudgement
from .services.evaluations import EvaluationError

Z95 = 1.96


@dataclass(frozen=True)
class Budget:
    provider: str
    systems: int  # judged systems (uploaded, and the reference when judged)
    items: int
    hits: int  # real HITs
    attention_hits: int
    assignments: int  # (hits + attention_hits) * judges
    judgements: int  # judgements the real assignments give (outputs or pairs x aspects)
    reward: Decimal
    fee_per_assignment: Decimal | None  # None: the provider's fees are not known without asking the marketplace
    cost: Decimal | None  # rewards and fees of every assignment
    half_width: float | None  # expected half-width of the 95% interval (see the module docstring)
    half_width_of: str  # what it is the half-width of
    assumptions: list[str] = field(default_factory=list)


def _judged(evaluation: HumanEvaluation) -> int:
    roles = [EvaluatedSystem.Role.SYSTEM] + ([EvaluatedSystem.Role.REFERENCE] if evaluation.include_reference else [])
    return evaluation.systems.filter(role__in=roles).count()


def rating_spreads(evaluation: HumanEvaluation) -> tuple[float, float, str]:
    """(s_item, s_judge, where they come from) for the first aspect (see the module docstring)."""
    aspect = evaluation.aspects[0] if evaluation.aspects else ""
    by_output: dict[int, list[int]] = {}
    for output, value in (HumanJudgement.objects.filter(evaluation=evaluation, aspect=aspect, value__isnull=False)
                          .values_list("output_id", "value").iterator(chunk_size=5000)):
        if value is not None:
            by_output.setdefault(output, []).append(value)
    groups = [values for values in by_output.values() if len(values) >= 2]
    if len(groups) >= 2:
        within = math.fsum(statistics.variance(g) * (len(g) - 1) for g in groups) / sum(len(g) - 1 for g in groups)
        per_output = statistics.fmean(len(g) for g in groups)
        between = max(0.0, statistics.variance([statistics.fmean(g) for g in groups]) - within / per_output)
        return math.sqrt(between), math.sqrt(within), f"estimated from {sum(map(len, groups))} ratings so far"
    points = len(ASPECTS[aspect].scale) if aspect in ASPECTS else 5
    default = math.sqrt((points ** 2 - 1) / 24)
    return default, default, f"defaults for a {points}-point scale, (n^2 - 1) / 24 each"


def estimate(evaluation: HumanEvaluation, *, reward: Decimal | None = None, provider: str | None = None) -> Budget:
    """The budget of launching the evaluation now with this reward per assignment (default: the task kind's) on
    this provider; EvaluationError for an unknown provider, or no reward while the task kind is not known."""
    from .services.plan import COMPARE_KIND, RATE_KIND

    provider = default_provider_name() if provider is None else provider
    try:
        crowd = get_provider(provider)
    except LookupError as exc:
        raise EvaluationError(f"provider: {exc.args[0] if exc.args else exc}") from None
    kind = RATE_KIND if evaluation.design == Design.RATING else COMPARE_KIND
    if reward is None:
        try:
            reward = get_task_kind(kind).defaults.reward
        except LookupError:
            raise EvaluationError(f"reward: give the reward per assignment ({kind} is not available)") from None
    if reward < 0:
        raise EvaluationError("reward: must be at least 0")
    systems, items, judges = _judged(evaluation), evaluation.items.count(), evaluation.judges
    aspects = max(1, len(evaluation.aspects))
    rating = evaluation.design == Design.RATING
    hits = items if rating else items * (systems * (systems - 1) // 2)
    attention = gold_share(hits, evaluation.attention_rate)
    assignments = (hits + attention) * judges
    judgements = hits * judges * aspects * (systems if rating else 1)
    campaign = Campaign(name="budget", task_kind=kind, provider=provider, reward=money(Decimal(reward)),
                        assignments_per_hit=judges)
    fee = cost = None
    assumptions: list[str] = []
    if crowd.fees_known(campaign):
        fee = money(crowd.assignment_fee(campaign, judges))
        cost = hit_cost(campaign, crowd, judges) * (hits + attention)
    else:
        assumptions.append(f"{provider}'s fees are not known without asking the marketplace: the cost is left out")
    if not items or (systems < 2):
        assumptions.append("fewer than 2 judged systems: nothing to plan yet")
    if rating:
        s_item, s_judge, source = rating_spreads(evaluation)
        half = Z95 * math.sqrt(s_item ** 2 + s_judge ** 2 / judges) / math.sqrt(items) if items else None
        of = "a system's mean rating on the first aspect"
        assumptions += [f"1.96 * sqrt(s_item^2 + s_judge^2 / judges) / sqrt(items) with s_item {s_item:.3f} and "
                        f"s_judge {s_judge:.3f} ({source})", "items independent, judges exchangeable"]
    else:
        half = Z95 * math.sqrt(0.25 / (items * judges)) if items else None
        of = "a system's win rate against another system"
        assumptions += ["1.96 * sqrt(0.25 / (items * judges)): a win rate of 0.5 (the widest), every judgement "
                        "independent, ties as half a win"]
    return Budget(provider=provider, systems=systems, items=items, hits=hits, attention_hits=attention,
                  assignments=assignments, judgements=judgements, reward=money(Decimal(reward)),
                  fee_per_assignment=fee, cost=cost, half_width=half, half_width_of=of, assumptions=assumptions)
