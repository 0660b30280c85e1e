"""Prolific webhooks of the workspace: subscribe, list, delete (the Prolific provider's hooks_command)."""
from ...providers.registry import provider_module

Command = provider_module("prolific", "hooks_command").Command
