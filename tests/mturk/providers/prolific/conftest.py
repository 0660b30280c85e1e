"""Fixtures of the prolific provider's tests: `prolific_fake` (a local fake Prolific, tests/prolific_fake)."""
from tests.prolific_fake.fixtures import prolific_fake  # noqa: F401 - registers the fixture
