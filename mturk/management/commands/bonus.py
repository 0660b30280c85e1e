"""`bonus`: the old name of `grant_bonus`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .grant_bonus import Command as GrantBonus


class Command(RenamedCommand, GrantBonus):
    old_name = "bonus"
    new_name = "grant_bonus"
