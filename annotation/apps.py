from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Images and grounded descriptions"

    def ready(self) -> None:
        from . import export_formats, task_kinds  # noqa: F401  (registers the task kinds and export formats)
