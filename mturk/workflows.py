"""Registry of workflows: chains of campaigns created together (one campaign per stage, each fed by the one
before), offered by the campaign wizard as one choice. The apps register theirs (storyboard: visual stories;
annotation: grounded descriptions) with the service that creates them."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .models import Campaign
from .registry import Registry

# create(name, items of the first stage, provider=, settings=, publish=, created_by=, **extra) -> campaigns by stage
Creator = Callable[..., dict[str, Campaign]]


@dataclass(frozen=True)
class Workflow:
    name: str
    label: str
    blurb: str
    stages: dict[str, str]  # stage name -> task kind, in chain order
    first_kind: str  # the first stage's task kind: its item sources give the chain's HITs
    create: Creator
    # Optional stages, switched on by a keyword argument of `create`: keyword -> (stage, label of its checkbox)
    switches: dict[str, tuple[str, str]] = field(default_factory=dict)

    def wanted(self, switched_on: set[str]) -> list[str]:
        """The stages created when the switches named in `switched_on` are on."""
        off = {stage for keyword, (stage, _) in self.switches.items() if keyword not in switched_on}
        return [stage for stage in self.stages if stage not in off]


_WORKFLOWS: Registry[Workflow] = Registry("workflow")


def register_workflow(workflow: Workflow) -> Workflow:
    return _WORKFLOWS.add(workflow.name, workflow)


def workflows() -> list[Workflow]:
    return _WORKFLOWS.values()


def get_workflow(name: str) -> Workflow:
    return _WORKFLOWS.get(name)
