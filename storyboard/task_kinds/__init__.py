"""Task kinds of the storyboard app (importing this package registers them)."""
from . import describe_sequence, rate_story, retell_story, tell_story  # noqa: F401
