"""Validating image bytes with Pillow and making the renditions task pages show."""
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
# Renditions are WebP (every browser the task pages support shows it), without metadata. Each size has a
# byte budget: the first quality whose file fits is kept (detailed photos step down, most fit at the first).
RENDITION_FORMAT, RENDITION_EXTENSION = "WEBP", "webp"
RENDITION_QUALITIES = (75, 68, 60, 52, 44, 36)
RENDITION_BUDGETS = {"thumb_small": 25 * 1024, "thumb_large": 80 * 1024}
# The version of the recipe above. Images whose renditions are older get new ones (`manage.py
# render_images`); raise it whenever sizes, format, quality or budgets change.
RENDITIONS_VERSION = 1


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


def encode_rendition(picture: PILImage.Image, budget: int) -> bytes:
    """WebP bytes of the picture at the first quality of RENDITION_QUALITIES that fits the byte budget
    (the lowest quality when none does)."""
    data = b""
    for quality in RENDITION_QUALITIES:
        buffer = BytesIO()
        picture.save(buffer, RENDITION_FORMAT, quality=quality, method=6)
        data = buffer.getvalue()
        if len(data) <= budget:
            break
    return data


def _oriented_rgb(image: PILImage.Image) -> PILImage.Image:
    """The image as shown: EXIF-oriented, transparency flattened on white."""
    oriented = ImageOps.exif_transpose(image)
    if oriented.mode not in ("RGB", "L"):
        background = PILImage.new("RGB", oriented.size, (255, 255, 255))
        rgba = oriented.convert("RGBA")
        background.paste(rgba, mask=rgba.split()[-1])
        oriented = background
    return oriented


def render_thumbnails(data: bytes) -> dict[str, bytes]:
    """WebP renditions, EXIF-oriented and flattened on white, longest side at most 320 and 1024 px, each
    within its byte budget."""
    PILImage.MAX_IMAGE_PIXELS = settings.IMAGE_MAX_PIXELS
    out: dict[str, bytes] = {}
    with PILImage.open(BytesIO(data)) as image:
        image.draft("RGB", (THUMBNAIL_SIZES["thumb_large"],) * 2)  # JPEG: decode at a reduced scale when large
        oriented = _oriented_rgb(image)
        for field, size in THUMBNAIL_SIZES.items():
            copy = oriented.copy()
            copy.thumbnail((size, size), PILImage.Resampling.LANCZOS)
            out[field] = encode_rendition(copy, RENDITION_BUDGETS[field])
    return out


def jpeg_copy(data: bytes, longest: int = 1024, quality: int = 80) -> bytes:
    """A JPEG of the image as shown, longest side at most `longest` px: for exports whose files are named .jpg
    when the original is another format."""
    PILImage.MAX_IMAGE_PIXELS = settings.IMAGE_MAX_PIXELS
    with PILImage.open(BytesIO(data)) as image:
        picture = _oriented_rgb(image)
        picture.thumbnail((longest, longest), PILImage.Resampling.LANCZOS)
        buffer = BytesIO()
        picture.save(buffer, "JPEG", quality=quality, optimize=True, progressive=True)
    return buffer.getvalue()
