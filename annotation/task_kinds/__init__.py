"""Task kinds of the annotation app (importing this package registers them; judge_caption is annotation.ranking's)."""
from . import describe_image, draw_boxes, link_words  # noqa: F401
