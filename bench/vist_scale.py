"""A VIST-scale visual-stories database, synthesized fast (bulk inserts with explicit ids, no services).

Used by bench/sind_export.py. Per album: 21 photos (rows of annotation.Image without files), 2
storytelling stories (each picks its own 5 photos) and 3 re-tellings (2 of the first sequence, 1 of the
second), 5 storylets per story, a ChosenSequence (the first sequence), 3 DII descriptions per photo of
the chosen sequence (describe_image campaign fed by the retell_story campaign, one approved Assignment
on a per-photo HIT each) and optionally DIS rows (describe_sequence, one Assignment per worker, 5 rows
each). Every story / description / DIS row has an approved Assignment on a HIT of its stage's campaign.
`text` / `normalized_text` are filled, so the export never normalizes.

At the default scale (10,000 albums): 210,000 images and photos, 50,000 stories, 250,000 storylets,
150,000 DII descriptions, 70,000 HITs, 200,000 assignments, 3,000 workers."""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from itertools import islice

PHOTOS_PER_ALBUM = 21
SEQUENCE = 5
TELLERS, RETELLERS = 2, 3
DII_PER_PHOTO = 3
BATCH = 5000

EVENTS = ("father's_day", "beach", "graduation_ceremony", "wedding", "birthday", "christmas", "halloween",
          "road_trip", "zoo", "concert", "hiking", "thanksgiving", "carnival", "baseball_game", "museum")
SUBJECTS = ("The family", "My brother", "Our friends", "The kids", "Everyone", "My mother", "The crowd",
            "The dog", "We", "The team", "Grandpa", "The bride", "The little girl", "They", "My best friend")
VERBS = ("arrived at", "had a great time at", "walked around", "took pictures of", "were excited about",
         "gathered near", "waited patiently for", "finally reached", "looked at", "celebrated at",
         "spent the afternoon at", "could not believe", "laughed about", "cleaned up after", "said goodbye to")
OBJECTS = ("the old church", "the beach house", "a huge cake", "the parade", "the big game", "the lake",
           "the tall trees", "the new car", "the fireworks", "the city lights", "the museum entrance",
           "the backyard", "the wedding hall", "the mountain top", "the small boat")
ENDINGS = (".", " today.", " this year.", " in the morning.", " all day long.", " again!", " together.",
           " before dinner.", " with everyone.", " at last.")
DESCRIBE = ("A man wearing a top hat", "A group of people", "Two children", "A woman in a red dress",
            "A brown dog", "An old building", "A crowded street", "A table full of food", "A small boat",
            "A couple", "A birthday cake", "A person on a bike")
WHERE = ("standing in front of a building", "sitting on a bench", "kneeling on the floor",
         "next to a lake", "at a party", "under a tree", "on the beach", "in a kitchen", "in a parking lot",
         "near a fountain", "on a stage", "by the window")


def _sentences(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """(original, normalized) pairs: the normalized one is what the VIST normalizer would roughly produce."""
    out = []
    for _ in range(count):
        original = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}{rng.choice(ENDINGS)}"
        normalized = original.lower().replace(".", " .").replace("!", " !")
        out.append((original, normalized))
    return out


def _descriptions(rng: random.Random, count: int) -> list[tuple[str, str]]:
    out = []
    for _ in range(count):
        original = f"{rng.choice(DESCRIBE)} {rng.choice(WHERE)}."
        out.append((original, original.lower()[:-1] + " ."))
    return out


def _batches(items: Iterable, size: int = BATCH) -> Iterator[list]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def _insert(model, objects: Iterable, log: Callable[[str], None]) -> int:
    started, count = time.perf_counter(), 0
    for batch in _batches(objects):
        model.objects.bulk_create(batch, batch_size=BATCH)
        count += len(batch)
    log(f"  {model._meta.label:<32} {count:>8,} rows  {time.perf_counter() - started:6.1f} s")
    return count


def synthesize(albums: int = 10_000, workers: int = 3_000, dis_per_photo: int = 0, seed: int = 0,
               log: Callable[[str], None] = print) -> dict[str, int]:
    """Fill an EMPTY database (the ids are explicit, starting at 1). Returns the row counts."""
    from django.core.management.color import no_style
    from django.db import connection, transaction

    from annotation.models import Description, Image
    from mturk.models import HIT, Assignment, Campaign, Worker
    from storyboard.models import Album, ChosenSequence, Photo, SequenceDescription, Setting, Story, Storylet

    rng = random.Random(seed)
    now = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    base_taken = datetime(2008, 1, 1, 8, 0, tzinfo=UTC)
    counts: dict[str, int] = {}
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA synchronous = OFF")

    # Which photos each storyteller picked: deterministic per album, computed once and reused below.
    picks = {a: [sorted(random.Random(seed * 1_000_003 + a * 2 + t).sample(range(PHOTOS_PER_ALBUM), SEQUENCE))
                 for t in range(TELLERS)] for a in range(1, albums + 1)}

    def photo_pk(album: int, index: int) -> int:
        return (album - 1) * PHOTOS_PER_ALBUM + index + 1

    def photo_ext(pk: int) -> str:
        return str(1_700_000 + pk)

    stories_per_album = TELLERS + RETELLERS

    def story_pk(album: int, k: int) -> int:  # k < TELLERS: storytelling, else re-telling
        return (album - 1) * stories_per_album + k + 1

    def sequence_of(k: int) -> int:  # re-tellings: 2 of the first sequence, 1 of the second
        return 0 if k < TELLERS + 2 else 1

    def worker_of(hit_pk: int, j: int) -> int:  # distinct workers within one HIT
        return (hit_pk * 7 + j * 101) % workers + 1

    with transaction.atomic():
        counts["workers"] = _insert(Worker, (Worker(id=w, provider="local", external_id=f"A{w:013d}")
                                             for w in range(1, workers + 1)), log)
        campaign_kw = dict(provider="local", status="closed", is_simulated=False, published_at=now,
                           assignments_per_hit=3)
        tell = Campaign(id=1, name="vist · tell", task_kind="tell_story", reward=Decimal("0.30"), **campaign_kw)
        retell = Campaign(id=2, name="vist · retell", task_kind="retell_story", reward=Decimal("0.25"),
                          source_stage_id=1, **campaign_kw)
        dii = Campaign(id=3, name="vist · dii", task_kind="describe_image", reward=Decimal("0.05"),
                       source_stage_id=2, **campaign_kw)
        dis = Campaign(id=4, name="vist · dis", task_kind="describe_sequence", reward=Decimal("0.07"),
                       source_stage_id=2, **campaign_kw)
        counts["campaigns"] = _insert(Campaign, [tell, retell, dii, dis], log)

        counts["images"] = _insert(Image, (
            Image(id=pk, key=f"vist-{pk}", sha256=f"{pk:064x}", original=f"images/originals/vist-{pk}.jpg",
                  original_name="x.jpg", format="JPEG", width=1024, height=768, file_size=150_000)
            for pk in range(1, albums * PHOTOS_PER_ALBUM + 1)), log)
        counts["albums"] = _insert(Album, (
            Album(id=a, external_id=str(72157600000000000 + a * 37), title=f"Album {a}",
                  description=f"Photos of event number {a}", event_label=EVENTS[a % len(EVENTS)],
                  owner=f"{50000000 + a}@N00",
                  flickr={"date_create": str(1220783782 + a), "date_update": str(1306981520 + a), "farm": "4",
                          "server": "3010", "secret": f"{a * 7919:010x}"})
            for a in range(1, albums + 1)), log)

        def photos() -> Iterator[Photo]:
            for a in range(1, albums + 1):
                for i in range(PHOTOS_PER_ALBUM):
                    pk = photo_pk(a, i)
                    secret = f"{pk * 2654435761 % 16**10:010x}"
                    yield Photo(id=pk, album_id=a, image_id=pk, external_id=photo_ext(pk),
                                datetaken=base_taken + timedelta(days=a, minutes=3 * i), title=f"Photo {i + 1}",
                                text="" if i % 3 else "A photo of the day.", tags=["vist", f"event{a % 50}", "2008"],
                                licence=str(1 + pk % 7), latitude=None if pk % 4 else 51.920449,
                                longitude=None if pk % 4 else -0.212688, secret=secret,
                                url=f"https://farm1.staticflickr.com/2/{photo_ext(pk)}_{secret}_o.jpg")
        counts["photos"] = _insert(Photo, photos(), log)

        # HITs: tell and retell one per album, DII one per photo of the chosen sequence, DIS one per album.
        tell_hit = lambda a: a  # noqa: E731
        retell_hit = lambda a: albums + a  # noqa: E731
        dii_hit = lambda a, o: 2 * albums + (a - 1) * SEQUENCE + o + 1  # noqa: E731
        dis_hit = lambda a: 2 * albums + albums * SEQUENCE + a  # noqa: E731

        def hits() -> Iterator[HIT]:
            common = dict(status="disposed", published_at=now, created_at=now)
            for a in range(1, albums + 1):
                yield HIT(id=tell_hit(a), campaign_id=1, position=a, items={"album": a}, group=f"album:{a}",
                          max_assignments=TELLERS, **common)
            for a in range(1, albums + 1):
                yield HIT(id=retell_hit(a), campaign_id=2, position=a, items={"album": a}, group=f"album:{a}",
                          max_assignments=RETELLERS, **common)
            for a in range(1, albums + 1):
                for o in range(SEQUENCE):
                    yield HIT(id=dii_hit(a, o), campaign_id=3, position=(a - 1) * SEQUENCE + o,
                              items={"image": photo_pk(a, picks[a][0][o]), "album": a}, group=f"album:{a}",
                              max_assignments=DII_PER_PHOTO, **common)
            if dis_per_photo:
                for a in range(1, albums + 1):
                    yield HIT(id=dis_hit(a), campaign_id=4, position=a, items={"sequence": story_pk(a, 0)},
                              group=f"album:{a}", max_assignments=dis_per_photo, **common)
        counts["hits"] = _insert(HIT, hits(), log)

        # Assignments: stories first (ids = story ids), then DII (one per description), then DIS.
        n_stories = albums * stories_per_album
        n_dii = albums * SEQUENCE * DII_PER_PHOTO

        def assignment(pk: int, hit: int, j: int, seconds: int) -> Assignment:
            return Assignment(id=pk, hit_id=hit, worker_id=worker_of(hit, j), status="approved",
                              external_id=f"3{pk:019d}", accepted_at=now, deadline=now + timedelta(hours=1),
                              submitted_at=now + timedelta(seconds=seconds), decided_at=now + timedelta(days=1),
                              time_on_task=timedelta(seconds=seconds))

        def assignments() -> Iterator[Assignment]:
            for a in range(1, albums + 1):
                for k in range(stories_per_album):
                    hit = tell_hit(a) if k < TELLERS else retell_hit(a)
                    yield assignment(story_pk(a, k), hit, k, 200 + (a + k) % 300)
            for a in range(1, albums + 1):
                for o in range(SEQUENCE):
                    for j in range(DII_PER_PHOTO):
                        yield assignment(n_stories + ((a - 1) * SEQUENCE + o) * DII_PER_PHOTO + j + 1,
                                         dii_hit(a, o), j, 20 + (a + j) % 40)
            for a in range(1, albums + 1):
                for j in range(dis_per_photo):
                    yield assignment(n_stories + n_dii + (a - 1) * dis_per_photo + j + 1, dis_hit(a), j, 90)
        counts["assignments"] = _insert(Assignment, assignments(), log)

        def stories() -> Iterator[Story]:
            for a in range(1, albums + 1):
                for k in range(stories_per_album):
                    pk = story_pk(a, k)
                    yield Story(id=pk, album_id=a, setting=Setting.TELL if k < TELLERS else Setting.RETELL,
                                sequence_of_id=None if k < TELLERS else story_pk(a, sequence_of(k)),
                                assignment_id=pk, worker_id=worker_of(tell_hit(a) if k < TELLERS else retell_hit(a), k),
                                created_at=now)
        counts["stories"] = _insert(Story, stories(), log)

        def storylets() -> Iterator[Storylet]:
            pk = 0
            for a in range(1, albums + 1):
                for k in range(stories_per_album):
                    sequence = picks[a][k if k < TELLERS else sequence_of(k)]
                    for order, (original, text) in enumerate(_sentences(rng, SEQUENCE)):
                        pk += 1
                        yield Storylet(id=pk, story_id=story_pk(a, k), order=order,
                                       photo_id=photo_pk(a, sequence[order]), original_text=original, text=text)
        counts["storylets"] = _insert(Storylet, storylets(), log)

        # The re-telling campaign whose workers chose the sequence (when the model records it).
        by_campaign = {"campaign_id": 2} if any(f.name == "campaign" for f in ChosenSequence._meta.fields) else {}
        counts["chosen sequences"] = _insert(ChosenSequence, (
            ChosenSequence(id=a, album_id=a, sequence_id=story_pk(a, 0), votes=2, created_at=now, **by_campaign)
            for a in range(1, albums + 1)), log)

        def descriptions() -> Iterator[Description]:
            for a in range(1, albums + 1):
                for o in range(SEQUENCE):
                    image = photo_pk(a, picks[a][0][o])
                    for j, (original, text) in enumerate(_descriptions(rng, DII_PER_PHOTO)):
                        pk = ((a - 1) * SEQUENCE + o) * DII_PER_PHOTO + j + 1
                        yield Description(id=pk, image_id=image, text=original, tokens=original[:-1].split() + ["."],
                                          normalized_text=text, assignment_id=n_stories + pk, source="crowd",
                                          created_at=now)
        counts["descriptions (DII)"] = _insert(Description, descriptions(), log)

        def sequence_descriptions() -> Iterator[SequenceDescription]:
            pk = 0
            for a in range(1, albums + 1):
                for j in range(dis_per_photo):
                    assignment_pk = n_stories + n_dii + (a - 1) * dis_per_photo + j + 1
                    for order, (original, text) in enumerate(_descriptions(rng, SEQUENCE)):
                        pk += 1
                        yield SequenceDescription(id=pk, sequence_id=story_pk(a, 0), order=order,
                                                  photo_id=photo_pk(a, picks[a][0][order]), original_text=original,
                                                  text=text, assignment_id=assignment_pk,
                                                  worker_id=worker_of(dis_hit(a), j))
        if dis_per_photo:
            counts["sequence descriptions (DIS)"] = _insert(SequenceDescription, sequence_descriptions(), log)

        models = [Worker, Campaign, Image, Album, Photo, HIT, Assignment, Story, Storylet, ChosenSequence,
                  Description, SequenceDescription]
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), models):
                cursor.execute(sql)
    if connection.vendor == "postgresql":  # what autovacuum would soon do; SQLite is left as Django leaves it
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return counts
