from django.apps import AppConfig


class MturkConfig(AppConfig):
    name = "mturk"
    verbose_name = "Crowd work"

    def ready(self) -> None:
        from . import exports_builtin  # noqa: F401  (registers the generic export formats)
