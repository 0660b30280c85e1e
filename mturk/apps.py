from django.apps import AppConfig


class MturkConfig(AppConfig):
    name = "mturk"
    verbose_name = "Crowd work"

    def import_models(self) -> None:
        """The app's models, then those of each configured provider package (app label `mturk` too)."""
        super().import_models()
        from .providers.registry import provider_modules

        provider_modules("models")

    def ready(self) -> None:
        # Registers the generic export formats and the gold items importer.
        from .datasets import builtin_formats  # noqa: F401
        from .providers.registry import provider_modules
        from .quality import gold_importer  # noqa: F401

        provider_modules("tasks")  # the providers' background jobs, known to every worker
