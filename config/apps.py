from django.apps import AppConfig


class PlatformConfig(AppConfig):
    """The project's own configuration: registers the deployment checks."""

    name = "config"
    label = "platform_config"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the checks)
