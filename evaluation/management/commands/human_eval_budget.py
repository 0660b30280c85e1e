"""The old name of estimate_human_eval, kept for one release: it runs that command and says so on stderr."""
from typing import Any

from .estimate_human_eval import Command as EstimateHumanEval


class Command(EstimateHumanEval):
    help = "Deprecated name of estimate_human_eval (removed in the next release). " + EstimateHumanEval.help

    def handle(self, *args: Any, **options: Any) -> None:
        self.stderr.write("human_eval_budget is deprecated: use estimate_human_eval (the old name goes in the next "
                          "release)")
        super().handle(*args, **options)
