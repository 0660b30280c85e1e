"""Concept pairs to hold out: list them with how often they occur, load the seed's, add, import, delete."""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from metrics.compositional.types import PAIR_KINDS
from mturk.management.commands._common import find_campaign

from ...compositional.models import ConceptPair
from ...compositional.selectors import OccurrenceTable, pair_occurrences, stored_pairs
from ...compositional.services.concept_pairs import (
    ConceptPairError,
    delete_pair,
    import_pairs,
    load_seed_pairs,
    save_pair,
)


def _words(text: str | None) -> list[str] | None:
    return None if text is None else [w.strip() for w in text.split(",") if w.strip()]


def occurrence_lines(table: OccurrenceTable) -> list[str]:
    """The occurrence table as aligned text."""
    header = ["pair", "kind", "category", "group", "images", "captions", "n=1", "n=2", "n=3", "n=4", "n>=5",
              "mean n", "noun images", "modifier images"]
    rows = [header]
    for row in table.rows:
        counts = [row.by_count.get(n, 0) for n in range(1, 5)] + [sum(v for n, v in row.by_count.items() if n >= 5)]
        rows.append([row.name, row.kind, row.category or "-", row.heldout_group or "-", str(row.images),
                     str(row.captions), *map(str, counts), f"{row.mean_per_image:.2f}", str(row.noun_images),
                     str(row.modifier_images)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i < 4 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(r, widths, strict=True))) for r in rows]
    lines.append(f"{table.images} images, {table.captions} parsed captions ({table.parser})")
    lines.extend(table.notes)
    return lines


class Command(BaseCommand):
    help = ("Concept pairs (Nikolaus et al.): `list` shows each pair with how often it occurs in the stored parses "
            "(images, captions, images by how many captions contain it, mean; images mentioning the noun and the "
            "modifier at all); `load-seed` loads the seed's 24 pairs and their synonym sets; `add` defines or "
            "updates a pair; `import FILE` loads concepts and pairs from JSON (all or nothing); `delete NAME`.")

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        listing = actions.add_parser("list", help="the pairs and how often they occur")
        listing.add_argument("--campaign", action="append", default=[],
                             help="count in the approved captions of this describe_image campaign (name or id; "
                                  "repeatable) instead of every description")
        listing.add_argument("--pairs", help="comma-separated pair names (default: every pair)")
        actions.add_parser("load-seed", help="the seed's concepts and 24 pairs (idempotent)")
        add = actions.add_parser("add", help="define a pair, or update the one of that name")
        add.add_argument("name", help='e.g. "black_cat"')
        add.add_argument("--kind", required=True, choices=PAIR_KINDS)
        add.add_argument("--modifier", required=True, help="the adjective or the verb (a concept name)")
        add.add_argument("--noun", required=True, help="the noun (a concept name)")
        add.add_argument("--modifier-synonyms", help="comma-separated; required when the modifier is new, "
                                                     "replaces its synonyms otherwise")
        add.add_argument("--noun-synonyms", help="comma-separated; required when the noun is new")
        add.add_argument("--category", default="", help='"colour", "size", "transitive", "intransitive", ...')
        add.add_argument("--group", default="", help="held-out group (pairs held out together)")
        importing = actions.add_parser("import", help="concepts and pairs from a JSON file")
        importing.add_argument("file")
        delete = actions.add_parser("delete", help="delete a pair (its concepts stay)")
        delete.add_argument("name")

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        try:
            getattr(self, "_" + action.replace("-", "_"))(**options)
        except ConceptPairError as exc:
            raise CommandError("\n".join(exc.errors) if len(exc.errors) > 1 else str(exc)) from None

    def _list(self, campaign: list[str], pairs: str | None, **options: Any) -> None:
        try:
            chosen = stored_pairs(_words(pairs) if pairs else None)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if not chosen:
            self.stdout.write("no concept pairs yet: `manage_concept_pairs load-seed` loads the seed's 24")
            return
        campaigns = [find_campaign(c) for c in campaign]
        wrong = [c.name for c in campaigns if c.task_kind != "describe_image"]
        if wrong:
            raise CommandError(f"not describe_image campaign(s): {', '.join(wrong)}")
        table = pair_occurrences(chosen, campaigns=campaigns)
        self.stdout.write("\n".join(occurrence_lines(table)))

    def _load_seed(self, **options: Any) -> None:
        created = load_seed_pairs()
        self.stdout.write(f"{created} new seed pair(s); {ConceptPair.objects.count()} pair(s) defined")

    def _add(self, name: str, kind: str, modifier: str, noun: str, modifier_synonyms: str | None,
             noun_synonyms: str | None, category: str, group: str, **options: Any) -> None:
        existed = ConceptPair.objects.filter(name="_".join(name.lower().split())).exists()
        pair = save_pair(name=name, kind=kind, modifier=modifier, noun=noun,
                         modifier_synonyms=_words(modifier_synonyms), noun_synonyms=_words(noun_synonyms),
                         category=category, heldout_group=group)
        self.stdout.write(f"pair {pair.name} {'updated' if existed else 'added'}: {pair.modifier.name} "
                          f"({', '.join(pair.modifier.synonyms)}) + {pair.noun.name} ({', '.join(pair.noun.synonyms)})")

    def _import(self, file: str, **options: Any) -> None:
        count = import_pairs(file)
        self.stdout.write(f"{count} pair(s) imported from {file}")

    def _delete(self, name: str, **options: Any) -> None:
        pair = ConceptPair.objects.filter(name=name.strip()).first()
        if pair is None:
            raise CommandError(f"no concept pair named '{name}'")
        delete_pair(pair)
        self.stdout.write(f"pair {name} deleted")
