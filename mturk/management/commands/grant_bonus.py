from decimal import Decimal, InvalidOperation

from django.core.management.base import BaseCommand, CommandError

from ...models import Assignment
from ...services.review import ReviewError, grant_bonus


class Command(BaseCommand):
    help = ("Pay a worker a bonus on one submitted or approved assignment. The reason is shown to the worker; "
            "a bonus the marketplace refuses stays recorded and is retried later.")

    def add_arguments(self, parser):
        parser.add_argument("assignment_id", type=int, help="our assignment id")
        parser.add_argument("amount", help="bonus in dollars, e.g. 0.25")
        parser.add_argument("--reason", required=True, help="why the bonus is paid (shown to the worker)")

    def handle(self, *args, assignment_id: int, amount: str, reason: str, **options):
        try:
            value = Decimal(amount)
        except InvalidOperation:
            raise CommandError(f"'{amount}' is not an amount of money (e.g. 0.25)") from None
        if not value.is_finite():
            raise CommandError(f"'{amount}' is not an amount of money (e.g. 0.25)")
        assignment = Assignment.objects.select_related("hit__campaign").filter(pk=assignment_id).first()
        if assignment is None:
            raise CommandError(f"no assignment numbered {assignment_id}")
        try:
            bonus = grant_bonus(assignment, value, reason)
        except ReviewError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Bonus {bonus.pk}: ${bonus.amount} on assignment {assignment.pk}, "
                          + ("paid" if bonus.paid else "not paid yet"))
