"""Quality measures of this app's task kinds (mturk.quality registry): boxes, links, captions, judgements."""
from . import boxes, captions, judgements, links  # noqa: F401
