"""Registry of the demo data the dataset apps seed (`manage.py seed_demo`): the crowd core knows no dataset, so an
app registers its part when it starts and the command seeds every registered part, in registration order.

A part is idempotent (seeding twice changes nothing) and says what it seeded: a phrase for the command's summary
line ("3 albums of 12 photos") and lines printed after it (what to try next)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .registry import Registry


@dataclass(frozen=True)
class DemoSeeded:
    summary: str
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DemoPart:
    name: str
    seed: Callable[[], DemoSeeded]


class UnknownDemoPart(LookupError):
    pass


_PARTS: Registry[DemoPart] = Registry("demo part", UnknownDemoPart)


def register_demo_part(name: str) -> Callable[[Callable[[], DemoSeeded]], Callable[[], DemoSeeded]]:
    def decorator(seed: Callable[[], DemoSeeded]) -> Callable[[], DemoSeeded]:
        _PARTS.add(name, DemoPart(name, seed))
        return seed

    return decorator


def demo_parts() -> list[DemoPart]:
    return _PARTS.values()
