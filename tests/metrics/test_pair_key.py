"""The key of a stored METEOR score: what the score depends on, nothing else."""
from metrics.meteor import pair_key


def test_the_key_ignores_the_order_of_the_references():
    story = "a dog ran ."
    assert pair_key(story, ["the cat sat .", "a dog sat ."]) == pair_key(story, ["a dog sat .", "the cat sat ."])


def test_the_key_changes_with_the_story_and_with_the_reference_set():
    key = pair_key("a dog ran .", ["the cat sat ."])
    assert pair_key("a dog ran !", ["the cat sat ."]) != key
    assert pair_key("a dog ran .", ["the cat sat .", "a new story ."]) != key
    assert pair_key("a dog ran .", ["the cat sat .", "the cat sat ."]) != key
    assert pair_key("a dog", ["ran . the cat sat ."]) != pair_key("a dog ran .", ["the cat sat ."])
