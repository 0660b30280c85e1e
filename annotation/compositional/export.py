"""Compositional splits (Nikolaus et al.; documented in docs/formats/compositional.md).

    dataset_splits.json   the authors' format: train_images_split, val_images_split, test_images_split (image ids
                          as strings) and heldout_pairs, so that their training code reads it
    train.json            D_train: [{"image_id", "file_name", "captions"}], one image a line
    val.json, eval.json   D_val and D_eval, each image with "pairs": {pair: captions containing it}
    occurrences.json      per held-out pair its counts and, per image, the authors' occurrence record
    occurrences.tsv       the per-pair counts as a table
    pairs.json            the held-out pairs with their synonym sets, and the parser

The corpus is every description (imported and collected) when no campaign is chosen, else the approved
describe_image descriptions of the chosen campaigns, each matched from its stored parse
(annotation.compositional.selectors.scan_corpus): an export never parses. Several pairs are held out together (the
seed's held-out groups): D_train has no caption containing any of them."""
from __future__ import annotations

import json
from collections import defaultdict
from importlib import metadata
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from metrics.compositional.matching import PairMatcher
from metrics.compositional.occurrence_files import (
    PairOccurrences,
    count_occurrences,
    occurrences_json,
    occurrences_tsv,
    sort_key,
)
from metrics.compositional.splits import SEEDED, CompositionalSplit, split_images
from metrics.compositional.types import ConceptPair, ImageCaptions, Parse
from mturk.datasets.formats import ExportError, ExportOption
from mturk.states import AssignmentStatus

from ..models import Description, Image
from .models import ConceptPair as StoredPair
from .selectors import UnknownPairs, scan_corpus, stored_pairs

if TYPE_CHECKING:
    from mturk.datasets.formats import ExportBundle
    from mturk.models import Campaign

DEFAULT_SEED = "compositional"
DEFAULT_EVAL_SHARE = 0.5
SPLIT_FILES = {"train": "train.json", "val": "val.json", "eval": "eval.json"}
MATCHING_DOC = "docs/compositional.md"
SYNONYMS_SOURCE = ("the synonym sets of Nikolaus et al. (2019), from their repository "
                   "https://github.com/mitjanikolaus/compositional-image-captioning (data/synonyms/, Apache-2.0)")
ID_CHUNK = 5000  # image ids per query when reading file names

OPTIONS = (
    ExportOption("pairs", "text", "Concept pairs to hold out, comma-separated names (e.g. black_cat,eat_man); several "
                                  "are held out together. Give this or group."),
    ExportOption("group", "text", "A held-out group: its stored pairs are held out together (the seed's groups are "
                                  "1 to 4). Give this or pairs."),
    ExportOption("split_seed", "text", "Seed dividing the matching images between D_val and D_eval when the corpus has "
                                       "no COCO val2014 images (default: compositional)."),
    ExportOption("eval_share", "text", "Share of the matching images that go to D_eval in that seeded mode, between 0 "
                                       "and 1 (default 0.5)."),
)


def pair_names(value: object) -> list[str]:
    """The names of a pairs option: comma-separated text (or a list), blanks dropped, each once."""
    items = value if isinstance(value, list | tuple) else str(value or "").split(",")
    return list(dict.fromkeys(str(item).strip() for item in items if str(item).strip()))


def eval_share_option(value: object) -> float:
    if value is None or value == "":
        return DEFAULT_EVAL_SHARE
    try:
        share = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ExportError(f"option eval_share must be a number between 0 and 1, not {value!r}") from None
    if not 0 < share < 1:
        raise ExportError(f"option eval_share must be between 0 and 1 (both excluded), not {value!r}")
    return share


def group_pair_names(group: str) -> list[str]:
    names = list(StoredPair.objects.filter(heldout_group=group).order_by("name").values_list("name", flat=True))
    if not names:
        groups = sorted(set(StoredPair.objects.exclude(heldout_group="").values_list("heldout_group", flat=True)))
        raise ExportError(f"no concept pair is in held-out group '{group}' (groups: {', '.join(groups) or 'none'})")
    return names


def heldout_pairs(options: dict[str, Any]) -> list[ConceptPair]:
    """The pairs the options name (pairs or group, exactly one); ExportError naming unknown ones."""
    names, group = pair_names(options.get("pairs")), str(options.get("group") or "").strip()
    if names and group:
        raise ExportError("give either option pairs or option group, not both")
    if group:
        names = group_pair_names(group)
    if not names:
        raise ExportError("no concept pair to hold out: give option pairs (comma-separated names) or group")
    try:
        return stored_pairs(names)
    except UnknownPairs as exc:
        raise ExportError(str(exc)) from None


def check_compositional_options(options: dict[str, Any]) -> None:
    for name in ("split_seed", "group"):
        if options.get(name) is not None and not isinstance(options[name], str | int):
            raise ExportError(f"option {name} must be text, not {options[name]!r}")
    eval_share_option(options.get("eval_share"))
    heldout_pairs(options)


def unparsed_message(unparsed: int, parser: str) -> str:
    return (f"{unparsed} caption{'s have' if unparsed != 1 else ' has'} no parse by {parser}: run "
            "`python manage.py parse_captions` or Parse captions on the Compositional page")


def corpus_descriptions(campaigns: list[Campaign]) -> QuerySet[Description]:
    """The descriptions scan_corpus reads: all, or the approved describe_image ones of the campaigns."""
    rows = Description.objects.all()
    if campaigns:
        rows = rows.filter(assignment__status=AssignmentStatus.APPROVED,
                           assignment__hit__campaign__task_kind="describe_image",
                           assignment__hit__campaign__in=campaigns)
    return rows


def mention_counts(pairs: list[ConceptPair], campaigns: list[Campaign], parser: str,
                   keys: dict[int, str]) -> dict[str, dict[str, tuple[int, int]]]:
    """Per image key and pair, the captions mentioning the pair's noun and its modifier at all (attached or not),
    from the stored parses: the authors' noun and adjective (verb) occurrences."""
    matcher = PairMatcher(pairs)
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    rows = corpus_descriptions(campaigns).filter(parse__parser=parser).order_by("pk").values_list(
        "image_id", "parse__data")
    for image_id, data in rows.iterator(chunk_size=2000):
        key = keys.get(image_id)
        if key is None:
            continue
        analysis = matcher.analyse(Parse.from_json(data))
        for name in analysis.nouns:
            counts[key][name][0] += 1
        for name in analysis.modifiers:
            counts[key][name][1] += 1
    return {key: {name: (noun, modifier) for name, (noun, modifier) in by_pair.items()}
            for key, by_pair in counts.items()}


def image_records(image_ids: dict[str, int]) -> dict[str, tuple[int | str, str]]:
    """Per key the exported image id (the COCO id as a number when the image has one, else the platform key) and
    the file name."""
    by_pk = {pk: key for key, pk in image_ids.items()}
    pks = sorted(by_pk)
    records: dict[str, tuple[int | str, str]] = {}
    for start in range(0, len(pks), ID_CHUNK):
        rows = Image.objects.filter(pk__in=pks[start:start + ID_CHUNK]).values_list(
            "pk", "key", "original_name", "origin__external_id")
        for pk, key, name, external_id in rows:
            records[by_pk[pk]] = (external_id if external_id is not None else key, name)
    return records


def write_split(bundle: ExportBundle, name: str, keys: list[str], records: dict[str, tuple[int | str, str]],
                texts: dict[str, list[str]], images: dict[str, ImageCaptions], pairs: tuple[str, ...] | None) -> int:
    """One split file: a JSON list, one image a line; returns the captions written."""
    captions = 0
    with bundle.open_text(name) as handle:
        handle.write("[")
        for n, key in enumerate(keys):
            image_id, file_name = records[key]
            record: dict[str, Any] = {"image_id": image_id, "file_name": file_name, "captions": texts.get(key, [])}
            if pairs is not None:
                record["pairs"] = {pair: images[key].count(pair) for pair in pairs if images[key].count(pair)}
            captions += len(record["captions"])
            handle.write(("\n" if n == 0 else ",\n") + json.dumps(record, ensure_ascii=False))
        handle.write("\n]\n")
    return captions


def pairs_file(pairs: list[ConceptPair], parser: str) -> dict[str, Any]:
    return {"parser": parser, "matching": MATCHING_DOC, "pairs": [
        {"name": p.name, "kind": p.kind, "category": p.category, "heldout_group": p.heldout_group,
         "modifier": {"name": p.modifier.name, "part_of_speech": p.modifier.part_of_speech,
                      "synonyms": sorted(p.modifier.synonyms)},
         "noun": {"name": p.noun.name, "part_of_speech": p.noun.part_of_speech, "synonyms": sorted(p.noun.synonyms)}}
        for p in pairs]}


def parser_versions(parser: str) -> str:
    """The parser's name (package and model version) and, for spaCy, the library's version."""
    if parser.startswith("spacy/"):
        try:
            return f"{parser} (spaCy {metadata.version('spacy')})"
        except metadata.PackageNotFoundError:
            pass
    return parser


def pair_table(rows: list[PairOccurrences]) -> list[str]:
    """The card's per-pair occurrence table (occurrences.tsv has every column)."""
    lines = ["| pair | images with it | D_val | D_eval | captions with it | mean per image | images with 1 / 2 / 3 "
             "/ 4 / 5+ captions with it |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        by = row.by_count
        spread = " / ".join(str(by[n]) for n in range(1, 5)) + f" / {sum(c for n, c in by.items() if n >= 5)}"
        mean = "–" if row.mean_per_image is None else f"{row.mean_per_image:.2f}"
        lines.append(f"| {row.pair.name} | {row.total_images} | {row.images['val']} | {row.images['eval']} "
                     f"| {row.captions} | {mean} | {spread} |")
    return lines


def card_notes(split: CompositionalSplit, pairs: list[ConceptPair], parser: str, seeded_pairs: bool,
               options: dict[str, Any], rows: list[PairOccurrences]) -> list[str]:
    def synonyms(pair: ConceptPair) -> str:
        return (f"`{pair.name}` ({pair.kind.replace('_', '-')}{', ' + pair.category if pair.category else ''}): "
                f"{pair.modifier.part_of_speech} {{{', '.join(sorted(pair.modifier.synonyms))}}} + noun "
                f"{{{', '.join(sorted(pair.noun.synonyms))}}}")

    if split.mode == SEEDED:
        mode = (f"seeded: the corpus has no COCO val2014 image, so the images containing a held-out pair are divided "
                f"between D_val and D_eval by SHA-256 of the seed `{split.seed}` and the image id (a share of "
                f"{split.eval_share:g} to D_eval); the same data and seed give the same split")
    else:
        ignored = " (options split_seed and eval_share do not apply)" if (
            options.get("split_seed") or options.get("eval_share")) else ""
        mode = ("COCO subsets, as the authors split COCO: D_eval is the val2014 images with a caption containing a "
                "held-out pair, D_val the other (train2014) images with one, D_train the other train2014 images; "
                f"the {len(split.unused)} val2014 images without a held-out pair are in no split{ignored}")
    notes = [
        "## Compositional splits", "",
        "Held out together (docs/formats/compositional.md): " + "; ".join(synonyms(p) for p in pairs) + ".", "",
        f"Split mode: {mode}. D_train: {len(split.train)} images, D_val: {len(split.val)}, D_eval: {len(split.eval)}.",
        "", *pair_table(rows), "",
        "Matching: a caption contains a pair when a word of the modifier's synonym set (by its form or lemma) is "
        "attached to a word of the noun's set in the caption's dependency parse: the adjective modifies the noun "
        "(attributive or predicative), or the noun is the verb's subject or is modified by it as a participle or "
        f"relative clause; a noun that is only the verb's object does not count (the relations: {MATCHING_DOC}). "
        "No D_train image has a caption containing a held-out pair; each concept may still occur alone there.", "",
        f"Parser: {parser_versions(parser)}; every caption was parsed once and the stored parse used.",
    ]
    if seeded_pairs:
        notes += ["", f"Attribution: the concept definitions include {SYNONYMS_SOURCE}."]
    return ["\n".join(notes)]


def export_compositional(bundle: ExportBundle, campaigns: list[Campaign]) -> int:
    """Write the compositional split files; returns the images in D_train, D_val and D_eval."""
    pairs = heldout_pairs(bundle.options)
    names = tuple(p.name for p in pairs)
    seed = str(bundle.options.get("split_seed") or DEFAULT_SEED)
    share = eval_share_option(bundle.options.get("eval_share"))
    bundle.add_steps(7)  # the corpus, the mentions, the splits file, three split files, the occurrences
    scan = scan_corpus(pairs, campaigns=campaigns or None, with_text=True)
    if scan.unparsed:
        raise ExportError(unparsed_message(scan.unparsed, scan.parser))
    if not scan.images:
        raise ExportError("no captions to split: the corpus has no descriptions"
                          + (" in the chosen campaigns" if campaigns else ""))
    bundle.advance()
    images = sorted(scan.images, key=lambda image: sort_key(image.key))
    split = split_images(images, names, seed=seed, eval_share=share)
    keys = {pk: key for key, pk in scan.image_ids.items()}
    mentions = mention_counts(pairs, campaigns, scan.parser, keys)
    bundle.advance()
    splits = {"train_images_split": split.train, "val_images_split": split.val, "test_images_split": split.eval,
              "heldout_pairs": list(names)}
    bundle.write_text("dataset_splits.json", json.dumps(splits) + "\n")  # compact, as the authors' files
    bundle.advance()
    in_split = {key: scan.image_ids[key] for key in (*split.train, *split.val, *split.eval)}
    bundle.contributed(pk for key in in_split for pk in scan.campaigns.get(key, ()))  # those of the split files
    records = image_records(in_split)
    texts = scan.texts or {}
    by_key = {image.key: image for image in images}
    captions: dict[str, int] = {}
    for split_name, split_keys in (("train", split.train), ("val", split.val), ("eval", split.eval)):
        captions[split_name] = write_split(bundle, SPLIT_FILES[split_name], split_keys, records, texts, by_key,
                                           None if split_name == "train" else names)
        bundle.advance()
    rows = count_occurrences(images, split, pairs, mentions)
    bundle.write_json("occurrences.json", occurrences_json(rows, parser=scan.parser, split=split))
    bundle.write_text("occurrences.tsv", occurrences_tsv(rows))
    bundle.write_json("pairs.json", pairs_file(pairs, scan.parser))
    bundle.advance()
    bundle.counts.update({
        "held-out pairs": len(pairs), "images": len(images),
        "train images": len(split.train), "val images": len(split.val), "eval images": len(split.eval),
        **({"images of val2014 without a held-out pair (in no split)": len(split.unused)} if split.mode != SEEDED
           else {}),
        "train captions": captions["train"], "val captions": captions["val"], "eval captions": captions["eval"],
        **{f"eval images containing {name}": len(split.eval_by_pair[name]) for name in names},
    })
    seeded_pairs = StoredPair.objects.filter(name__in=names, source="seed").exists()
    bundle.notes.extend(card_notes(split, pairs, scan.parser, seeded_pairs, bundle.options, rows))
    return len(split.train) + len(split.val) + len(split.eval)
