"""The questions a human evaluation asks, by name. Each is a statement or question with its scale, worded as the
public evaluations worded them:

- captions, the seed's question (Hodosh et al.'s expert scale, as released: 4 describes the image without errors,
  down to 1 unrelated) and the COCO 2015 captioning challenge's questions (correctness and detail on 1-5, and
  whether the caption could have been written by a person);
- stories, the seed's question (Huang et al.: "If these were my photos, I would like using a story like this to
  share my experience with my friends") and the six aspects of the VIST 2018 challenge's human evaluation, each a
  statement rated on a 5-point agreement scale;
- pairwise: which of two outputs is better (or a tie), on any of these aspects as the question of the comparison.
"""
from __future__ import annotations

from dataclasses import dataclass

AGREE = ("Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree", "Strongly agree")


@dataclass(frozen=True)
class Aspect:
    name: str
    output_kind: str  # "caption" or "story"
    question: str  # rating: the statement or question rated
    scale: tuple[str, ...]  # the wording of points 1..n (lowest first)
    comparison: str  # pairwise: the question asked of two outputs


ASPECTS: dict[str, Aspect] = {aspect.name: aspect for aspect in (
    Aspect("describes", "caption", "Does this caption describe the image?",
           ("Is unrelated to the image", "Is somewhat related to the image",
            "Describes the image with minor errors", "Describes the image without any errors"),
           "Which caption describes the image better?"),
    Aspect("correct", "caption", "How correct is this caption?",
           ("Incorrect", "Mostly incorrect", "Partly correct", "Mostly correct", "Correct"),
           "Which caption is more correct?"),
    Aspect("detailed", "caption", "How much detail does this caption give?",
           ("No detail", "Little detail", "Some detail", "Much detail", "Very detailed"),
           "Which caption gives more useful detail?"),
    Aspect("human_caption", "caption", "This caption could have been written by a person.", AGREE,
           "Which caption sounds more like it was written by a person?"),
    Aspect("share_experience", "story",
           "If these were my photos, I would like using a story like this to share my experience with my friends.",
           AGREE, "Which story would you rather use to share these photos with your friends?"),
    Aspect("focused", "story", "The story is focused.", AGREE, "Which story is more focused?"),
    Aspect("coherent", "story", "The story is structured and coherent.", AGREE,
           "Which story is better structured and more coherent?"),
    Aspect("would_share", "story", "I would share this story with my friends.", AGREE,
           "Which story would you rather share with your friends?"),
    Aspect("human_like", "story", "This story sounds like it was written by a human.", AGREE,
           "Which story sounds more like it was written by a human?"),
    Aspect("grounded", "story", "This story is directly related to the photos.", AGREE,
           "Which story is more directly related to the photos?"),
    Aspect("detail", "story", "This story has the appropriate amount of detail.", AGREE,
           "Which story has a more appropriate amount of detail?"),
)}

DEFAULT_ASPECTS = {"caption": ["describes"], "story": ["share_experience"]}
# The COCO 2015 captioning challenge's rated questions and the VIST 2018 challenge's six aspects.
PRESETS = {
    "caption": {"seed": ["describes"], "coco": ["correct", "detailed", "human_caption"]},
    "story": {"seed": ["share_experience"],
              "vist": ["focused", "coherent", "would_share", "human_like", "grounded", "detail"]},
}


def check_aspects(output_kind: str, names: list[str]) -> list[str]:
    """The aspects, checked for the output kind (a preset's name expands to its aspects); raises ValueError."""
    if not names:
        return list(DEFAULT_ASPECTS[output_kind])
    expanded: list[str] = []
    for name in names:
        for aspect in PRESETS[output_kind].get(name, [name]):
            known = ASPECTS.get(aspect)
            if known is None or known.output_kind != output_kind:
                usable = sorted(a.name for a in ASPECTS.values() if a.output_kind == output_kind)
                raise ValueError(f"aspect '{aspect}' is not a question for {output_kind}s (use "
                                 f"{', '.join(usable)}, or a preset: {', '.join(sorted(PRESETS[output_kind]))})")
            if aspect not in expanded:
                expanded.append(aspect)
    return expanded
