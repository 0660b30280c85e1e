"""Flickr8k export: the token file read as the usual readers read it, stable caption numbering, the seeded split and
its proportions, a test pool as the test split, the judgement files, the images option, bad options, progress.

The readers restated here (no reader package is installed for this):
- `read_tokens_tab`: the token-file parsing of torchvision's Flickr30k class (whose `Flickr8k.token.txt`-style file
  Flickr8k shares): `img_id, caption = line.strip().split("\\t")`, then `img_id[:-2]` drops `#<n>`. (torchvision's
  Flickr8k class itself parses the HTML caption page of the original site, not this file.)
- `read_tokens_split`: the common tutorial reader (image id = first whitespace-separated token cut at `#`, caption
  = the other tokens joined by spaces)."""
from __future__ import annotations

import io
import zipfile
from collections import defaultdict
from pathlib import Path

import pytest
from django.urls import reverse

from annotation.models import Description, Image
from annotation.ranking.flickr8k_export import caption_text, split_images
from annotation.ranking.models import CaptionJudgement, PoolImage, TestPool
from mturk.datasets.formats import ExportError, check_scope, run_export, write_export
from mturk.datasets.stored_files import open_stream
from mturk.models import Campaign, DatasetExport
from mturk.services.review import approve_assignment
from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db

SENTENCES = [
    "A brown dog runs along the sandy beach near the water.",
    "Two children play football on a green field after school.",
    "An old man sits on a wooden bench reading his newspaper.",
    "A woman in a red coat crosses the busy street in the rain.",
    "Three birds sit together on a telephone wire above the road.",
    "A cyclist rides down a steep mountain path between tall trees.",
    "A small boy eats a big slice of watermelon in the garden.",
]


def read_tokens_tab(text: str) -> dict[str, list[str]]:
    captions: dict[str, list[str]] = defaultdict(list)
    for line in text.splitlines():
        img_id, caption = line.strip().split("\t")
        captions[img_id[:-2]].append(caption)
    return dict(captions)


def read_tokens_split(text: str) -> dict[str, list[str]]:
    captions: dict[str, list[str]] = defaultdict(list)
    for line in text.split("\n"):
        if len(line) < 2:
            continue
        tokens = line.split()
        captions[tokens[0].split("#")[0]].append(" ".join(tokens[1:]))
    return dict(captions)


def described(images: int, per_image: int) -> Campaign:
    """A describe_image campaign over images img-0.. with `per_image` approved descriptions each, the i-th worker
    of an image writing SENTENCES[i]."""
    campaign = make_campaign(images=images, assignments=per_image)
    for round_ in range(per_image):
        for _ in range(images):
            approve_assignment(submitted(campaign, SENTENCES[round_]))
    return campaign


def export(campaigns: list[Campaign], **options: object) -> zipfile.ZipFile:
    buffer = io.BytesIO()
    write_export("flickr8k", buffer, campaigns, options)
    buffer.seek(0)
    return zipfile.ZipFile(buffer)


def text(archive: zipfile.ZipFile, name: str) -> str:
    return archive.read(name).decode("utf-8")


def image_file(image: Image) -> str:
    return f"{image.key}.png"


def test_token_file_reads_as_the_usual_readers_read_it():
    campaign = described(images=2, per_image=3)
    unapproved = make_campaign(images=1, assignments=1)
    submitted(unapproved, SENTENCES[6])  # submitted, never approved: not exported
    archive = export([campaign, unapproved])
    tokens = text(archive, "Flickr8k.token.txt")
    expected = [
        "A brown dog runs along the sandy beach near the water .",
        "Two children play football on a green field after school .",
        "An old man sits on a wooden bench reading his newspaper .",
    ]
    files = sorted(image_file(i) for i in Image.objects.filter(descriptions__isnull=False).distinct())
    assert len(files) == 2
    assert read_tokens_tab(tokens) == {files[0]: expected, files[1]: expected}
    assert read_tokens_split(tokens) == read_tokens_tab(tokens)
    assert tokens.splitlines()[:4] == [f"{files[0]}#0\t{expected[0]}", f"{files[0]}#1\t{expected[1]}",
                                       f"{files[0]}#2\t{expected[2]}", f"{files[1]}#0\t{expected[0]}"]
    card = text(archive, "README.md")
    assert "- Captions: 6" in card and "- Images: 2" in card and "flickr8k.md" in card
    assert "Flicker8k_Dataset/" not in "".join(archive.namelist())


def test_a_caption_is_one_line_of_its_tokens():
    assert caption_text("a\tb\nc .", ["a\t", "b", "\nc", "."]) == "a b c ."
    assert caption_text("  typed\twith  tabs ", []) == "typed with tabs"


def test_numbering_is_stable_and_at_most_five_per_image():
    campaign = described(images=1, per_image=7)
    first = text(export([campaign]), "Flickr8k.token.txt")
    again = text(export([campaign]), "Flickr8k.token.txt")
    assert first == again
    ids = [line.split("\t")[0] for line in first.splitlines()]
    assert ids == [f"img-0.png#{n}" for n in range(5)]
    # creation order: the sixth and seventh descriptions are the ones left out
    kept = list(Description.objects.order_by("pk"))[:5]
    assert [line.split("\t")[1] for line in first.splitlines()] == [" ".join(d.tokens) for d in kept]
    assert [d.text for d in kept] == SENTENCES[:5]
    card = text(export([campaign]), "README.md")
    assert "- Captions beyond the fifth (not exported): 2" in card


def test_split_proportions_and_seed():
    keys = [f"k{i:03d}" for i in range(80)]
    splits = split_images(keys, "flickr8k")
    assert [len(splits[s]) for s in ("train", "dev", "test")] == [60, 10, 10]  # 80 * 6/8, 80 * 1/8, the rest
    assert sorted(splits["train"] + splits["dev"] + splits["test"]) == keys
    assert split_images(list(reversed(keys)), "flickr8k") == splits  # the order keys come in does not matter
    other = split_images(keys, "another")
    assert other != splits and [len(other[s]) for s in ("train", "dev", "test")] == [60, 10, 10]
    assert [len(v) for v in split_images(keys[:8], "x").values()] == [6, 1, 1]
    assert [len(v) for v in split_images(keys[:3], "x").values()] == [2, 0, 1]  # round(2.25), round(0.375), rest


def test_export_split_files_follow_the_seed():
    campaign = described(images=8, per_image=1)
    archive = export([campaign], split_seed="abc")
    lists = {s: text(archive, f"Flickr_8k.{s}Images.txt").splitlines() for s in ("train", "dev", "test")}
    keys = sorted(Image.objects.values_list("key", flat=True))
    assert {s: [f.removesuffix(".png") for f in files] for s, files in lists.items()} == split_images(keys, "abc")
    assert [len(lists[s]) for s in ("train", "dev", "test")] == [6, 1, 1]
    assert text(export([campaign], split_seed="abc"), "Flickr_8k.testImages.txt") == "\n".join(lists["test"]) + "\n"


def test_test_pool_is_the_test_split():
    campaign = described(images=8, per_image=1)
    pool = TestPool.objects.create(name="pool-1")
    chosen = list(Image.objects.order_by("key"))[2:4]
    for index, image in enumerate(chosen):
        PoolImage.objects.create(pool=pool, image=image, index=index)
    archive = export([campaign], test_pool="pool-1", split_seed="s")
    test = text(archive, "Flickr_8k.testImages.txt").splitlines()
    train = text(archive, "Flickr_8k.trainImages.txt").splitlines()
    dev = text(archive, "Flickr_8k.devImages.txt").splitlines()
    assert test == [image_file(i) for i in chosen]
    assert (len(train), len(dev)) == (5, 1)  # the other six cut 6:1: round(36/7) = 5, and the rest
    assert not set(test) & set(train + dev)
    assert "test pool 'pool-1'" in text(archive, "README.md")


def test_judgement_files():
    campaign = described(images=2, per_image=6)
    img0, img1 = Image.objects.order_by("key")
    kept = {img: list(Description.objects.filter(image=img).order_by("pk")) for img in (img0, img1)}
    crowd, graded, sixth = kept[img1][2], kept[img0][0], kept[img0][5]
    for relevant in (True, False, True):  # img0 with img1's third caption: 2 yes, 1 no
        CaptionJudgement.objects.create(image=img0, description=crowd, source="crowd", relevant=relevant)
    for relevant in (True, False):  # a tie
        CaptionJudgement.objects.create(image=img1, description=crowd, source="crowd", relevant=relevant)
    for grade in (4, 3, 1):  # the released scale, stored and written as it is: 4 describes the image
        CaptionJudgement.objects.create(image=img0, description=graded, source="imported", grade=grade, judge="e")
    CaptionJudgement.objects.create(image=img1, description=graded, source="gold", relevant=False)  # not exported
    CaptionJudgement.objects.create(image=img0, description=sixth, source="crowd", relevant=True)  # not exported
    archive = export([campaign])
    f0, f1 = image_file(img0), image_file(img1)
    assert text(archive, "ExpertAnnotations.txt") == f"{f0}\t{f0}#0\t4\t3\t1\n"
    assert text(archive, "CrowdFlowerAnnotations.txt") == (
        f"{f0}\t{f1}#2\t0.666667\t2\t1\n"
        f"{f1}\t{f1}#2\t0.5\t1\t1\n"
    )
    card = text(archive, "README.md")
    assert "- Crowd judged pairs: 2" in card and "- Crowd relevant pairs: 1" in card
    assert "- Expert judged pairs: 1" in card and "- Judgements outside the export: 1" in card
    tokens = read_tokens_tab(text(archive, "Flickr8k.token.txt"))
    assert tokens[f1][2] == " ".join(crowd.tokens)  # the caption id points at the judged caption


def test_images_option_copies_the_originals_into_the_original_folder_name(tmp_path: Path):
    campaign = described(images=2, per_image=1)
    result = run_export("flickr8k", tmp_path / "f.zip", [campaign], {"images": True})
    archive = zipfile.ZipFile(tmp_path / "f.zip")
    pictures = sorted(n for n in archive.namelist() if n.startswith("Flicker8k_Dataset/"))
    images = list(Image.objects.order_by("key"))
    assert pictures == [f"Flicker8k_Dataset/{image_file(i)}" for i in images]
    stream, _ = open_stream(images[0].original.name)
    with stream:
        assert archive.read(pictures[0]) == stream.read()
    assert result.records == 2 and result.counts["images"] == 2


@pytest.mark.parametrize(("options", "message"), [
    ({"test_pool": "missing"}, "no test pool named 'missing'"),
    ({"images": "yes"}, "option images must be true or false"),
    ({"split_seed": 3}, "option split_seed must be text"),
    ({"colour": "red"}, "has no option colour"),
])
def test_bad_options_are_refused_and_nothing_is_written(tmp_path: Path, options: dict, message: str):
    campaign = described(images=1, per_image=1)
    with pytest.raises(ExportError, match=message):
        check_scope("flickr8k", [campaign], options)
    with pytest.raises(ExportError, match=message):
        run_export("flickr8k", tmp_path / "out" / "f.zip", [campaign], options)
    assert not (tmp_path / "out").exists()


def test_other_kinds_and_bad_keys_are_refused():
    boxes = Campaign(name="boxes", task_kind="draw_boxes")
    with pytest.raises(ExportError, match="exports describe_image campaigns"):
        check_scope("flickr8k", [boxes])
    campaign = described(images=1, per_image=1)
    Image.objects.filter(descriptions__isnull=False).update(key="a#b")
    with pytest.raises(ExportError, match="'a#b' contains '#'"):
        export([campaign])


def test_progress_advances_to_the_end():
    campaign = described(images=3, per_image=1)
    seen: list[tuple[int, int]] = []
    write_export("flickr8k", io.BytesIO(), [campaign], {}, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (6, 6)  # the card, one step per image, the splits, the judgements
    dones = [done for done, _ in seen]
    assert dones == sorted(dones) and len(set(dones)) == 7


def test_the_exports_page_takes_the_options_and_refuses_an_unknown_pool(researcher_client):
    campaign = described(images=1, per_image=1)
    TestPool.objects.create(name="pool-1")
    page = researcher_client.get(reverse("exports")).content.decode()
    assert '<label for="format-flickr8k">flickr8k</label>' in page and 'id="id_flickr8k__test_pool"' in page
    response = researcher_client.post(reverse("exports"), {
        "format": "flickr8k", "campaigns": [campaign.pk], "flickr8k__images": "on", "flickr8k__test_pool": "pool-1",
    })
    assert response.status_code == 302
    assert DatasetExport.objects.get().options == {"images": True, "test_pool": "pool-1"}
    refused = researcher_client.post(reverse("exports"), {"format": "flickr8k", "campaigns": [campaign.pk],
                                                          "flickr8k__test_pool": "pool-2"})
    assert refused.status_code == 400
    assert "no test pool named &#x27;pool-2&#x27;" in refused.content.decode()
    assert DatasetExport.objects.count() == 1
