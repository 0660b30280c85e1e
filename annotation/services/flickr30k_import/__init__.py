"""Importing Flickr30k Entities as released (docs/formats/flickr30k.md, "Importing Flickr30k Entities"):
`Sentences/<id>.txt`, `Annotations/<id>.xml`, optionally the split files `train.txt`, `val.txt`, `test.txt` and the
image files (`flickr30k-images/<id>.jpg`), from a folder or a zip.

Two passes, like the COCO import: the first reads every file (one at a time, each under a size cap) and collects the
problems, each naming its file and line; any problem and nothing is written. The second reads the files again and
writes, in one transaction, in batches of images: images (with their file, or by reference with the size from the
XML) and their ImageOrigin("flickr30k", id, split), boxes with a concept per phrase type, the sentences as
descriptions and their phrases as word-to-box links. Images already holding boxes or descriptions are skipped, so a
re-import adds nothing.

The package: source.py (the files, the problems, the summary), parse.py (one sentence file, one annotation file),
plan.py (what one image becomes: box numbers, types, links), checks.py (the first pass), writes.py (the second),
importer.py (import_flickr30k: both, all or nothing)."""
