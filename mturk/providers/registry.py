"""Registry of crowd providers by name.

The providers are listed in settings.CROWD_PROVIDERS, one module path each: a module, or a package whose
`provider` module holds the provider. Importing it registers the provider (`register_provider`). A provider
package may also hold `models` (loaded with the app's models), `tasks` (loaded when the app is ready) and `urls`
(included by the app's urls) modules. The core reaches providers only through here."""
from __future__ import annotations

from importlib import import_module
from types import ModuleType

from django.conf import settings

from .base import CrowdProvider

_PROVIDERS: dict[str, type[CrowdProvider]] = {}
_PACKAGES: dict[str, str] = {}  # provider name -> its path in settings.CROWD_PROVIDERS
_INSTANCES: dict[str, CrowdProvider] = {}
_loaded = False


class UnknownProvider(LookupError):
    pass


def register_provider(provider_class: type[CrowdProvider]) -> type[CrowdProvider]:
    _PROVIDERS[provider_class.name] = provider_class
    return provider_class


def _is_package(module: ModuleType) -> bool:
    return hasattr(module, "__path__")


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for path in settings.CROWD_PROVIDERS:
        if _is_package(import_module(path)):
            import_module(f"{path}.provider")
    for name, provider_class in _PROVIDERS.items():
        module = provider_class.__module__
        for path in settings.CROWD_PROVIDERS:
            if module == path or module.startswith(f"{path}."):
                _PACKAGES[name] = path
    _loaded = True


def provider_modules(name: str) -> list[ModuleType]:
    """The `name` module (models, tasks, urls) of every configured provider package that has one, imported."""
    found = []
    for path in settings.CROWD_PROVIDERS:
        module = import_module(path)
        if _is_package(module) and _has_submodule(path, name):
            found.append(import_module(f"{path}.{name}"))
    return found


def provider_module(provider_name: str, name: str) -> ModuleType:
    """One module of a named provider's package (e.g. its management commands' implementation)."""
    get_provider(provider_name)
    return import_module(f"{_PACKAGES[provider_name]}.{name}")


def _has_submodule(path: str, name: str) -> bool:
    from importlib.util import find_spec

    return find_spec(f"{path}.{name}") is not None


def provider_names() -> list[str]:
    _load()
    return sorted(_PROVIDERS)


def get_provider(name: str) -> CrowdProvider:
    """One provider instance per process and name."""
    _load()
    if name not in _PROVIDERS:
        raise UnknownProvider(f"unknown provider '{name}' (available: {', '.join(provider_names())})")
    if name not in _INSTANCES:
        _INSTANCES[name] = _PROVIDERS[name]()
    return _INSTANCES[name]


def own_crowd() -> CrowdProvider:
    """The configured provider that is the platform's own crowd (CrowdProvider.own_crowd: campaign links, workers
    named by our server, the demo's simulated workers)."""
    for name in provider_names():
        if _PROVIDERS[name].own_crowd:
            return get_provider(name)
    raise UnknownProvider("no configured provider is the platform's own crowd "
                          f"(available: {', '.join(provider_names())})")


def default_provider_name() -> str:
    """The provider a campaign goes to when none is named (settings.DEFAULT_CROWD_PROVIDER)."""
    return str(settings.DEFAULT_CROWD_PROVIDER)


def provider_label(name: str) -> str:
    """A provider's name as a sentence writes it (an unknown provider: its name)."""
    try:
        provider = get_provider(name)
    except UnknownProvider:
        return name
    return provider.label or name
