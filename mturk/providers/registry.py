"""Registry of crowd providers by name."""
from __future__ import annotations

from .base import CrowdProvider
from .local import LocalProvider
from .mturk.provider import MTurkProvider
from .prolific.provider import ProlificProvider

_PROVIDERS: dict[str, type[CrowdProvider]] = {
    provider.name: provider for provider in (LocalProvider, MTurkProvider, ProlificProvider)
}
_INSTANCES: dict[str, CrowdProvider] = {}


class UnknownProvider(LookupError):
    pass


def register_provider(provider_class: type[CrowdProvider]) -> type[CrowdProvider]:
    _PROVIDERS[provider_class.name] = provider_class
    return provider_class


def provider_names() -> list[str]:
    return sorted(_PROVIDERS)


def get_provider(name: str) -> CrowdProvider:
    """One provider instance per process and name."""
    if name not in _PROVIDERS:
        raise UnknownProvider(f"unknown provider '{name}' (available: {', '.join(provider_names())})")
    if name not in _INSTANCES:
        _INSTANCES[name] = _PROVIDERS[name]()
    return _INSTANCES[name]
