from django.apps import AppConfig


class MturkConfig(AppConfig):
    name = "mturk"
    verbose_name = "Crowd work"

    def ready(self) -> None:
        # Registers the generic export formats and the gold items importer.
        from . import exports_builtin, importers_gold  # noqa: F401
