"""Importing a dataset in the ImageCLEF-style layout (docs/formats/imageclef.md): a directory or a zip with
concepts.tsv, images.tsv, the image files, boxes.tsv and descriptions.tsv.

Everything is checked before anything is written, and every problem is collected, each naming its file
and line (`boxes.tsv line 7: unknown concept 'wolf'`). A dataset with any problem changes nothing; a good
one is written in one transaction: concepts (and the vocabulary), images, gold boxes with their numbers,
descriptions and, for the linked ones, a gold correspondence.

The package: source.py (the files, their rows, the plan and the summary), checks.py (everything checked before
anything is written), importer.py (import_imageclef: written in one transaction)."""
