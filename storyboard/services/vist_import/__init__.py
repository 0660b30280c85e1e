"""Importing the released VIST (SIND v.1) files (docs/formats/vist-import.md): SIS `<split>.story-in-sequence.json`,
DII `<split>.description-in-isolation.json` and DIS `<split>.description-in-sequence.json` (the platform's own).

Two passes over files read streamed (ijson), never loaded whole. The first checks every record and keeps what the
cross-checks need (which album each photo is in, each story's album, setting, worker and photo per position, the
albums' fields): about 300 bytes per photo and per storylet, some 150 MB for the whole VIST train split. Any problem
and nothing is written; each problem names the file and the record's JSON path
(`test.story-in-sequence.json: annotations[12][0] (story 45530): ...`). The second pass writes everything in one
transaction, in batches.

- Albums are matched by id (fields updated), photos by album and id (kept), images by key (the photo id): a photo
  is an image known only by reference (no file, its address from url_o / url_m), filed in the image set "VIST
  <split>" (source "vist", the licence of the release). The album keeps the released split.
- Stories keep their story_id, storylet_id, setting and worker_id; a re-telling points at the album's first
  storytelling story with the same photo sequence. Stories already imported (same story_id) are skipped.
- A story naming a photo the file's `images` do not list (the release left some photos out) is skipped whole and
  counted, as are DII and DIS records of such photos; a story with fewer than five storylets is kept as it is.
- DII become descriptions of the photo's image (source "vist") with their album, position and worker id; DIS
  become sequence descriptions of the story they name. Records already imported (same photo, position, worker
  and text) are skipped.

The package: records.py (files, problems, summary, streamed records), fields.py (one record's checks), checks.py
(the first pass), writes.py (the second), importer.py (import_vist: both, all or nothing)."""
