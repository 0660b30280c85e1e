"""One named registry, the shape of every plug-in point: task kinds, export formats, providers, importers,
item sources and workflows. A name is registered once; an unknown name raises the registry's own error,
naming what is available."""
from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, what: str, unknown: type[Exception] = LookupError) -> None:
        self.what = what
        self.unknown = unknown
        self._items: dict[str, T] = {}

    def add(self, name: str, item: T) -> T:
        if name in self._items:
            raise ValueError(f"{self.what} '{name}' is registered twice")
        self._items[name] = item
        return item

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise self.unknown(f"unknown {self.what} '{name}' (available: {', '.join(self.names()) or 'none'})") \
                from None

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def names(self) -> list[str]:
        return sorted(self._items)

    def values(self) -> list[T]:
        """In the order they were registered."""
        return list(self._items.values())
