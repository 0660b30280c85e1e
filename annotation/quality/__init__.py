"""Quality measures of this app's task kinds (mturk.measures registry): boxes, links, captions (judgements are
annotation.ranking's)."""
from . import boxes, captions, links  # noqa: F401
