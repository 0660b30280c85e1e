"""The old name of report_human_eval, kept for one release: it runs that command and says so on stderr."""
from typing import Any

from .report_human_eval import Command as ReportHumanEval


class Command(ReportHumanEval):
    help = "Deprecated name of report_human_eval (removed in the next release). " + ReportHumanEval.help

    def handle(self, *args: Any, **options: Any) -> None:
        self.stderr.write("human_eval_report is deprecated: use report_human_eval (the old name goes in the next "
                          "release)")
        super().handle(*args, **options)
