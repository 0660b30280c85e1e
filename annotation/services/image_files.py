"""Validating image bytes with Pillow and making thumbnails."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from io import BytesIO

from django.conf import settings
from PIL import Image as PILImage
from PIL import ImageOps, UnidentifiedImageError

# Pillow format name -> file extension of the stored original.
ALLOWED_FORMATS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}
THUMBNAIL_SIZES = {"thumb_small": 320, "thumb_large": 1024}
THUMBNAIL_QUALITY = 80


class ImageRejected(ValueError):
    """The bytes are not an acceptable image; the message says why."""


@dataclass(frozen=True)
class ImageInfo:
    format: str
    extension: str
    width: int
    height: int


def inspect_image(data: bytes) -> ImageInfo:
    """Check size, format allow-list, integrity (verify + full decode) and the pixel limit."""
    if len(data) > settings.IMAGE_MAX_BYTES:
        raise ImageRejected(f"file is {len(data)} bytes, over the limit of {settings.IMAGE_MAX_BYTES} bytes")
    if not data:
        raise ImageRejected("file is empty")
    PILImage.MAX_IMAGE_PIXELS = settings.IMAGE_MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", PILImage.DecompressionBombWarning)
            with PILImage.open(BytesIO(data)) as probe:
                fmt = probe.format or ""
                if fmt not in ALLOWED_FORMATS:
                    allowed = ", ".join(sorted(ALLOWED_FORMATS))
                    raise ImageRejected(f"format {fmt or 'unknown'} is not accepted (accepted: {allowed})")
                probe.verify()
            with PILImage.open(BytesIO(data)) as image:
                image.load()  # verify() does not decode pixels: a truncated file fails here
                oriented = ImageOps.exif_transpose(image)
                width, height = oriented.size
    except (PILImage.DecompressionBombError, PILImage.DecompressionBombWarning):
        raise ImageRejected(
            f"image has too many pixels (limit {settings.IMAGE_MAX_PIXELS}); refused as a decompression bomb"
        ) from None
    except UnidentifiedImageError:
        raise ImageRejected("not an image (or not a format Pillow can read)") from None
    except (OSError, SyntaxError, ValueError) as exc:
        if isinstance(exc, ImageRejected):
            raise
        raise ImageRejected(f"damaged or truncated image ({exc})") from None
    return ImageInfo(fmt, ALLOWED_FORMATS[fmt], width, height)


def render_thumbnails(data: bytes) -> dict[str, bytes]:
    """JPEG renditions, EXIF-oriented, longest side at most 320 and 1024 px."""
    PILImage.MAX_IMAGE_PIXELS = settings.IMAGE_MAX_PIXELS
    out: dict[str, bytes] = {}
    with PILImage.open(BytesIO(data)) as image:
        oriented = ImageOps.exif_transpose(image)
        if oriented.mode not in ("RGB", "L"):
            background = PILImage.new("RGB", oriented.size, (255, 255, 255))
            rgba = oriented.convert("RGBA")
            background.paste(rgba, mask=rgba.split()[-1])
            oriented = background
        for field, size in THUMBNAIL_SIZES.items():
            copy = oriented.copy()
            copy.thumbnail((size, size), PILImage.Resampling.LANCZOS)
            buffer = BytesIO()
            copy.save(buffer, "JPEG", quality=THUMBNAIL_QUALITY, optimize=True, progressive=True)
            out[field] = buffer.getvalue()
    return out
