"""`review_rules`: the old name of `apply_review_rule`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .apply_review_rule import Command as ApplyReviewRule


class Command(RenamedCommand, ApplyReviewRule):
    old_name = "review_rules"
    new_name = "apply_review_rule"
