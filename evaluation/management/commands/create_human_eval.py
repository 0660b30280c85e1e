from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ...services.evaluations import EvaluationError, create_evaluation


class Command(BaseCommand):
    help = ("Create a human evaluation of a test set (`--test-set SOURCE:KEY`, e.g. image_set:3, test_pool:1, "
            "compositional:5 or albums:test): its items and references are stored, with the human reference and "
            "the attention checks' corrupted outputs when every item has a reference. Upload systems' outputs "
            "next (upload_outputs).")

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--test-set", required=True, help="SOURCE:KEY")
        parser.add_argument("--design", default="rating", choices=["rating", "pairwise"])
        parser.add_argument("--aspect", action="append", default=[],
                            help="a question or a preset (repeatable; the first is the overall question)")
        parser.add_argument("--judges", type=int, default=3, help="judges per output (rating) or pair (pairwise)")
        parser.add_argument("--no-reference", action="store_true", help="do not judge the human reference")
        parser.add_argument("--attention-rate", type=float, default=0.1, help="share of attention HITs (0: none)")
        parser.add_argument("--seed", default="human-eval")

    def handle(self, *args: Any, name: str, test_set: str, design: str, aspect: list[str], judges: int,
               no_reference: bool, attention_rate: float, seed: str, **options: Any) -> None:
        try:
            evaluation = create_evaluation(name=name, test_set=test_set, design=design, aspects=aspect, judges=judges,
                                           include_reference=not no_reference, attention_rate=attention_rate,
                                           seed=seed)
        except EvaluationError as exc:
            raise CommandError(str(exc)) from None
        systems = ", ".join(evaluation.systems.values_list("name", flat=True)) or "none yet"
        self.stdout.write(f"created human evaluation '{evaluation.name}' (id {evaluation.pk}): "
                          f"{evaluation.items.count()} {evaluation.output_kind} items of {evaluation.test_set_label}, "
                          f"{evaluation.design}, aspects {', '.join(evaluation.aspects)}; systems: {systems}")
