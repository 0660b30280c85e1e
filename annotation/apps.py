from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Images and grounded descriptions"

    def ready(self) -> None:
        # Registers the task kinds, export formats and importers, and what the campaign wizard offers from this app.
        from . import export_formats, importers, item_sources, quality, task_kinds, workflows  # noqa: F401
        from .compositional import registrations as compositional_registrations  # noqa: F401
        from .ranking import registrations as ranking_registrations  # noqa: F401
