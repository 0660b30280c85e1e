"""Task kinds of the annotation app (importing this package registers them)."""
from . import describe_image, draw_boxes, judge_caption, link_words  # noqa: F401
