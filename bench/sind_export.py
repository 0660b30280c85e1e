"""Benchmark of the SIND / VIST export at VIST scale (targets, with the agreement scores stored: 10k albums
<= 2x the floor and <= 400 MB peak RSS of the whole process tree; 1k albums <= 3x its floor).

Run (honours DATABASE_URL; without it, a SQLite file /tmp/vist-bench.sqlite3, never the project's var/ database):

    .venv/bin/python bench/sind_export.py synth [--albums 10000] [--dis-per-photo 0] [--fresh]
    .venv/bin/python bench/sind_export.py export [--out /tmp/vist-bench-export.zip] [--profile] [--slow N]
    .venv/bin/python bench/sind_export.py floor [--out-dir /tmp/vist-bench-floor] [--profile]
    .venv/bin/python bench/sind_export.py check      # the floor wrote the same annotations as the export
    .venv/bin/python bench/sind_export.py scores
    .venv/bin/python bench/sind_export.py all [--runs 2]

`synth` migrates, then fills an empty database with bench/vist_scale.py (10k albums, 210k photos, 50k
stories, 250k storylets, 150k DII; `--fresh` first deletes the SQLite file). `export` runs
`mturk.datasets.formats.run_export("sind", out, [], {})` in this (fresh) process and prints the wall time with
its parts (files: SindWriter set-up and each tier; the stories report, write_story_report; the dataset
card and crowd report), the CPU seconds of the process (other load on the machine inflates wall time; on
PostgreSQL the server's work is not in it), the peak RSS (ru_maxrss, absolute) beside the RSS after
django.setup(), the SQL statements (counted by an execute wrapper, texts not kept; --slow N keeps the N
slowest), the zip size and the records; --profile adds cProfile's top functions. `floor` is
the same rows fetched with raw SQL on the DB cursor and written as the same JSON files with orjson (no
ORM, no zip). `scores` stores every missing or stale agreement score (one JVM). `all` synthesizes if the
database is empty, runs `scores` when some are missing, then --runs pairs (the floor, then the export), each in a
fresh process whose whole process tree (a METEOR JVM included) is measured from outside (wall; CPU from wait4;
peak of the summed RSS, sampled from /proc), and prints each pair's ratio export / floor with their median and
spread."""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import TypedDict
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/vist-bench.sqlite3")
DEFAULT_ZIP = Path(tempfile.gettempdir()) / "vist-bench-export.zip"
DEFAULT_FLOOR = Path(tempfile.gettempdir()) / "vist-bench-floor"
TIERS = (("sis", "story-in-sequence", "story-in-sequence"),
         ("dii", "description-in-isolation", "descriptions-in-isolation"),
         ("dis", "description-in-sequence", "descriptions-in-sequence"))


class Baseline(TypedDict):
    """The process's memory after django.setup() (MB)."""

    baseline_rss_mb: float
    baseline_peak_mb: float


class ExportFigures(Baseline):
    """`export`'s measures: seconds, MB, statement and record counts, and the time, statements and RSS per part."""

    database: str
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    queries: int
    execute_s: float
    zip_mb: float
    records: int
    counts: dict[str, int]
    parts_s: dict[str, float]
    part_queries: dict[str, int]
    rss_mb: dict[str, float]
    jvms: int


class FloorFigures(Baseline):
    """`floor`'s measures."""

    database: str
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    records: int
    written_mb: float


def setup() -> Baseline:
    os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp())
    import django

    django.setup()
    return {"baseline_rss_mb": current_rss_mb(), "baseline_peak_mb": peak_rss_mb()}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def cpu_s() -> float:
    """CPU seconds of this process (user + system): less sensitive than wall time to other load."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def current_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def describe_database() -> str:
    from django.db import connection

    settings = connection.settings_dict
    return f"{connection.vendor} ({settings['NAME']})"


class QueryCounter:
    """Counts SQL statements and the time spent executing them (no texts kept: 100k+ statements must not cost
    memory). The time excludes fetching, and server-side cursors (PostgreSQL .iterator()) run at the first fetch."""

    def __init__(self, keep_slowest: int = 0) -> None:
        self.count = 0
        self.seconds = 0.0
        self.keep = keep_slowest
        self.slowest: list[tuple[float, int, str]] = []  # a min-heap of at most `keep` (seconds, n, sql start)

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            seconds = time.perf_counter() - started
            self.seconds += seconds
            if self.keep:
                import heapq

                item = (seconds, self.count, sql[:300])
                if len(self.slowest) < self.keep:
                    heapq.heappush(self.slowest, item)
                elif seconds > self.slowest[0][0]:
                    heapq.heapreplace(self.slowest, item)


# --- synth --------------------------------------------------------------------------------------------------
def cmd_synth(args) -> None:
    url = os.environ["DATABASE_URL"]
    if args.fresh:
        if not url.startswith("sqlite:///"):
            sys.exit("--fresh only deletes a SQLite file; for PostgreSQL drop and create the database yourself")
        path = Path(url.removeprefix("sqlite://"))
        if path.resolve().is_relative_to(ROOT):
            sys.exit(f"refusing to delete {path}: it is inside the project")
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(path) + suffix).unlink(missing_ok=True)
    setup()
    from django.core.management import call_command
    from vist_scale import synthesize

    from storyboard.models import Album

    print(f"database: {describe_database()}")
    started = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    migrated = time.perf_counter()
    print(f"migrate: {migrated - started:.1f} s")
    if Album.objects.exists():
        sys.exit("the database already has albums: synth needs an empty database (SQLite: add --fresh)")
    counts = synthesize(albums=args.albums, workers=args.workers, dis_per_photo=args.dis_per_photo)
    print(f"synth: {time.perf_counter() - migrated:.1f} s; " + ", ".join(f"{v:,} {k}" for k, v in counts.items()))


# --- export -------------------------------------------------------------------------------------------------
def cmd_export(args) -> ExportFigures:
    baseline = setup()
    from django.db import connection

    import mturk.datasets.card
    import storyboard.export_formats as sind_format
    import storyboard.reports as reports
    from mturk.datasets.formats import run_export
    from storyboard.exports import sind

    counter = QueryCounter(args.slow)
    jvms = []
    meteor_class = reports.Meteor

    def counted_meteor(*a, **k):
        jvms.append(1)
        return meteor_class(*a, **k)

    mock.patch.object(reports, "Meteor", counted_meteor).start()
    parts: dict[str, float] = defaultdict(float)
    queries: dict[str, int] = defaultdict(int)
    rss: dict[str, float] = {}

    def timed(name, function):
        def wrapper(*a, **k):
            started, before = time.perf_counter(), counter.count
            try:
                return function(*a, **k)
            finally:
                parts[name] += time.perf_counter() - started
                queries[name] += counter.count - before
                rss[f"after {name}"] = current_rss_mb()
                rss[f"peak after {name}"] = peak_rss_mb()
        return wrapper

    original_file = sind.SindWriter._file

    def file_part(self, tier, *args, **kwargs):  # any signature: only the tier (first argument) is used
        return timed(f"files: {tier}", original_file)(self, tier, *args, **kwargs)

    for method, replacement in (
        ("_file", file_part),
        ("__init__", timed("files: set-up (workers, story index, albums)", sind.SindWriter.__init__)),
        ("_challenge", timed("files: challenge", sind.SindWriter._challenge)),
        ("_ratings", timed("files: ratings", sind.SindWriter._ratings)),
    ):
        mock.patch.object(sind.SindWriter, method, replacement).start()  # timed for the rest of the process
    sind_format.write_sind = timed(FILES, sind_format.write_sind)
    sind_format.write_story_report = timed(REPORT, sind_format.write_story_report)
    mturk.datasets.card.write_card_and_crowd_report = timed(
        "dataset card + crowd report", mturk.datasets.card.write_card_and_crowd_report)

    out = Path(args.out)
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    started, cpu_started = time.perf_counter(), cpu_s()
    with connection.execute_wrapper(counter):
        if profiler:
            profiler.enable()
        result = run_export("sind", out, [], {})
        if profiler:
            profiler.disable()
    wall = time.perf_counter() - started
    figures = ExportFigures(
        **baseline,
        database=describe_database(), wall_s=wall, cpu_s=cpu_s() - cpu_started, peak_rss_mb=peak_rss_mb(),
        queries=counter.count, execute_s=counter.seconds,
        zip_mb=out.stat().st_size / 2**20, records=result.records, counts=result.counts,
        parts_s=dict(parts), part_queries=dict(queries), rss_mb=rss, jvms=len(jvms),
    )
    print_export(figures)
    for seconds, number, sql in sorted(counter.slowest, reverse=True):
        print(f"  slow statement #{number}: {seconds:.2f} s  {sql}")
    if profiler:
        print_profile(profiler)
    return figures


def print_export(f: ExportFigures) -> None:
    print(f"database: {f['database']}")
    print(f"export: {f['wall_s']:.1f} s wall ({f['cpu_s']:.1f} s CPU in this process), "
          f"peak RSS {f['peak_rss_mb']:.0f} MB (after django.setup(): "
          f"{f['baseline_rss_mb']:.0f} MB), {f['queries']:,} SQL statements, zip {f['zip_mb']:.1f} MB, "
          f"{f['records']:,} records, {f['jvms']} METEOR JVM(s) started")
    print(f"  time inside cursor.execute (the database's share, fetches not included): {f['execute_s']:.1f} s")
    print("  counts: " + ", ".join(f"{k} {v:,}" for k, v in f["counts"].items()))
    named = (FILES, REPORT, "dataset card + crowd report")
    rest = f["wall_s"] - sum(f["parts_s"].get(name, 0) for name in named)
    for name, seconds in f["parts_s"].items():
        indent = "    " if name.startswith("files: ") else "  "
        print(f"{indent}{name:<48} {seconds:6.1f} s  {f['part_queries'][name]:6,} queries  "
              f"RSS after {f['rss_mb'][f'after {name}']:.0f} MB (peak so far {f['rss_mb'][f'peak after {name}']:.0f})")
    print(f"  {'rest (zip central directory, rename)':<48} {rest:6.1f} s")


def print_profile(profiler, limit: int = 30) -> None:
    import io
    import pstats

    for key in ("tottime", "cumulative"):
        stream = io.StringIO()
        pstats.Stats(profiler, stream=stream).sort_stats(key).print_stats(limit)
        print(f"--- profile by {key} ---")
        print("\n".join(stream.getvalue().splitlines()[:limit + 12]))


# --- floor --------------------------------------------------------------------------------------------------
def cmd_floor(args) -> FloorFigures:
    baseline = setup()
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    started, cpu_started = time.perf_counter(), cpu_s()
    records, written = floor(Path(args.out_dir))
    wall, cpu = time.perf_counter() - started, cpu_s() - cpu_started
    if profiler:
        profiler.disable()
    figures: FloorFigures = {**baseline, "database": describe_database(), "wall_s": wall, "cpu_s": cpu,
                             "peak_rss_mb": peak_rss_mb(), "records": records, "written_mb": written / 2**20}
    print(f"database: {figures['database']}")
    print(f"floor (raw SQL + orjson, no ORM, no zip): {wall:.1f} s wall ({cpu:.1f} s CPU in this process), "
          f"peak RSS {figures['peak_rss_mb']:.0f} MB, "
          f"{records:,} records, {figures['written_mb']:.0f} MB of JSON in {args.out_dir}")
    if profiler:
        print_profile(profiler)
    return figures


def floor(out_dir: Path) -> tuple[int, int]:
    """The export's files (sis/dii/dis per split with their images and albums, and the challenge files),
    from the same rows, fetched with one raw query per section and written record by record with orjson."""
    import orjson
    from django.conf import settings
    from django.db import connection

    from storyboard.exports.records import SPLITS, WorkerIds, split_of
    from storyboard.models import ChosenSequence  # only to read which columns the schema has

    shutil.rmtree(out_dir, ignore_errors=True)
    for tier in ("sis", "dii", "dis", "challenge"):
        (out_dir / tier).mkdir(parents=True)
    postgres = connection.vendor == "postgresql"
    cursor = connection.cursor()

    def rows(sql: str, params=()):
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(5000):
            yield from chunk

    def ids_in(column: str, ids: list[int]) -> tuple[str, list]:
        if postgres:
            return f"{column} = ANY(%s)", [ids]
        return f"{column} IN ({','.join('%s' for _ in ids)})", ids

    workers = WorkerIds({pk: (p, e) for pk, p, e in rows("SELECT id, provider, external_id FROM mturk_worker")})
    export_id: dict[int, int] = {}
    for number, (pk, _) in enumerate(rows("SELECT id, album_id FROM storyboard_story ORDER BY album_id, setting, id"),
                                     start=1):
        export_id[pk] = number
    cursor.execute('SELECT MAX("order") FROM storyboard_storylet')
    slots = max(5, (cursor.fetchone()[0] or 0) + 1)
    chosen = {album for (album,) in rows("SELECT DISTINCT album_id FROM storyboard_chosensequence")}
    dii_campaigns = [pk for (pk,) in rows(
        "SELECT c.id FROM mturk_campaign c JOIN mturk_campaign s ON s.id = c.source_stage_id "
        "WHERE c.task_kind = 'describe_image' AND s.task_kind = 'retell_story'")]
    story_albums = {album for (album,) in rows("SELECT DISTINCT album_id FROM storyboard_story")}
    albums = {row[0]: row for row in rows(
        "SELECT id, external_id, title, description, event_label, owner, flickr FROM storyboard_album ORDER BY id")
        if row[0] in story_albums}
    seed = "sind"
    split = {pk: split_of(row[1], seed) for pk, row in albums.items()}
    records = written = 0

    def image_rows(album_ids: list[int]):
        where, params = ids_in("album_id", album_ids)
        for (album, external, taken, title, text, tags, licence, lat, lon, secret, url) in rows(
                "SELECT album_id, external_id, datetaken, title, text, tags, licence, latitude, longitude, secret, url "
                f"FROM storyboard_photo WHERE {where} ORDER BY album_id, datetaken, id", params):
            if isinstance(tags, str):
                tags = orjson.loads(tags)
            yield album, external, {
                "album_id": albums[album][1],
                "datetaken": taken[:19] if isinstance(taken, str) else taken.strftime("%Y-%m-%d %H:%M:%S"),
                "id": external, "latitude": "0" if lat is None else repr(lat), "license": licence,
                "longitude": "0" if lon is None else repr(lon), "media": "photo", "secret": secret,
                "tags": " ".join(tags) if isinstance(tags, list) else str(tags or ""), "text": text, "title": title,
                "url_o": url,
            }

    def album_record(pk: int, count: int, first: str) -> dict:
        _, external, title, description, label, owner, flickr = albums[pk]
        if isinstance(flickr, str):
            flickr = orjson.loads(flickr)
        flickr = flickr or {}
        return {"date_create": str(flickr.get("date_create", "")), "date_update": str(flickr.get("date_update", "")),
                "description": description, "farm": str(flickr.get("farm", "")), "id": external, "owner": owner,
                "photos": str(count), "primary": str(flickr.get("primary") or first),
                "secret": str(flickr.get("secret", "")), "server": str(flickr.get("server", "")), "title": title,
                "vist_label": label}

    def sis(album_ids: list[int], sequences: dict):
        where, params = ids_in("s.album_id", album_ids)
        current: tuple[int, str, list[str], list[str]] | None = None  # story, album, photos, texts
        for album, story, order, photo, text, original, setting, worker in rows(
                'SELECT s.album_id, s.id, l."order", p.external_id, l.text, l.original_text, s.setting, s.worker_id '
                "FROM storyboard_storylet l JOIN storyboard_story s ON s.id = l.story_id "
                f"JOIN storyboard_photo p ON p.id = l.photo_id WHERE {where} "
                'ORDER BY s.album_id, s.setting, s.id, l."order"', params):
            story_id = export_id[story]
            album_id = albums[album][1]
            if current is None or current[0] != story_id:
                if current:
                    sequences.setdefault((current[1], tuple(current[2])), " ".join(current[3]))
                current = (story_id, album_id, [], [])
            current[2].append(photo)
            current[3].append(text)
            yield {"album_id": album_id, "original_text": original, "photo_flickr_id": photo, "setting": setting,
                   "story_id": str(story_id), "storylet_id": str(slots * story_id + order), "text": text,
                   "tier": "story-in-sequence", "worker_arranged_photo_order": order, "worker_id": workers(worker)}
        if current:
            sequences.setdefault((current[1], tuple(current[2])), " ".join(current[3]))

    # A chosen sequence's DII come from the describe_image campaigns fed by the re-telling campaign that
    # chose it (when ChosenSequence records that campaign; before, from any DII campaign).
    per_campaign = any(f.name == "campaign" for f in ChosenSequence._meta.fields)
    source = ("JOIN mturk_campaign dc ON dc.id = h.campaign_id AND dc.source_stage_id = c.campaign_id "
              if per_campaign else "")
    chosen_order = "c.campaign_id, " if per_campaign else ""

    def dii(album_ids: list[int]):
        where, params = ids_in("c.album_id", album_ids)
        campaigns, campaign_params = ids_in("h.campaign_id", dii_campaigns)
        for album, order, photo, original, normalized, worker in rows(
                'SELECT c.album_id, l."order", p.external_id, d.text, d.normalized_text, a.worker_id '
                "FROM storyboard_chosensequence c JOIN storyboard_storylet l ON l.story_id = c.sequence_id "
                "JOIN storyboard_photo p ON p.id = l.photo_id JOIN annotation_description d ON d.image_id = p.image_id "
                f"JOIN mturk_assignment a ON a.id = d.assignment_id JOIN mturk_hit h ON h.id = a.hit_id {source}"
                f'WHERE {where} AND {campaigns} ORDER BY c.album_id, {chosen_order}l."order", d.id',
                params + campaign_params):
            yield {"album_id": albums[album][1], "original_text": original, "photo_flickr_id": photo,
                   "photo_order_in_story": order, "text": normalized, "tier": "descriptions-in-isolation",
                   "worker_id": workers(worker)}

    def dis(album_ids: list[int]):
        where, params = ids_in("s.album_id", album_ids)
        for album, sequence, order, photo, text, original, worker in rows(
                'SELECT s.album_id, d.sequence_id, d."order", p.external_id, d.text, d.original_text, d.worker_id '
                "FROM storyboard_sequencedescription d JOIN storyboard_story s ON s.id = d.sequence_id "
                f"JOIN storyboard_photo p ON p.id = d.photo_id WHERE {where} "
                'ORDER BY s.album_id, d.assignment_id, d."order"', params):
            yield {"album_id": albums[album][1], "original_text": original, "photo_flickr_id": photo,
                   "photo_order_in_story": order, "story_id": str(export_id.get(sequence, "")), "text": text,
                   "tier": "descriptions-in-sequence", "worker_id": workers(worker)}

    def write_list(out, items) -> int:
        count = 0
        for item in items:
            out.write((b"," if count else b"") + orjson.dumps(item))
            count += 1
        return count

    for split_name in SPLITS:
        album_ids = sorted(pk for pk, s in split.items() if s == split_name)
        dii_albums = [pk for pk in album_ids if pk in chosen]
        sequences: dict = {}
        for tier, suffix, _ in TIERS:
            section_albums = album_ids if tier == "sis" else dii_albums
            path = out_dir / tier / f"{split_name}.{suffix}.json"
            info = {"version": "1.0", "license": settings.DATASET_LICENCE, "platform": settings.PLATFORM_NAME,
                    "split": split_name, "split_seed": seed}
            with path.open("wb") as out:
                out.write(b'{"info":' + orjson.dumps(info) + b',"type":' + orjson.dumps(suffix) + b',"images":[')
                counts: dict[int, int] = defaultdict(int)
                first: dict[int, str] = {}

                def images(section_albums=section_albums, counts=counts, first=first):
                    for album, external, record in image_rows(section_albums) if section_albums else ():
                        counts[album] += 1
                        first.setdefault(album, external)
                        yield record
                write_list(out, images())
                out.write(b'],"albums":[')
                write_list(out, (album_record(pk, counts.get(pk, 0), first.get(pk, "")) for pk in section_albums))
                out.write(b'],"annotations":[')
                annotations = sis(album_ids, sequences) if tier == "sis" else dii(dii_albums) if tier == "dii" \
                    else dis(dii_albums)
                records += write_list(out, ([row] for row in annotations) if section_albums else ())
                out.write(b"]}")
            written += path.stat().st_size
        document = {"team_name": "human", "evaluation_info": {"additional_description":
                    f"The first human story of each photo sequence of the {split_name} split."},
                    "output_stories": [{"album_id": album, "photo_sequence": list(photos),
                                        "story_text_normalized": text} for (album, photos), text in sequences.items()]}
        path = out_dir / "challenge" / f"{split_name}.human-stories.json"
        path.write_bytes(orjson.dumps(document))
        written += path.stat().st_size
    return records, written


# --- check --------------------------------------------------------------------------------------------------
def cmd_check(args) -> None:
    """The floor's files hold what the export's do (info aside): so the floor does the same work."""
    import zipfile

    import orjson

    differences = 0
    with zipfile.ZipFile(args.out) as archive:
        names = [n for n in archive.namelist() if n.split("/")[0] in ("sis", "dii", "dis", "challenge")]
        for name in sorted(names):
            exported = orjson.loads(archive.read(name))
            floor_file = Path(args.out_dir) / name
            if not floor_file.exists():
                print(f"{name}: missing from the floor")
                differences += 1
                continue
            floored = orjson.loads(floor_file.read_bytes())
            exported.pop("info", None)
            floored.pop("info", None)
            same = exported == floored
            differences += not same
            size = len(exported.get("annotations", exported.get("output_stories", [])))
            print(f"{name}: {'same' if same else 'DIFFERENT'} ({size:,} annotations)")
    sys.exit(1 if differences else 0)


# --- all ----------------------------------------------------------------------------------------------------
FILES, REPORT = "files (write_sind)", "stories report (write_story_report)"


def files_s(export: dict) -> float:
    return export["parts_s"].get(FILES, 0.0)


class Tree(TypedDict):
    """A child process tree's measures, taken from outside it: wall time, CPU (user + system of the child and every
    process it waited for, such as a JVM), and the peak of the sum of the RSS of all its processes (sampled)."""

    tree_wall_s: float
    tree_cpu_s: float
    tree_peak_rss_mb: float
    tree_processes: int


def tree_pids(root: int) -> list[int]:
    """`root` and its descendants (from /proc/<pid>/task/<tid>/children)."""
    pids, seen = [root], {root}
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in seen:
                    seen.add(child)
                    pids.append(child)
    return pids


def tree_rss_kb(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            continue
    return total


def run_child(command: list[str], interval: float = 0.05) -> dict:
    """Run this script's `command` in a fresh process, sampling its process tree every `interval` seconds."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen([sys.executable, __file__, *command, "--json"], stdout=out, stderr=err,
                                   env=os.environ.copy(), text=True)
        peak_kb, processes = 0, set()
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            pids = tree_pids(process.pid)
            processes.update(pids)
            peak_kb = max(peak_kb, tree_rss_kb(pids))
            time.sleep(interval)
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    sys.stdout.write(stdout.split("\nRESULT ")[0].rstrip("\n") + "\n")
    if process.returncode:
        sys.stderr.write(stderr)
        sys.exit(f"{command[0]} failed")
    tree = Tree(tree_wall_s=wall, tree_cpu_s=usage.ru_utime + usage.ru_stime, tree_peak_rss_mb=peak_kb / 1024,
                tree_processes=len(processes))
    print(f"  whole process tree (measured from outside): {wall:.1f} s wall, {tree['tree_cpu_s']:.1f} s CPU, "
          f"peak RSS {tree['tree_peak_rss_mb']:.0f} MB over {len(processes)} process(es)")
    return {**json.loads(stdout.rsplit("\nRESULT ", 1)[1]), **tree}


def spread(values: list[float]) -> str:
    import statistics

    return f"median {statistics.median(values):.2f} (min {min(values):.2f}, max {max(values):.2f}, {len(values)} runs)"


def cmd_all(args) -> None:
    setup()
    from django.core.management import call_command

    from storyboard.models import Album

    call_command("migrate", verbosity=0, interactive=False)
    if not Album.objects.exists():
        synth = subprocess.run([sys.executable, __file__, "synth", "--albums", str(args.albums)], env=os.environ.copy())
        if synth.returncode:
            sys.exit("synth failed")
    else:
        print(f"reusing the synthesized database ({Album.objects.count():,} albums)")
    from django.db import connection

    from storyboard.services.agreement_scores import albums_with_unscored_stories

    if albums_with_unscored_stories():
        print("--- storing the stories' agreement scores (the background job's work, done once) ---")
        run_child(["scores"])
    connection.close()
    exports, floors = [], []
    for run in range(1, args.runs + 1):  # each pair in the same conditions: the floor, then the export
        print(f"--- run {run}: floor ---")
        floors.append(run_child(["floor", "--out-dir", args.out_dir]))
        print(f"--- run {run}: export ---")
        exports.append(run_child(["export", "--out", args.out]))
    print("--- summary (whole process trees) ---")
    for n, (e, f) in enumerate(zip(exports, floors, strict=True), start=1):
        print(f"run {n}: export {e['tree_wall_s']:.1f} s wall / {e['tree_cpu_s']:.1f} s CPU (peak RSS "
              f"{e['tree_peak_rss_mb']:.0f} MB, JVMs started {e['jvms']}, {e['queries']:,} queries, zip "
              f"{e['zip_mb']:.1f} MB, {e['records']:,} records), floor {f['tree_wall_s']:.1f} s wall / "
              f"{f['tree_cpu_s']:.1f} s CPU (peak RSS {f['tree_peak_rss_mb']:.0f} MB); ratio "
              f"{e['tree_wall_s'] / f['tree_wall_s']:.2f} wall, {e['tree_cpu_s'] / f['tree_cpu_s']:.2f} CPU; files "
              f"part (write_sind) {files_s(e):.1f} s; stories report {e['parts_s'].get(REPORT, 0):.1f} s")
    pairs = list(zip(exports, floors, strict=True))
    print(f"export / floor, wall: {spread([e['tree_wall_s'] / f['tree_wall_s'] for e, f in pairs])}")
    print(f"export / floor, CPU:  {spread([e['tree_cpu_s'] / f['tree_cpu_s'] for e, f in pairs])}")
    print(f"export / floor, wall inside the process (after django.setup()): "
          f"{spread([e['wall_s'] / f['wall_s'] for e, f in pairs])}")
    print(f"export wall: {spread([e['tree_wall_s'] for e in exports])} s; floor wall: "
          f"{spread([f['tree_wall_s'] for f in floors])} s")
    print(f"export peak RSS of the whole tree: max {max(e['tree_peak_rss_mb'] for e in exports):.0f} MB; JVMs started "
          f"by the exports: {sum(e['jvms'] for e in exports)} (targets: 10k albums <= 2x the floor and <= 400 MB; "
          f"1k albums <= 3x)")


def cmd_scores(args) -> dict:
    """Compute and store every missing or stale agreement score (what the job after approval keeps current)."""
    setup()
    from storyboard.services.agreement_scores import score_stories

    started, cpu_started = time.perf_counter(), cpu_s()
    done = score_stories()
    wall = time.perf_counter() - started
    print(f"scores: {done.stories:,} stories, {done.scored:,} pairs scored in {wall:.1f} s "
          f"({cpu_s() - cpu_started:.1f} s CPU in the Python process; the JVM's is in the tree's figures)")
    return {"wall_s": wall, "stories": done.stories, "scored": done.scored}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    synth = commands.add_parser("synth")
    synth.add_argument("--albums", type=int, default=10_000)
    synth.add_argument("--workers", type=int, default=3_000)
    synth.add_argument("--dis-per-photo", type=int, default=0, help="DIS workers per chosen sequence (VIST had none)")
    synth.add_argument("--fresh", action="store_true", help="delete the SQLite file first")
    for name in ("export", "floor", "check", "all", "scores"):
        command = commands.add_parser(name)
        command.add_argument("--out", default=str(DEFAULT_ZIP))
        command.add_argument("--out-dir", default=str(DEFAULT_FLOOR))
        command.add_argument("--profile", action="store_true")
        command.add_argument("--slow", type=int, default=0, help="export: print the N slowest statements")
        command.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
        command.add_argument("--runs", type=int, default=2)
        command.add_argument("--albums", type=int, default=10_000)
    args = parser.parse_args()
    result = {"synth": cmd_synth, "export": cmd_export, "floor": cmd_floor, "check": cmd_check,
              "all": cmd_all, "scores": cmd_scores}[args.command](args)
    if getattr(args, "json", False) and result is not None:
        print("\nRESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
