"""`review`: the old name of `review_submissions`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .review_submissions import Command as ReviewSubmissions


class Command(RenamedCommand, ReviewSubmissions):
    old_name = "review"
    new_name = "review_submissions"
