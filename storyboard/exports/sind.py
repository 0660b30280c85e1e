"""The SIND / VIST export (documented in docs/formats/sind.md; the file format is VIST's).

    sis/{split}.story-in-sequence.json          stories (storytelling, then re-telling, per album)
    dii/{split}.description-in-isolation.json   descriptions of the chosen sequences' photos, alone
    dis/{split}.description-in-sequence.json    descriptions of the same photos seen in sequence
    challenge/{split}.human-stories.json        the first human story per sequence, challenge format
    ratings/story-ratings.json                  human ratings of the stories (when collected)
    images/{split}/{photo id}.jpg               with the images option

Albums are processed in batches with a constant number of queries per batch, and every file is
streamed (orjson, written in 256 KB pieces); the image records of a split are fetched once and
copied into its three files. What grows with the dataset is what the report needs: the normalized
texts and the stories (about 90 MB at VIST scale; see bench/sind_export.py)."""
from __future__ import annotations

import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from typing import IO, TYPE_CHECKING, Any

import orjson
from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from annotation.models import Description, Image
from annotation.services.image_files import jpeg_copy
from mturk.models import Campaign, Worker

from ..models import Album, ChosenSequence, IsolatedDescription, Photo, Storylet
from .ratings import RATING_QUESTION, rating_summary
from .records import SPLITS, WorkerIds, album_record, image_record, split_of
from .scope import StoryScope

if TYPE_CHECKING:
    from mturk.datasets.formats import ExportBundle

BATCH = 500  # albums per batch
FILES = {  # tier -> (file suffix and `type`, annotation `tier`)
    "sis": ("story-in-sequence", "story-in-sequence"),
    "dii": ("description-in-isolation", "descriptions-in-isolation"),
    "dis": ("description-in-sequence", "descriptions-in-sequence"),
}
PHOTO_FIELDS = (
    "external_id", "datetaken", "title", "text", "tags", "licence", "latitude", "longitude", "secret", "url",
)


@dataclass
class StoryIndex:
    """Every exported story with its export id (consecutive per album: storytelling, then re-telling)."""

    export_id: dict[int, int] = field(default_factory=dict)  # story pk -> story_id
    by_album: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))  # album pk -> story pks
    slots: int = 5  # storylet_id = slots * story_id + position


@dataclass
class Collected:
    """What the report and the dataset card need, gathered while the files are written."""

    texts: dict[str, list[str]] = field(default_factory=lambda: {"sis": [], "dii": [], "dis": []})
    # story_id -> album, photos, texts
    stories: dict[int, tuple[str, tuple[str, ...], list[str]]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    ratings: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))  # story_id -> ratings


def _chunks(items: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(items), BATCH):
        yield items[start:start + BATCH]


class SindWriter:
    def __init__(self, bundle: ExportBundle, campaigns: list[Campaign]) -> None:
        self.bundle = bundle
        self.scope = StoryScope.of(campaigns)
        self.seed = str(bundle.options.get("split_seed") or "sind")
        self.with_images = bool(bundle.options.get("images"))
        self.without_file = 0  # photos known only by reference (no stored file), left out of images/
        self.collected = Collected()
        worker_rows = Worker.objects.values_list("pk", "provider", "external_id")
        self.workers = WorkerIds({pk: (p, e) for pk, p, e in worker_rows})
        self.stories = self._index_stories()
        # album -> [(re-telling campaign, chosen sequence)]; DII of a sequence come from the describe_image
        # campaigns fed by that re-telling campaign
        exported_albums = self.scope.story_rows().values("album_id")  # a subquery: no bound-parameter limit
        chosen = ChosenSequence.objects.filter(album_id__in=exported_albums)
        if self.scope.stories is not None:
            chosen = chosen.filter(campaign_id__in=self.scope.stories)
        self.chosen: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for album, campaign, sequence in chosen.order_by("album_id", "campaign_id").values_list(
                "album_id", "campaign_id", "sequence_id"):
            self.chosen[album].append((campaign, sequence))
        self.dii_source = dict(Campaign.objects.filter(pk__in=self.scope.dii).values_list("pk", "source_stage_id"))
        # imported DII (VIST's) are the release's, exported with the whole dataset only
        self.imported_dii: set[int] = set() if self.scope.stories is not None else set(
            IsolatedDescription.objects.filter(album_id__in=exported_albums).values_list("album_id", flat=True))
        albums = Album.objects.filter(pk__in=exported_albums).order_by("pk").values_list(
            "pk", "external_id", "title", "description", "event_label", "owner", "flickr", "split")
        self.albums = {row[0]: row[:7] for row in albums}
        # an imported album keeps its released split
        self.split = {row[0]: row[7] or split_of(row[1], self.seed) for row in albums}

    def _index_stories(self) -> StoryIndex:
        index = StoryIndex()
        rows = self.scope.story_rows().order_by("album_id", "setting", "pk").values_list(
            "pk", "album_id", "external_id")
        stories = list(rows.iterator(chunk_size=5000))
        # imported stories keep their released story_id; the others are numbered after the largest of them
        number = max((int(external) for _, _, external in stories if external), default=0)
        for pk, album, external in stories:
            if external:
                index.export_id[pk] = int(external)
            else:
                number += 1
                index.export_id[pk] = number
            index.by_album[album].append(pk)
        longest = Storylet.objects.filter(story__in=self.scope.story_rows()).aggregate(m=Max("order"))["m"]
        index.slots = max(5, (longest or 0) + 1)
        return index

    # --- the files ------------------------------------------------------------------------------------
    def write(self, stories_written: Callable[[SindWriter], None] | None = None) -> int:
        """Write every file: the stories of all splits first (then `stories_written` is called, so a
        report can start scoring them while the rest is written), then the descriptions."""
        records = 0
        albums = len(self.albums)
        described = sum(1 for pk in self.albums if pk in self.chosen or pk in self.imported_dii)
        # progress, in albums: each album's stories (SIS), then its DII and DIS when a sequence was chosen, photos
        self.bundle.add_steps(albums + 2 * described + (albums if self.with_images else 0))
        with ExitStack() as stack:
            written = []
            for split in SPLITS:
                album_ids = sorted(pk for pk, s in self.split.items() if s == split)
                self.collected.counts[f"{split} albums"] = len(album_ids)
                sequences: dict[tuple[str, tuple[str, ...]], str] = {}
                spool = stack.enter_context(tempfile.TemporaryFile())  # the split's image records, fetched once
                images = (spool, *self._write_images(spool, album_ids))
                records += self._file("sis", split, album_ids, partial(self._sis_rows, sequences=sequences), images)
                self._challenge(split, sequences)
                written.append((split, album_ids, images))
            if stories_written is not None:
                stories_written(self)
            for split, album_ids, images in written:
                dii_albums = [pk for pk in album_ids if pk in self.chosen or pk in self.imported_dii]
                same = images if dii_albums == album_ids else None
                records += self._file("dii", split, dii_albums, self._dii_rows, same)
                records += self._file("dis", split, dii_albums, self._dis_rows, same)
                if self.with_images:
                    self._images(split, album_ids)
        self._ratings()
        return records

    def _file(self, tier: str, split: str, album_ids: list[int],
              rows: Callable[[list[int]], Iterator[dict[str, Any]]],
              images: tuple[IO[bytes], dict[int, int], dict[int, str]] | None = None) -> int:
        suffix, _ = FILES[tier]
        info = {
            "version": "1.0", "date_created": timezone.now().replace(microsecond=0).isoformat(),
            "license": settings.DATASET_LICENCE, "platform": settings.PLATFORM_NAME, "split": split,
            "split_seed": self.seed,
        }
        with self.bundle.open_binary(f"{tier}/{split}.{suffix}.json") as out:
            out.write(b'{"info":' + orjson.dumps(info) + b',"type":' + orjson.dumps(suffix) + b',"images":[')
            if images is None:
                photo_counts, first_photos = self._write_images(out, album_ids)
            else:
                spool, photo_counts, first_photos = images
                spool.seek(0)
                shutil.copyfileobj(spool, out, 1 << 20)
            out.write(b'],"albums":[')
            self._write_list(out, (album_record(self.albums[pk], photo_counts.get(pk, 0), first_photos.get(pk, ""))
                                   for pk in album_ids))
            out.write(b'],"annotations":[')
            count = self._write_list(out, ([row] for row in self._rows_by_batch(album_ids, rows)))
            out.write(b"]}")
        self.collected.counts[f"{tier} {split}"] = count
        return count

    def _rows_by_batch(self, album_ids: list[int],
                       rows: Callable[[list[int]], Iterator[dict[str, Any]]]) -> Iterator[dict[str, Any]]:
        for batch in _chunks(album_ids):
            yield from rows(batch)
            self.bundle.advance(len(batch))

    @staticmethod
    def _write_list(out: IO[bytes], items: Iterator[Any]) -> int:
        count = 0
        buffer = bytearray()  # one write per 256 KB, not per record: each zip write costs a deflate call + CRC
        for item in items:
            if count:
                buffer += b","
            buffer += orjson.dumps(item)
            count += 1
            if len(buffer) >= 1 << 18:
                out.write(buffer)
                buffer.clear()
        out.write(buffer)
        return count

    def _write_images(self, out: IO[bytes], album_ids: list[int]) -> tuple[dict[int, int], dict[int, str]]:
        counts: dict[int, int] = defaultdict(int)
        first: dict[int, str] = {}

        def records() -> Iterator[dict[str, Any]]:
            for batch in _chunks(album_ids):
                photos = Photo.objects.filter(album_id__in=batch).order_by("album_id", "datetaken", "pk")
                for album, *photo in photos.values_list("album_id", *PHOTO_FIELDS):
                    counts[album] += 1
                    first.setdefault(album, photo[0])
                    yield image_record(self.albums[album][1], tuple(photo))

        self._write_list(out, records())
        return counts, first

    # --- annotations per tier -------------------------------------------------------------------------
    def _sis_rows(
        self, batch: list[int], sequences: dict[tuple[str, tuple[str, ...]], str]
    ) -> Iterator[dict[str, Any]]:
        story_pks = [pk for album in batch for pk in self.stories.by_album.get(album, [])]
        rows = Storylet.objects.filter(story_id__in=story_pks).values_list(
            "story_id", "order", "photo__external_id", "text", "original_text", "story__setting", "story__worker_id",
            "story__album_id", "external_id", "story__worker_label")
        ordered = sorted(rows, key=lambda r: (self.stories.export_id[r[0]], r[1]))
        current: tuple[int, str, list[str], list[str]] | None = None
        for pk, order, photo, text, original, setting, worker, album, storylet, label in ordered:
            story_id = self.stories.export_id[pk]
            album_id = self.albums[album][1]
            if current is None or current[0] != story_id:
                self._end_story(current, sequences)
                current = (story_id, album_id, [], [])
            current[2].append(photo)
            current[3].append(text)
            self.collected.texts["sis"].append(text)
            yield {
                "album_id": album_id, "original_text": original, "photo_flickr_id": photo, "setting": setting,
                "story_id": str(story_id), "storylet_id": storylet or str(self.stories.slots * story_id + order),
                "text": text, "tier": "story-in-sequence", "worker_arranged_photo_order": order,
                "worker_id": label or self.workers(worker),
            }
        self._end_story(current, sequences)

    def _end_story(self, story: tuple[int, str, list[str], list[str]] | None,
                   sequences: dict[tuple[str, tuple[str, ...]], str]) -> None:
        if story is None:
            return
        story_id, album_id, photos, texts = story
        self.collected.stories[story_id] = (album_id, tuple(photos), texts)
        sequences.setdefault((album_id, tuple(photos)), " ".join(texts))

    def _sequence_photos(self, batch: list[int]) -> dict[int, list[tuple[int, str, int]]]:
        """chosen sequence (story pk) -> [(order, photo id, image pk)]."""
        sequences = [sequence for album in batch for _, sequence in self.chosen.get(album, [])]
        photos: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
        for story, order, photo, image in Storylet.objects.filter(story_id__in=sequences).order_by(
                "story_id", "order").values_list("story_id", "order", "photo__external_id", "photo__image_id"):
            photos[story].append((order, photo, image))
        return photos

    def _dii_rows(self, batch: list[int]) -> Iterator[dict[str, Any]]:
        photos = self._sequence_photos(batch)
        images = {image for seq in photos.values() for _, _, image in seq}
        # (image, re-telling campaign) -> descriptions
        descriptions: dict[tuple[int, int | None], list[tuple[str, str, int]]] = defaultdict(list)
        rows = Description.objects.filter(image_id__in=images, assignment__hit__campaign_id__in=self.scope.dii)
        for image, campaign, text, normalized, worker in rows.order_by("pk").values_list(
                "image_id", "assignment__hit__campaign_id", "text", "normalized_text", "assignment__worker_id"):
            descriptions[(image, self.dii_source.get(campaign))].append((text, normalized, worker))
        imported: dict[int, list[tuple[str, int, str, str, str]]] = defaultdict(list)
        for album, photo, order, text, normalized, label in IsolatedDescription.objects.filter(
                album_id__in=[pk for pk in batch if pk in self.imported_dii]).order_by("pk").values_list(
                "album_id", "photo__external_id", "order", "description__text", "description__normalized_text",
                "worker_label"):
            imported[album].append((photo, order, text, normalized, label))
        for album in batch:
            album_id = self.albums[album][1]
            for photo, order, original, text, label in imported.get(album, []):
                self.collected.texts["dii"].append(text)
                yield {
                    "album_id": album_id, "original_text": original, "photo_flickr_id": photo,
                    "photo_order_in_story": order, "text": text, "tier": "descriptions-in-isolation",
                    "worker_id": label,
                }
            for retell, sequence in self.chosen.get(album, []):
                for order, photo, image in photos[sequence]:
                    for original, normalized, worker in descriptions.get((image, retell), []):
                        text = normalized or _normalize(original)
                        self.collected.texts["dii"].append(text)
                        yield {
                            "album_id": album_id, "original_text": original, "photo_flickr_id": photo,
                            "photo_order_in_story": order, "text": text, "tier": "descriptions-in-isolation",
                            "worker_id": self.workers(worker),
                        }

    def _dis_rows(self, batch: list[int]) -> Iterator[dict[str, Any]]:
        # an assignment's rows are written in its order (imported ones, without assignment, in file order)
        rows = self.scope.dis_rows().filter(sequence__album_id__in=batch).order_by(
            "sequence__album_id", "assignment_id", "pk").values_list(
            "sequence__album_id", "sequence_id", "order", "photo__external_id", "text", "original_text", "worker_id",
            "worker_label")
        for album, sequence, order, photo, text, original, worker, label in rows:
            self.collected.texts["dis"].append(text)
            yield {
                "album_id": self.albums[album][1], "original_text": original, "photo_flickr_id": photo,
                "photo_order_in_story": order, "story_id": str(self.stories.export_id.get(sequence, "")),
                "text": text, "tier": "descriptions-in-sequence", "worker_id": label or self.workers(worker),
            }

    # --- the extras -----------------------------------------------------------------------------------
    def _challenge(self, split: str, sequences: dict[tuple[str, tuple[str, ...]], str]) -> None:
        stories = [{"album_id": album, "photo_sequence": list(photos), "story_text_normalized": text}
                   for (album, photos), text in sequences.items()]
        document = {"team_name": "human", "evaluation_info": {"additional_description":
                    f"The first human story of each photo sequence of the {split} split."},
                    "output_stories": stories}
        with self.bundle.open_binary(f"challenge/{split}.human-stories.json") as out:
            out.write(orjson.dumps(document))

    def _ratings(self) -> None:
        rows = self.scope.rating_rows().filter(story__in=self.scope.story_rows()).order_by(
            "story_id", "pk").values_list("story_id", "rating", "aspects", "worker_id")
        ratings = []
        for story, rating, aspects, worker in rows:
            story_id = self.stories.export_id[story]
            self.collected.ratings[story_id].append(rating)
            ratings.append({"aspects": aspects or {}, "rating": rating, "story_id": str(story_id),
                            "worker_id": self.workers(worker)})
        self.collected.counts["ratings"] = len(ratings)
        if ratings:
            summary = rating_summary(ratings)
            with self.bundle.open_binary("ratings/story-ratings.json") as out:
                out.write(orjson.dumps({"question": RATING_QUESTION, "ratings": ratings, **summary}))
            alpha = summary["agreement"]["krippendorff_alpha"]
            self.bundle.notes.append(
                "`ratings/story-ratings.json` also gives each story's mean rating (`stories`, aggregated by the mean "
                "of its ratings) and Krippendorff's alpha of the ratings at the ordinal level (`agreement`): "
                + ("undefined (no story rated twice, or one value only)." if alpha is None else f"{alpha:.3f}.")
            )

    def _images(self, split: str, album_ids: list[int]) -> None:
        for batch in _chunks(album_ids):
            photos = Photo.objects.filter(album_id__in=batch).values_list("external_id", "image_id")
            images = Image.objects.in_bulk([image for _, image in photos])
            for photo, image_pk in photos:
                image, name = images[image_pk], f"images/{split}/{photo}.jpg"
                if not image.has_file:  # known only by reference: no file to copy
                    self.without_file += 1
                    continue
                if image.format == "JPEG":
                    self.bundle.copy_stored_file(name, image.original.name)
                    continue
                with image.original.open("rb") as handle, self.bundle.open_binary(name) as out:
                    out.write(jpeg_copy(handle.read()))  # the names say JPEG: other formats are converted
            self.bundle.advance(len(batch))


def _normalize(text: str) -> str:
    from metrics.text.normalize import normalize

    return normalize(text)


def write_sind(bundle: ExportBundle, campaigns: list[Campaign],
               stories_written: Callable[[SindWriter], None] | None = None) -> tuple[int, SindWriter]:
    writer = SindWriter(bundle, campaigns)
    records = writer.write(stories_written)
    counts = writer.collected.counts
    bundle.counts.update({
        "albums": len(writer.albums), "stories": len(writer.stories.export_id),
        "storylets": sum(v for k, v in counts.items() if k.startswith("sis ")),
        "dii": sum(v for k, v in counts.items() if k.startswith("dii ")),
        "dis": sum(v for k, v in counts.items() if k.startswith("dis ")),
        "ratings": counts.get("ratings", 0),
        **{k: v for k, v in counts.items() if k.endswith(" albums")},
    })
    bundle.campaigns = writer.scope.campaigns()
    bundle.simulated = bundle.simulated or any(
        c.is_simulated for c in bundle.campaigns) or writer.scope.story_rows().filter(is_simulated=True).exists()
    bundle.notes.append(
        f"Albums are split 80/10/10 by a hash of the album id with the seed `{writer.seed}` (imported VIST albums keep "
        "their released split); story ids are numbered per export, consecutively within an album (imported stories "
        f"keep their released ids, and the others are numbered after them); storylet_id = {writer.stories.slots} × "
        "story_id + position. "
        "Worker ids are de-identified. `text` is normalized (lowercased, Penn-Treebank tokens, names anonymized); "
        "`original_text` is what the worker typed."
    )
    if writer.without_file:
        bundle.counts["photos without file (by reference)"] = writer.without_file
        bundle.notes.append(f"{writer.without_file} photo(s) are known to the platform only by reference (no stored "
                            "file): they are not in `images/`.")
    return records, writer
