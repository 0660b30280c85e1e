"""`concept_pairs`: the old name of `manage_concept_pairs`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .manage_concept_pairs import Command as ManageConceptPairs


class Command(RenamedCommand, ManageConceptPairs):
    old_name = "concept_pairs"
    new_name = "manage_concept_pairs"
