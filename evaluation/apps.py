from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    label = "evaluation"
    verbose_name = "Human evaluation"

    def ready(self) -> None:
        # Registers the task kinds and their quality measures, the demo part, the scoring job's task and the
        # collections as test sets; the other capabilities register their own test sets with evaluation.registry.
        from . import registrations  # noqa: F401
