"""A seeded generator of COCO-style captions for the compositional benchmarks. GENERATED text, not COCO's captions.

Each image is a scene: a main object (a person, an animal, a vehicle or a table) with a colour and a size, often
an action (eat, lie, ride, fly, hold, stand, and others), with an object for the transitive verbs, a place, and
often a second object. Its 5 captions describe the same scene independently, each mentioning the colour, the size
and the action or not, so that, as in COCO, a pair is often in only some of an image's captions. The captions
vary the structures the matcher must tell apart: determiners and counts ("two brown dogs"), adjectives
attributive ("a black cat") and predicative ("the cat on the couch is black"), conjoined colours ("a black and
white cat"), subjects of a verb ("a man eats a pizza", "a woman is riding a horse"), participles ("a man
eating a sandwich"), relative clauses ("a woman who is holding an umbrella"), the main noun only as an object
("a girl feeding a brown horse"), the colour on the other object ("a cat next to a black dog"), prepositional
phrases, plurals, synonyms of the seed's concepts (kitten, puppy, guy, lady, kid, airplane, jet, large, tiny,
laying) and verb forms (eats, ate, eating). Nothing here is taken from COCO."""
from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# noun: (singular forms, plural forms of the same index), "animate" or not, the verbs it may do
NOUNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "man": (("man", "guy", "gentleman"), ("men", "guys", "gentlemen")),
    "woman": (("woman", "lady", "girl"), ("women", "ladies", "girls")),
    "child": (("child", "kid", "boy", "little girl"), ("children", "kids", "boys", "little girls")),
    "dog": (("dog", "puppy"), ("dogs", "puppies")),
    "cat": (("cat", "kitten", "kitty"), ("cats", "kittens", "kitties")),
    "horse": (("horse", "pony"), ("horses", "ponies")),
    "bird": (("bird", "seagull", "pigeon"), ("birds", "seagulls", "pigeons")),
    "bus": (("bus",), ("buses",)),
    "plane": (("plane", "airplane", "jet"), ("planes", "airplanes", "jets")),
    "truck": (("truck", "pickup truck"), ("trucks", "pickup trucks")),
    "table": (("table", "desk"), ("tables", "desks")),
    "boat": (("boat",), ("boats",)),
    "car": (("car",), ("cars",)),
    "elephant": (("elephant",), ("elephants",)),
    "giraffe": (("giraffe",), ("giraffes",)),
    "sheep": (("sheep",), ("sheep",)),
    "cow": (("cow",), ("cows",)),
    "train": (("train",), ("trains",)),
}
PEOPLE = ("man", "woman", "child")
ANIMALS = ("dog", "cat", "horse", "bird", "elephant", "giraffe", "sheep", "cow")
VEHICLES = ("bus", "plane", "truck", "boat", "car", "train")

# verb: (base, third person, -ing, past), alternatives of the -ing form (common in captions)
VERBS: dict[str, tuple[str, str, str, str]] = {
    "eat": ("eat", "eats", "eating", "ate"),
    "lie": ("lie", "lies", "lying", "lay"),
    "ride": ("ride", "rides", "riding", "rode"),
    "fly": ("fly", "flies", "flying", "flew"),
    "hold": ("hold", "holds", "holding", "held"),
    "stand": ("stand", "stands", "standing", "stood"),
    "sit": ("sit", "sits", "sitting", "sat"),
    "walk": ("walk", "walks", "walking", "walked"),
    "play": ("play", "plays", "playing", "played"),
    "graze": ("graze", "grazes", "grazing", "grazed"),
    "drive": ("drive", "drives", "driving", "drove"),
    "sleep": ("sleep", "sleeps", "sleeping", "slept"),
    "carry": ("carry", "carries", "carrying", "carried"),
    "look": ("look at", "looks at", "looking at", "looked at"),
    "feed": ("feed", "feeds", "feeding", "fed"),
    "park": ("park", "parks", "parked", "parked"),
}
ING_VARIANTS = {"lying": ("lying", "laying"), "eating": ("eating", "munching on"), "holding": ("holding", "carrying")}
# the verbs each kind of subject does, with their objects (empty: intransitive)
ACTIONS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "people": (("eat", ("a sandwich", "a slice of pizza", "a hot dog", "a banana", "a donut", "some food")),
               ("ride", ("a horse", "a bike", "a skateboard", "a motorcycle", "a wave", "an elephant")),
               ("hold", ("an umbrella", "a phone", "a frisbee", "a tennis racket", "a baseball bat", "a kite")),
               ("stand", ()), ("lie", ()), ("sit", ()), ("walk", ()), ("play", ("frisbee", "tennis", "a game")),
               ("feed", ("a giraffe", "a horse", "the birds")), ("carry", ("a surfboard", "a bag"))),
    "animal": (("eat", ("some grass", "hay", "a piece of bread", "from a bowl", "")),
               ("lie", ()), ("stand", ()), ("sleep", ()), ("walk", ()), ("graze", ()),
               ("look", ("the camera", "a laptop", "the window"))),
    "bird": (("fly", ()), ("stand", ()), ("eat", ("some seeds", "bread crumbs", "")),
             ("sit", ())),
    "plane": (("fly", ()), ("park", ()), ("sit", ())),
    "vehicle": (("drive", ()), ("park", ()), ("sit", ())),
    "table": (),
}
COLOURS = ("black", "white", "brown", "red", "blue", "grey", "green", "yellow", "orange")
BIG = ("big", "large", "huge", "giant")
SMALL = ("small", "little", "tiny")
COUNTS = (("two", 2), ("three", 3), ("several", 3), ("a couple of", 2), ("some", 3), ("a group of", 4))
PLACES = {
    "people": ("in a kitchen", "on a city street", "at the beach", "in a park", "on a sidewalk", "in a field",
               "next to a building", "in front of a store", "on a snowy slope"),
    "animal": ("on a couch", "in the grass", "on a bed", "in a field", "on the floor", "by a fence",
               "next to a tree", "on a dirt road", "in a pen"),
    "bird": ("on a branch", "over the water", "on a beach", "in the sky", "on a wooden post", "near a pond"),
    "plane": ("on a runway", "in the sky", "at an airport", "over some clouds", "on the tarmac"),
    "vehicle": ("on a street", "in a parking lot", "on the road", "at a bus stop", "next to a building"),
    "boat": ("on the water", "in a harbor", "near a dock", "on a lake"),
    "table": ("in a restaurant", "in a kitchen", "in a living room", "on a patio", "in an office"),
}
CLOTHES = ("shirt", "jacket", "dress", "hat", "coat", "helmet")
ON_TABLE = ("with plates of food", "covered with dishes", "with a laptop on it", "with a vase of flowers",
            "with a pizza on it")
SECOND = {"people": ("dog", "horse", "bus", "truck", "cat", "man", "woman"),
          "animal": ("dog", "cat", "man", "woman", "child", "car", "truck", "bird"),
          "bird": ("boat", "man", "dog", "bird"), "plane": ("truck", "bus", "plane"),
          "vehicle": ("car", "man", "woman", "bus", "truck"), "table": ("cat", "dog", "child", "man")}


@dataclass(frozen=True)
class CorpusImage:
    image_id: int  # a COCO-like id
    subset: str  # "train2014" or "val2014"
    file_name: str
    captions: tuple[str, ...]


def _kind(noun: str) -> str:
    if noun in PEOPLE:
        return "people"
    if noun == "bird":
        return "bird"
    if noun == "plane":
        return "plane"
    if noun in VEHICLES:
        return "vehicle"
    if noun == "table":
        return "table"
    return "animal"


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


@dataclass
class _Scene:
    noun: str
    plural: int  # 1 or how many
    colour: str
    size: str  # "", "big" or "small"
    verb: str  # "" when the scene has no action
    obj: str
    place: str
    second: str
    second_colour: str


def _scene(rng: random.Random) -> _Scene:
    noun = rng.choice(list(NOUNS))
    kind = _kind(noun)
    plural = 1 if rng.random() < 0.78 else rng.choice((2, 2, 3, 4))
    actions = ACTIONS[kind]
    verb, obj = "", ""
    if actions and rng.random() < 0.8:
        verb, objects = rng.choice(actions)
        obj = rng.choice(objects) if objects else ""
    second = rng.choice(SECOND[kind]) if rng.random() < 0.4 else ""
    return _Scene(noun=noun, plural=plural, colour=rng.choice(COLOURS), size=rng.choice(("", "big", "small")),
                  verb=verb, obj=obj, place=rng.choice(PLACES["boat" if noun == "boat" else kind]), second=second,
                  second_colour=rng.choice(COLOURS))


def _noun_form(rng: random.Random, noun: str, plural: bool) -> str:
    singular, plurals = NOUNS[noun]
    index = 0 if rng.random() < 0.7 else rng.randrange(len(singular))
    return (plurals if plural else singular)[index]


def _size_word(rng: random.Random, size: str) -> str:
    return rng.choice(BIG if size == "big" else SMALL)


def _caption(rng: random.Random, s: _Scene) -> str:
    plural = s.plural > 1 and rng.random() < 0.85
    noun = _noun_form(rng, s.noun, plural)
    # what this caption mentions: annotators disagree on colours, sizes and actions
    adjectives = []
    if s.size and rng.random() < 0.35:
        adjectives.append(_size_word(rng, s.size))
    colour, clothes = "", ""
    if rng.random() < 0.45:
        other = rng.choice([c for c in COLOURS if c != s.colour])
        colour = s.colour if rng.random() < 0.85 else f"{s.colour} and {other}"
        if s.noun in PEOPLE:  # people's colours are their clothes': "a man in a red shirt"
            clothes = f" in {_article(s.colour)} {s.colour} {rng.choice(CLOTHES)}"
        else:
            adjectives.append(colour)
    verb = s.verb if s.verb and rng.random() < 0.7 else ""
    v_base, v_3sg, v_ing, v_past = VERBS[verb] if verb else ("", "", "", "")
    if verb and v_ing in ING_VARIANTS and rng.random() < 0.2:
        v_ing = rng.choice(ING_VARIANTS[v_ing])
    obj = f" {s.obj}" if verb and s.obj else ""
    place = f" {s.place}" if rng.random() < 0.8 else ""
    second = ""
    if s.second and rng.random() < 0.6:
        second_adj = f"{s.second_colour} " if s.second not in PEOPLE and rng.random() < 0.5 else ""
        second_noun = _noun_form(rng, s.second, False)
        second = f" {rng.choice(('next to', 'with', 'near', 'behind'))} {_article(second_adj or second_noun)} " \
                 f"{second_adj}{second_noun}"
    if plural:
        count = rng.choice(COUNTS)[0]
        np = f"{count} {' '.join(adjectives + [noun])}{clothes}".strip()
        be, v_finite, there = "are", v_base, "There are"
    else:
        words = adjectives + [noun]
        np = f"{_article(words[0])} {' '.join(words)}" if rng.random() < 0.85 else f"the {' '.join(words)}"
        np += clothes
        be, v_finite, there = "is", v_3sg, "There is"
    indefinite = f"{_article(np[4:])} {np[4:]}" if np.startswith("the ") else np  # "There is a ..."
    template = rng.random()
    if not verb:
        if adjectives and not plural and template < 0.15:
            # predicative: "The cat on the couch is black."
            return f"The {noun}{place} is {' and '.join(adjectives)}."
        if template < 0.3:
            return f"{there} {indefinite}{place}{second}."
        if template < 0.42 and s.second:
            # the main noun only as an object of someone else's verb
            agent = _noun_form(rng, rng.choice(PEOPLE), False)
            return f"{_article(agent)} {agent} {rng.choice(('looking at', 'feeding', 'petting', 'next to'))} {np}" \
                   f"{place}."
        if s.noun == "table" and template < 0.7:
            return f"{np} {rng.choice(ON_TABLE)}{place}."
        return f"{np}{clothes}{second}{place or ' ' + s.place}."
    if template < 0.3:  # participle: "a man eating a sandwich"
        return f"{np} {v_ing}{obj}{place}{second}."
    if template < 0.55:  # progressive: "a man is eating a sandwich"
        return f"{np} {be} {v_ing}{obj}{place}{second}."
    if template < 0.68:  # simple present or past
        return f"{np} {v_finite if rng.random() < 0.8 else v_past}{obj}{place}{second}."
    if template < 0.78:  # relative clause
        rel = "who" if s.noun in PEOPLE and rng.random() < 0.6 else "that"
        rest = f"{be} {v_ing}" if rng.random() < 0.5 else v_finite
        return f"{np}{second} {rel} {rest}{obj}{place}."
    if template < 0.86 and adjectives and not plural:  # predicative with the action after it
        return f"The {noun} {v_ing}{obj} is {' and '.join(adjectives)}."
    if template < 0.93:
        return f"{there} {indefinite} {v_ing}{obj}{place}."
    # the second object carries the verb: "a cat next to a dog that is eating"
    other = _noun_form(rng, rng.choice(ANIMALS if s.noun in PEOPLE else PEOPLE), False)
    return f"{np} next to {_article(other)} {other} that is {v_ing}{obj}{place}."


def _tidy(text: str) -> str:
    text = " ".join(text.split())
    return text[0].upper() + text[1:]


def generate_corpus(images: int = 20_000, captions_per_image: int = 5, *, seed: int = 0,
                    eval_share: float = 0.33) -> list[CorpusImage]:
    """`images` generated scenes with `captions_per_image` captions each; a share `eval_share` of them in val2014
    (as COCO's 40,504 of 123,287), the rest in train2014. The same seed gives the same corpus."""
    rng = random.Random(seed)
    ids = rng.sample(range(1, 600_000), images)
    corpus = []
    for image_id in ids:
        scene = _scene(rng)
        subset = "val2014" if rng.random() < eval_share else "train2014"
        corpus.append(CorpusImage(
            image_id=image_id, subset=subset, file_name=f"COCO_{subset}_{image_id:012d}.jpg",
            captions=tuple(_tidy(_caption(rng, scene)) for _ in range(captions_per_image))))
    return corpus


def write_coco_captions(corpus: Sequence[CorpusImage], path: Path) -> None:
    """The corpus as a COCO captions file (`images` with id, file_name, width, height; `annotations` with id,
    image_id, caption), as import_coco reads it."""
    annotation_id = 0
    annotations = []
    for image in corpus:
        for caption in image.captions:
            annotation_id += 1
            annotations.append({"id": annotation_id, "image_id": image.image_id, "caption": caption})
    data = {
        "info": {"description": "Generated COCO-style captions (bench/caption_corpus.py), not COCO"},
        "licenses": [],
        "images": [{"id": i.image_id, "file_name": i.file_name, "width": 640, "height": 480} for i in corpus],
        "annotations": annotations,
    }
    path.write_text(json.dumps(data))


if __name__ == "__main__":
    for image in generate_corpus(8, seed=1):
        print(image.image_id, image.subset)
        for caption in image.captions:
            print("   ", caption)
