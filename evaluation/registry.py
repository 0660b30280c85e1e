"""Test sets a human evaluation can run on: a registry of sources, each registered by the capability that owns the
test set (collections of images here; test pools by ranking; compositional evaluation sets by compositional; albums
by storyboard). A source lists its test sets and gives the items of one: what uploads call each item, the images the
page shows, and the human references.

Also a registry of automatic score providers: metrics another capability knows of an uploaded system beside those
computed against the references (e.g. compositional Recall@K, registered by compositional), so that the analysis
correlates them with the human scores too."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mturk.registry import Registry

if TYPE_CHECKING:
    from .models import HumanEvaluation


@dataclass(frozen=True)
class TestItem:
    __test__ = False  # not a pytest test class

    name: str  # how an upload names the item (a caption's image id; a story's "<album_id>:<photo>,<photo>,...")
    images: list[int]  # annotation.Image ids shown, in order
    references: list[str] = field(default_factory=list)  # human captions or stories


@dataclass(frozen=True)
class TestSetSource:
    __test__ = False

    name: str  # the "<source>" of HumanEvaluation.test_set
    label: str
    output_kind: str  # OutputKind value: "caption" or "story"
    choices: Callable[[], list[tuple[str, str]]]  # (key, label) of each test set this source has now
    items: Callable[[str], list[TestItem]]  # the items of the test set with this key; raises LookupError if none
    description: str = ""


class UnknownTestSetSource(LookupError):
    pass


_SOURCES: Registry[TestSetSource] = Registry("test set source", UnknownTestSetSource)


def register_test_set_source(source: TestSetSource) -> TestSetSource:
    _SOURCES.add(source.name, source)
    return source


def get_test_set_source(name: str) -> TestSetSource:
    return _SOURCES.get(name)


def test_set_source_names() -> list[str]:
    return _SOURCES.names()



# {metric: {"system": score or None, "items": {item name: score}, ...}}: the shape of EvaluatedSystem.automatic
AutomaticScores = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class AutomaticScoreProvider:
    """Extra automatic metrics of an uploaded system: `scores(evaluation, system name, outputs {item name: text})`
    returns them in the shape of EvaluatedSystem.automatic (items may be empty: the metric is then correlated at
    system level only), or None when it has nothing for this evaluation or system. Called at upload, before
    anything is stored; it reads only."""

    name: str
    scores: Callable[[HumanEvaluation, str, Mapping[str, str]], AutomaticScores | None]
    description: str = ""


_PROVIDERS: Registry[AutomaticScoreProvider] = Registry("automatic score provider")


def register_automatic_score_provider(provider: AutomaticScoreProvider) -> AutomaticScoreProvider:
    _PROVIDERS.add(provider.name, provider)
    return provider


def automatic_score_providers() -> list[AutomaticScoreProvider]:
    """In the order they were registered."""
    return _PROVIDERS.values()
