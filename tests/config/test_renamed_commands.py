"""Each command's old name runs the renamed command as its new name does, after one deprecation line on stderr
that names the new name."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command, get_commands, load_command_class
from django.test import override_settings

from common.renamed_commands import RenamedCommand

pytestmark = pytest.mark.django_db

# old name, new name, arguments that run without changing anything (a refusal is the command's own answer too)
RENAMED = [
    ("publish", "publish_campaign", ["nope"]),
    ("review", "review_submissions", ["nope"]),
    ("decide", "decide_assignment", ["99999", "--approve"]),
    ("expire", "expire_hits", ["nope"]),
    ("bonus", "grant_bonus", ["99999", "0.25", "--reason", "thanks"]),
    ("campaign_status", "set_campaign_status", ["nope", "pause"]),
    ("quality_needs", "show_quality_needs", ["nope"]),
    ("review_rules", "apply_review_rule", ["nope"]),
    ("prolific_filters", "list_prolific_filters", []),
    ("prolific_hooks", "manage_prolific_hooks", ["list"]),
    ("concept_pairs", "manage_concept_pairs", ["list"]),
    ("content_selection_report", "report_content_selection", ["--campaign", "nope", "--out", "unused"]),
    # the probe closes its database connection once done: run outside a test transaction, where a closed
    # connection is opened again by the next query
    pytest.param("worker_health", "check_worker_health", [], marks=pytest.mark.django_db(transaction=True)),
]
IDS = [entry.values[0] if hasattr(entry, "values") else entry[0] for entry in RENAMED]


def _run(name: str, args: list[str]) -> tuple[str, str, str]:
    """stdout, stderr and the refusal (CommandError's message, or "")."""
    out, err = StringIO(), StringIO()
    try:
        call_command(name, *args, stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), err.getvalue(), str(exc)
    return out.getvalue(), err.getvalue(), ""


@override_settings(PROLIFIC_TOKEN="")
@pytest.mark.parametrize(("old", "new", "args"), RENAMED, ids=IDS)
def test_the_old_name_runs_the_new_command_and_warns(old, new, args):
    new_out, new_err, new_refusal = _run(new, args)
    old_out, old_err, old_refusal = _run(old, args)
    assert (old_out, old_refusal) == (new_out, new_refusal)
    assert old_err == (f"`{old}` is deprecated: use `{new}` (the old name goes in the next release).\n" + new_err)


@pytest.mark.parametrize(("old", "new", "args"), RENAMED, ids=IDS)
def test_the_old_name_is_the_new_command_under_another_name(old, new, args):
    commands = get_commands()
    old_command = load_command_class(commands[old], old)
    new_command = load_command_class(commands[new], new)
    assert isinstance(old_command, RenamedCommand) and isinstance(old_command, type(new_command))
    assert commands[old] == commands[new]  # the same app
    assert old_command.help.startswith(f"Deprecated name of `{new}`")
