"""The corpus as the stored parses say (no parsing): the stored pairs as metrics' pairs, the scan of every
description or of campaigns' approved captions (keys, subsets, matches, unparsed captions left out), and the pair
occurrence table, checked by hand on real spaCy parses."""
from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.compositional.models import CaptionParse
from annotation.compositional.selectors import UnknownPairs, pair_occurrences, scan_corpus, stored_pairs
from annotation.compositional.services.caption_parses import current_parser, parse_all
from annotation.compositional.services.concept_pairs import load_seed_pairs
from annotation.models import Description, Image, ImageOrigin
from mturk.models import Campaign
from mturk.services.review import approve_assignment
from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db

PAIRS = ["black_cat", "eat_man", "white_horse"]


def _image(key: str, captions: list[str], coco: int | None = None, subset: str = "") -> Image:
    image = Image.objects.create(key=key, original_name=f"{key}.jpg", format="JPEG", width=640, height=480,
                                 file_size=0)
    if coco is not None:
        ImageOrigin.objects.create(image=image, dataset="coco", external_id=coco, subset=subset)
    for text in captions:
        Description.objects.create(image=image, text=text, source="imported")
    return image


@pytest.fixture
def corpus() -> list[Image]:
    load_seed_pairs()
    images = [
        _image("COCO_val2014_000000000042", ["A black cat sits on a mat.", "The cat is black.", "A man eats a pizza."],
               coco=42, subset="val2014"),
        _image("b", ["A cat next to a black dog.", "Two men eating pizzas.", "A white horse."]),
    ]
    parse_all()
    images.append(_image("c", ["A white horse."]))  # stored after the parse: not parsed yet
    images.append(_image("COCO_train2014_000000000007", ["A black cat."], coco=7, subset="train2014"))
    parse_all()
    images[2].descriptions.get().parse.delete()
    return images


def test_stored_pairs_in_the_order_given():
    load_seed_pairs()
    pairs = stored_pairs(["eat_man", "black_cat", "eat_man"])
    assert [p.name for p in pairs] == ["eat_man", "black_cat"]
    eat_man = pairs[0]
    assert (eat_man.kind, eat_man.category, eat_man.heldout_group) == ("noun_verb", "transitive", "1")
    assert (eat_man.modifier.name, eat_man.modifier.part_of_speech) == ("eat", "verb")
    assert {"man", "guy", "policeman"} <= eat_man.noun.synonyms and "men" not in eat_man.noun.synonyms
    assert [p.name for p in stored_pairs()][:3] == ["big_bird", "big_cat", "big_plane"]  # by name
    with pytest.raises(UnknownPairs) as refused:
        stored_pairs(["black_cat", "purple_cow", "pink_elephant"])
    assert str(refused.value) == "unknown concept pair(s): purple_cow, pink_elephant"


def test_scan_corpus(corpus):
    scan = scan_corpus(stored_pairs(PAIRS), with_text=True)
    assert [(i.key, i.subset) for i in scan.images] == [("42", "val2014"), ("b", ""), ("7", "train2014")]
    assert [i.matches for i in scan.images] == [
        (frozenset({"black_cat"}), frozenset({"black_cat"}), frozenset({"eat_man"})),
        (frozenset(), frozenset({"eat_man"}), frozenset({"white_horse"})),
        (frozenset({"black_cat"}),),
    ]
    assert scan.image_ids == {"42": corpus[0].pk, "b": corpus[1].pk, "7": corpus[3].pk}
    assert scan.texts == {"42": ["A black cat sits on a mat.", "The cat is black.", "A man eats a pizza."],
                          "b": ["A cat next to a black dog.", "Two men eating pizzas.", "A white horse."],
                          "7": ["A black cat."]}
    assert (scan.captions, scan.unparsed, scan.parser) == (7, 1, current_parser().name)
    assert scan.notes == ["1 description(s) have no parse by the current parser and are left out: run "
                          "parse_captions (or Parse captions in the console) first"]
    assert scan_corpus(stored_pairs(PAIRS)).texts is None


def test_a_parse_by_another_parser_counts_as_unparsed(corpus):
    CaptionParse.objects.filter(description__image=corpus[3]).update(parser="other/1")
    scan = scan_corpus(stored_pairs(PAIRS))
    assert [i.key for i in scan.images] == ["42", "b"] and scan.unparsed == 2


def test_pair_occurrences(corpus):
    table = pair_occurrences(stored_pairs(PAIRS))
    assert (table.images, table.captions, table.unparsed) == (3, 7, 1)
    rows = {row.name: row for row in table.rows}
    assert [row.name for row in table.rows] == PAIRS
    black_cat, eat_man, white_horse = rows["black_cat"], rows["eat_man"], rows["white_horse"]
    # black cat: twice in image 42, once in image 7; "a cat next to a black dog" mentions both, unattached.
    assert (black_cat.images, black_cat.captions, black_cat.by_count, black_cat.mean_per_image) == (
        2, 3, {1: 1, 2: 1}, 1.5)
    assert (black_cat.noun_images, black_cat.modifier_images) == (3, 3)
    assert (black_cat.kind, black_cat.category, black_cat.heldout_group) == ("adjective_noun", "colour", "1")
    assert (eat_man.images, eat_man.captions, eat_man.by_count, eat_man.mean_per_image) == (2, 2, {1: 2}, 1.0)
    assert (eat_man.noun_images, eat_man.modifier_images) == (2, 2)
    # The white horse of image c has no parse: not counted.
    assert (white_horse.images, white_horse.captions, white_horse.by_count) == (1, 1, {1: 1})
    assert (white_horse.noun_images, white_horse.modifier_images) == (1, 1)


def test_campaigns_restrict_the_corpus_to_their_approved_captions(corpus):
    campaign = make_campaign(images=1, assignments=2)
    approved = submitted(campaign, "A black cat sleeps on the sofa next to a lamp.")
    submitted(campaign, "A man eats a big sandwich in the kitchen at noon.")
    approve_assignment(approved)
    parse_all()
    table = pair_occurrences(stored_pairs(PAIRS), campaigns=[campaign])
    assert (table.images, table.captions, table.unparsed) == (1, 1, 0)
    assert [(r.name, r.images) for r in table.rows] == [("black_cat", 1), ("eat_man", 0), ("white_horse", 0)]
    scan = scan_corpus(stored_pairs(PAIRS), campaigns=[campaign])
    image = Image.objects.get(descriptions__assignment=approved)
    assert [(i.key, i.matches) for i in scan.images] == [(image.key, (frozenset({"black_cat"}),))]
    # No campaign: every description, the approved one too (and image c's, parsed by this test's parse_all).
    everything = pair_occurrences(stored_pairs(PAIRS))
    assert (everything.captions, everything.unparsed) == (9, 0)


def test_the_scan_takes_one_query_whatever_the_corpus_size(corpus):
    pairs = stored_pairs(PAIRS)
    with CaptureQueriesContext(connection) as small:
        scan_corpus(pairs)
    for n in range(20):
        _image(f"more-{n}", ["A black cat.", "A man eats."])
    parse_all()
    with CaptureQueriesContext(connection) as large:
        table = pair_occurrences(pairs)
    assert table.images == 24  # the corpus's 4 (image c parsed now) and 20 more
    assert len(small.captured_queries) == len(large.captured_queries) == 1


def test_list_command(corpus, capsys):
    call_command("manage_concept_pairs", "list", "--pairs", "black_cat,eat_man")
    lines = capsys.readouterr().out.splitlines()
    assert [line.split() for line in lines[:3]] == [
        ["pair", "kind", "category", "group", "images", "captions", "n=1", "n=2", "n=3", "n=4", "n>=5", "mean", "n",
         "noun", "images", "modifier", "images"],
        ["black_cat", "adjective_noun", "colour", "1", "2", "3", "1", "1", "0", "0", "0", "1.50", "3", "3"],
        ["eat_man", "noun_verb", "transitive", "1", "2", "2", "2", "0", "0", "0", "0", "1.00", "2", "2"],
    ]
    assert lines[3] == f"3 images, 7 parsed captions ({current_parser().name})"
    assert lines[4].startswith("1 description(s) have no parse by the current parser")
    with pytest.raises(CommandError, match="^unknown concept pair\\(s\\): purple_cow$"):
        call_command("manage_concept_pairs", "list", "--pairs", "purple_cow")
    with pytest.raises(CommandError, match="^no campaign named or numbered 'nope'$"):
        call_command("manage_concept_pairs", "list", "--campaign", "nope")
    boxes = make_campaign(images=1, name="boxes", publish=False)
    Campaign.objects.filter(pk=boxes.pk).update(task_kind="draw_boxes")
    with pytest.raises(CommandError, match="^not describe_image campaign\\(s\\): boxes$"):
        call_command("manage_concept_pairs", "list", "--campaign", "boxes")
