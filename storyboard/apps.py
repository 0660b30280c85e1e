from django.apps import AppConfig


class StoryboardConfig(AppConfig):
    name = "storyboard"
    verbose_name = "Visual stories"

    def ready(self) -> None:
        from . import export_formats, task_kinds  # noqa: F401  (registers the task kinds and export formats)
