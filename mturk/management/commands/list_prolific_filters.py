"""Prolific's participant filters (the Prolific provider's filters_command)."""
from ...providers.registry import provider_module

Command = provider_module("prolific", "filters_command").Command
