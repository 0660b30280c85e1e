"""Importing COCO annotation files (docs/formats/coco.md, "Importing COCO"): a captions file and, optionally, an
instances file, with or without the image files.

The files are read streamed (ijson), never loaded whole, so the full COCO 2014 files (414k captions; 332 MB of
instances, mostly segmentation polygons) import with bounded memory: what is kept is one small record per image,
the ids already seen and the categories. A first pass checks every record and collects the problems, each naming
the file and the record (`captions_val2014.json: annotations[12] (id 48): image_id 999 is not among the images`);
any problem and nothing is written. A second pass writes everything in one transaction, in batches.

- Images are matched by key, the file name without extension (COCO_val2014_000000391895): an image with that key
  (or already imported with this COCO id) is reused. Else, when a folder of image files is given and holds the
  file, it is imported like any image (checked, hashed, renditions made); otherwise the image is known by
  reference: no file, its size from COCO and its address (coco_url, else flickr_url). Every image gets an
  ImageOrigin("coco", id, subset).
- Captions become descriptions (source "coco", the caption id as external id).
- Categories become concepts (by name, existing ones reused) in the vocabulary "coco"; boxes are rounded to
  whole pixels, clipped inside the image and numbered after the image's existing boxes. Crowd annotations
  (iscrowd 1) are skipped and counted; segmentations are not imported.
- Re-importing a file adds nothing: captions and boxes whose ids are already imported are skipped and counted.

The package: records.py (the files, the summary, the problems, records read streamed), checks.py (the first
pass), writes.py (the second), importer.py (import_coco: both, all or nothing)."""
