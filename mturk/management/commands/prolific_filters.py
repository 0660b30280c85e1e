"""`prolific_filters`: the old name of `list_prolific_filters`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .list_prolific_filters import Command as ListProlificFilters


class Command(RenamedCommand, ListProlificFilters):
    old_name = "prolific_filters"
    new_name = "list_prolific_filters"
