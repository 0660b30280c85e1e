"""`expire`: the old name of `expire_hits`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .expire_hits import Command as ExpireHits


class Command(RenamedCommand, ExpireHits):
    old_name = "expire"
    new_name = "expire_hits"
