from django.apps import AppConfig


class StoryboardConfig(AppConfig):
    name = "storyboard"
    verbose_name = "Visual stories"

    def ready(self) -> None:
        # Registers the task kinds, export formats and importers, what the campaign wizard offers from this app and
        # its part of the demo data, and the albums' stories as test sets of human evaluation.
        from . import demo, export_formats, human_eval_sources, importers, item_sources, quality, task_kinds, workflows  # noqa: F401
