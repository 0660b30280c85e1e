from django.core.management.base import BaseCommand, CommandError

from ...models import Assignment
from ...services.review import ReviewError, approve_assignment, reject_assignment
from ...states import InvalidTransition


class Command(BaseCommand):
    help = ("Approve or reject one assignment. Approving a rejected assignment overrides the rejection; "
            "rejecting needs --feedback telling the worker why.")

    def add_arguments(self, parser):
        parser.add_argument("assignment_id", type=int, help="our assignment id")
        decision = parser.add_mutually_exclusive_group(required=True)
        decision.add_argument("--approve", action="store_true", help="approve the work")
        decision.add_argument("--reject", action="store_true", help="reject the work (needs --feedback)")
        parser.add_argument("--feedback", default="", help="message to the worker")
        parser.add_argument("--category", default="",
                            help="rejection category where the marketplace has them (Prolific: e.g. LOW_EFFORT, "
                                 "FAILED_INSTRUCTIONS, NO_DATA; its rejection messages need 100 characters)")

    def handle(self, *args, assignment_id: int, approve: bool, reject: bool, feedback: str, category: str,
               **options):
        assignment = Assignment.objects.filter(pk=assignment_id).first()
        if assignment is None:
            raise CommandError(f"no assignment numbered {assignment_id}")
        try:
            if approve:
                decided = approve_assignment(assignment, feedback)
            else:
                decided = reject_assignment(assignment, feedback, category=category)
        except (ReviewError, InvalidTransition) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Assignment {decided.pk} is {decided.status}.")
