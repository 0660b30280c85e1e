"""`quality_needs`: the old name of `show_quality_needs`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .show_quality_needs import Command as ShowQualityNeeds


class Command(RenamedCommand, ShowQualityNeeds):
    old_name = "quality_needs"
    new_name = "show_quality_needs"
