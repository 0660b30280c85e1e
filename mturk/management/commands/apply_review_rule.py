from django.core.management.base import BaseCommand, CommandError

from ...models import QualityRule
from ...quality.services.review_rules.applying import apply_rule
from ...quality.services.review_rules.planning import plan_rule
from ...quality.services.review_rules.rule import RuleError
from ._common import find_campaign


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


class Command(BaseCommand):
    help = ("A campaign's review rule (worker quality): without options, print the rule; --preview prints what "
            "applying it now would do (from the stored scores, nothing changed); --apply computes quality and "
            "applies it (each decision once, audited).")

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name or id")
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--preview", action="store_true", help="print the plan without changing anything")
        action.add_argument("--apply", action="store_true", help="apply the rule now")

    def handle(self, *args, campaign: str, preview: bool, apply: bool, **options):
        target = find_campaign(campaign)
        rule = QualityRule.objects.filter(campaign=target).first()
        if rule is None:
            raise CommandError(f"campaign '{target.name}' has no review rule (set one in the console or with "
                               f"PUT /api/campaigns/{target.pk}/review-rule/)")
        if apply:
            self._apply(target)
        elif preview:
            self._preview(target)
        else:
            self._show(rule)

    def _show(self, rule: QualityRule) -> None:
        self.stdout.write(f"Review rule of '{rule.campaign.name}' ({'enabled' if rule.enabled else 'disabled'} "
                          "for the periodic review job)")
        bounds = [("approve when gold accuracy >=", rule.approve_min_gold),
                  ("approve when agreement >=", rule.approve_min_agreement),
                  ("reject when gold accuracy <", rule.reject_below_gold),
                  ("reject when agreement <", rule.reject_below_agreement)]
        for label, value in bounds:
            if value is not None:
                self.stdout.write(f"  {label} {value:g}")
        self.stdout.write(f"  gold bounds need {rule.min_gold_items} scored gold item(s); agreement bounds "
                          f"{rule.min_items} compared item(s)")
        if rule.reject_message:
            category = f" [{rule.reject_category}]" if rule.reject_category else ""
            self.stdout.write(f"  rejection message{category}: {rule.reject_message}")
        if rule.bonus_top_share:
            self.stdout.write(f"  bonus ${rule.bonus_amount} to the top {rule.bonus_top_share:.0%} of workers: "
                              f"{rule.bonus_reason}")

    def _preview(self, campaign) -> None:
        plan = plan_rule(campaign)
        when = plan.computed_at.isoformat(timespec="seconds") if plan.computed_at else "never"
        self.stdout.write(f"Plan for '{campaign.name}' (scores computed: {when})")
        self.stdout.write(f"Approve: {plan.approve}  Reject: {plan.reject}  Bonus: {plan.bonus}  "
                          f"Left to a person: {plan.left}  Cost: ${plan.cost}")
        for decision in [*plan.decisions, *plan.leaves]:
            evidence = decision.evidence
            target = f"assignment {decision.assignment_id}" if decision.assignment_id else ""
            amount = f" ${decision.amount}" if decision.amount is not None else ""
            gold = _figure(evidence.get("gold_accuracy"))
            self.stdout.write(
                f"  {decision.action:<7} {decision.worker} {target}{amount}: gold {gold}"
                f" ({evidence.get('gold_items', 0)}), agreement {_figure(evidence.get('agreement'))}"
                f" ({evidence.get('compared_items', 0)}); {'; '.join(evidence.get('why', []))}")
        for problem in plan.problems:
            self.stdout.write(f"Problem: {problem}")

    def _apply(self, campaign) -> None:
        try:
            result = apply_rule(campaign, source="command")
        except RuleError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Applied the review rule of '{campaign.name}': {result.done} done, "
                          f"{result.skipped} skipped (decided already), {len(result.failed)} failed")
        for key, why in result.failed.items():
            self.stdout.write(f"  {key}: {why}")
        if result.failed:
            raise CommandError(f"{len(result.failed)} decision(s) failed; apply again to retry them")
