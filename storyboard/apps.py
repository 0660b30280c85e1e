from django.apps import AppConfig


class StoryboardConfig(AppConfig):
    name = "storyboard"
    verbose_name = "Visual stories"

    def ready(self) -> None:
        from . import export_formats, importers, task_kinds  # noqa: F401  (registers task kinds, export formats, importers)
        from . import item_sources, workflows  # noqa: F401  (what the campaign wizard offers from this app)
