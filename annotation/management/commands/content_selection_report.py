"""`content_selection_report`: the old name of `report_content_selection`, kept for one release."""
from common.renamed_commands import RenamedCommand

from .report_content_selection import Command as ReportContentSelection


class Command(RenamedCommand, ReportContentSelection):
    old_name = "content_selection_report"
    new_name = "report_content_selection"
