"""Importing photo albums: a folder of album folders, or a JSON manifest (docs/formats/albums.md).

All or nothing: every album, photo and image file is checked first (`check_albums`); any problem is
reported (album, photo, manifest entry) and nothing is written. Then everything is written in one
transaction (`write_albums`). Re-importing an album keeps the photos it already has (same photo id),
adds the new ones and updates the album fields the input gives.

Times: `datetaken` is stored timezone-aware. A value without a UTC offset (VIST's "YYYY-MM-DD HH:MM:SS",
an EXIF DateTimeOriginal without OffsetTimeOriginal, ...) is taken to be UTC.

The package: fields.py (specs, report, field parsers), reading.py (the two layouts read and checked: check_albums),
writing.py (write_albums, import_albums)."""
