"""The import contracts of pyproject.toml (`make lint` runs them): their exceptions cannot grow unnoticed, the
manual names every contract and every package they place, and a module planted anywhere in `annotation/` or
`mturk/` that is not placed, or that imports across a boundary, breaks them."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
CONTRACTS = {contract["id"]: contract for contract in CONFIG["contracts"]}
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text()

# Every exception the contracts allow, with its reason in pyproject.toml. A new one is a change to the architecture:
# it is added here too, where a reviewer sees it.
ALLOWED_EXCEPTIONS = {
    "providers-layers": {"mturk.providers.local.provider -> mturk.providers.mturk.qualifications"},
    "grounded-layers": {
        "annotation.models -> annotation.ranking.models",
        "annotation.models -> annotation.compositional.models",
    },
    "capabilities-independent": {
        "annotation.models -> annotation.ranking.models",
        "annotation.models -> annotation.compositional.models",
    },
    "evaluation": {
        "annotation.models -> annotation.ranking.models",
        "annotation.models -> annotation.compositional.models",
    },
    "grounded-core-below-evaluation": {
        "annotation.ranking.** -> evaluation.**",
        "annotation.compositional.** -> evaluation.**",
    },
    "provider-neutral": {"mturk.migrations.0008_prolific -> mturk.providers.prolific.models"},
}


@pytest.mark.parametrize("contract_id", sorted(CONTRACTS))
def test_a_contracts_exceptions_do_not_grow(contract_id):
    ignored = set(CONTRACTS[contract_id].get("ignore_imports", []))
    assert ignored <= ALLOWED_EXCEPTIONS.get(contract_id, set()), (
        f"contract {contract_id} ignores {sorted(ignored - ALLOWED_EXCEPTIONS.get(contract_id, set()))}: an import "
        "across a boundary is moved or the boundary is changed in the open, not excused")


def test_the_layered_contracts_place_every_module():
    layered = [contract for contract in CONTRACTS.values() if contract["type"] == "layers"]
    assert {container for contract in layered for container in contract["containers"]} >= {"annotation", "mturk"}
    assert all(contract.get("exhaustive") for contract in layered)


@pytest.mark.parametrize("contract_id", sorted(CONTRACTS))
def test_the_manual_explains_every_contract(contract_id):
    assert f"`{contract_id}`" in ARCHITECTURE, f"docs/architecture.md does not explain contract {contract_id}"


def packages_under(root: Path) -> list[str]:
    return sorted(path.parent.relative_to(ROOT).as_posix() for path in root.glob("*/__init__.py")
                  if path.parent.name not in {"migrations", "management", "templatetags"})


@pytest.mark.parametrize("package", packages_under(ROOT / "mturk") + packages_under(ROOT / "annotation")
                         + packages_under(ROOT / "evaluation") + packages_under(ROOT / "storyboard"))
def test_the_manuals_layout_names_every_package(package):
    layout = ARCHITECTURE.split("## Layout", 1)[1].split("\n## ", 1)[0]
    assert f"{package.split('/')[-1]}/" in layout, f"the layout in docs/architecture.md leaves out {package}/"


PLANTS = {
    # not placed in any layer
    "annotation/newthing.py": "from annotation.ranking import models as ranking_models  # noqa\n",
    "mturk/newthing.py": "",
    # placed (inside a capability) but importing across a boundary
    "mturk/quality/newthing.py": "from mturk.console.views import dashboard  # noqa\n",
    "annotation/services/newthing.py": "from annotation.compositional import models  # noqa\n",
    "annotation/reports_extra.py": "from evaluation import registry  # noqa\n",
}


def test_a_planted_module_breaks_the_contracts(tmp_path):
    for package in CONFIG["root_packages"]:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "*.html"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    clean = run_lint(tmp_path)
    assert clean.returncode == 0, clean.stdout
    for name, text in PLANTS.items():
        (tmp_path / name).write_text(text)
    planted = run_lint(tmp_path)
    assert planted.returncode != 0
    assert "annotation.newthing" in planted.stdout and "mturk.newthing" in planted.stdout
    assert "mturk.quality.newthing -> mturk.console.views.dashboard" in planted.stdout
    assert "annotation.services.newthing -> annotation.compositional.models" in planted.stdout
    assert "annotation.reports_extra -> evaluation.registry" in planted.stdout


def run_lint(where: Path) -> subprocess.CompletedProcess[str]:
    lint = Path(sys.executable).parent / "lint-imports"
    return subprocess.run([str(lint), "--no-cache"], cwd=where, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(where)})
