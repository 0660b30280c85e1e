"""`prolific_hooks`: the old name of `manage_prolific_hooks`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .manage_prolific_hooks import Command as ManageProlificHooks


class Command(RenamedCommand, ManageProlificHooks):
    old_name = "prolific_hooks"
    new_name = "manage_prolific_hooks"
