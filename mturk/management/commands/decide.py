"""`decide`: the old name of `decide_assignment`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .decide_assignment import Command as DecideAssignment


class Command(RenamedCommand, DecideAssignment):
    old_name = "decide"
    new_name = "decide_assignment"
