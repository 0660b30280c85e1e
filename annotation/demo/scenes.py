"""Deterministic, offline generator of demo images for the annotation platform.

Everything is drawn with Pillow from simple flat shapes.  The only source of
variation is ``random.Random(seed)``, so the same seed always yields the same
JPEG bytes, object boxes and caption.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from PIL import Image, ImageDraw

WIDTH = 800
HEIGHT = 600
JPEG_QUALITY = 85

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

# ---------------------------------------------------------------------------
# Public data types
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ConceptSpec:
    """A vocabulary entry: name, WordNet synset id, synonyms and parent name."""

    name: str
    synset: str
    synonyms: tuple[str, ...]
    parent: str | None


@dataclass(frozen=True)
class DrawnObject:
    """One drawn object; ``box`` is (x, y, width, height) in image pixels."""

    concept: str
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class Scene:
    """A rendered 800x600 JPEG with its objects and a one-sentence caption."""

    name: str
    jpeg: bytes
    objects: tuple[DrawnObject, ...]
    caption: str


@dataclass(frozen=True)
class AlbumPhoto:
    """One photo of a demo album."""

    external_id: str
    datetaken: datetime
    title: str
    tags: tuple[str, ...]
    scene: Scene


@dataclass(frozen=True)
class AlbumSpec:
    """A themed demo album of exactly twelve photos taken on one day."""

    external_id: str
    title: str
    event_label: str
    photos: tuple[AlbumPhoto, ...]


CONCEPTS: tuple[ConceptSpec, ...] = (
    ConceptSpec("person", "person.n.01", ("human", "people", "individual"), None),
    ConceptSpec("woman", "woman.n.01", ("lady", "girl"), "person"),
    ConceptSpec("man", "man.n.01", ("gentleman", "guy", "boy"), "person"),
    ConceptSpec("dress", "dress.n.01", ("frock", "gown"), None),
    ConceptSpec("dog", "dog.n.01", ("puppy", "pup", "hound"), None),
    ConceptSpec("car", "car.n.01", ("automobile", "auto", "vehicle"), None),
    ConceptSpec("tree", "tree.n.01", ("plant",), None),
    ConceptSpec("house", "house.n.01", ("home", "building", "cottage"), None),
    ConceptSpec("sun", "sun.n.01", ("sunshine", "sunlight"), None),
    ConceptSpec("cloud", "cloud.n.02", ("clouds",), None),
    ConceptSpec("boat", "boat.n.01", ("sailboat", "ship", "dinghy"), None),
    ConceptSpec("ball", "ball.n.01", ("beach ball", "football"), None),
    ConceptSpec("balloon", "balloon.n.02", ("party balloon",), None),
)

CONCEPT_NAMES: frozenset[str] = frozenset(spec.name for spec in CONCEPTS)

# ---------------------------------------------------------------------------
# Colours
# ---------------------------------------------------------------------------

COLOURS: dict[str, RGB] = {
    "red": (205, 45, 45),
    "blue": (45, 95, 205),
    "green": (55, 150, 65),
    "yellow": (240, 205, 45),
    "orange": (240, 135, 35),
    "purple": (135, 65, 175),
    "pink": (235, 125, 175),
    "white": (240, 240, 238),
    "black": (40, 40, 45),
    "brown": (130, 82, 42),
    "grey": (135, 135, 140),
    "teal": (30, 150, 150),
    "golden": (215, 165, 70),
}

SKIN_TONES: tuple[RGB, ...] = ((245, 205, 170), (225, 175, 135), (190, 135, 95), (140, 95, 60), (100, 65, 40))
HAIR_TONES: tuple[RGB, ...] = ((40, 30, 25), (95, 60, 30), (200, 160, 80), (150, 60, 30), (60, 60, 60))
TROUSER_TONES: tuple[RGB, ...] = ((40, 50, 90), (50, 50, 55), (95, 75, 55), (110, 110, 120))
WINDOW_BLUE: RGB = (175, 215, 240)
DARK: RGB = (35, 35, 40)


def _clamp_channel(value: float) -> int:
    """Clamp a colour channel to 0..255."""
    return max(0, min(255, int(round(value))))


def _rgb(values: Iterable[float]) -> RGB:
    """Build a clamped RGB triple."""
    red, green, blue = (_clamp_channel(v) for v in values)
    return red, green, blue


def _jitter(rng: random.Random, colour: RGB, amount: int = 10) -> RGB:
    """Randomly nudge each channel by up to ``amount``."""
    return _rgb(c + rng.randint(-amount, amount) for c in colour)


def _shade(colour: RGB, factor: float) -> RGB:
    """Darken (<1) or lighten (>1) a colour."""
    if factor <= 1:
        return _rgb(c * factor for c in colour)
    return _rgb(c + (255 - c) * (factor - 1) for c in colour)


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    """Linear blend between two colours."""
    return _rgb(x + (y - x) * t for x, y in zip(a, b, strict=True))


def _named(rng: random.Random, options: Sequence[str]) -> tuple[str, RGB]:
    """Pick a colour name and a slightly jittered RGB value for it."""
    name = rng.choice(list(options))
    return name, _jitter(rng, COLOURS[name])


def _article(word: str) -> str:
    """Return "a" or "an" for the given word."""
    return "an" if word[:1].lower() in "aeiou" else "a"


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Shape:
    """A flat drawing primitive in image coordinates."""

    kind: str  # "ellipse" | "rect" | "rrect" | "polygon" | "line" | "pieslice"
    xy: tuple[int, ...]
    fill: RGB
    width: int = 0
    start: float = 0.0
    end: float = 0.0


def _r(value: float) -> int:
    """Round a coordinate to an int pixel."""
    return int(round(value))


def _ellipse(cx: float, cy: float, rx: float, ry: float, fill: RGB) -> _Shape:
    """Ellipse from centre and radii."""
    return _Shape("ellipse", (_r(cx - rx), _r(cy - ry), _r(cx + rx), _r(cy + ry)), fill)


def _rect(x0: float, y0: float, x1: float, y1: float, fill: RGB) -> _Shape:
    """Axis-aligned rectangle (inclusive corners)."""
    return _Shape("rect", (_r(x0), _r(y0), _r(x1), _r(y1)), fill)


def _rrect(x0: float, y0: float, x1: float, y1: float, radius: float, fill: RGB) -> _Shape:
    """Rounded rectangle; the radius is stored in ``width``."""
    return _Shape("rrect", (_r(x0), _r(y0), _r(x1), _r(y1)), fill, width=max(1, _r(radius)))


def _poly(points: Sequence[tuple[float, float]], fill: RGB) -> _Shape:
    """Filled polygon."""
    return _Shape("polygon", tuple(_r(v) for p in points for v in p), fill)


def _line(points: Sequence[tuple[float, float]], fill: RGB, width: float) -> _Shape:
    """Polyline of the given stroke width."""
    return _Shape("line", tuple(_r(v) for p in points for v in p), fill, width=max(1, _r(width)))


def _pieslice(cx: float, cy: float, r: float, start: float, end: float, fill: RGB) -> _Shape:
    """Pie slice of a circle, angles in degrees clockwise from 3 o'clock."""
    box = (_r(cx - r), _r(cy - r), _r(cx + r), _r(cy + r))
    return _Shape("pieslice", box, fill, start=start, end=end)


def _paint(draw: ImageDraw.ImageDraw, shape: _Shape, fill: RGB | int | None = None) -> None:
    """Draw one shape, optionally overriding its fill (used for masks)."""
    colour = shape.fill if fill is None else fill
    xy = list(shape.xy)
    if shape.kind == "ellipse":
        draw.ellipse(xy, fill=colour)
    elif shape.kind == "rect":
        draw.rectangle(xy, fill=colour)
    elif shape.kind == "rrect":
        draw.rounded_rectangle(xy, radius=shape.width, fill=colour)
    elif shape.kind == "polygon":
        draw.polygon(xy, fill=colour)
    elif shape.kind == "line":
        draw.line(xy, fill=colour, width=shape.width)
    elif shape.kind == "pieslice":
        draw.pieslice(xy, shape.start, shape.end, fill=colour)
    else:  # pragma: no cover - programming error
        raise ValueError(f"unknown shape kind {shape.kind!r}")


def _mirror(shapes: Sequence[_Shape], cx: float) -> tuple[_Shape, ...]:
    """Reflect shapes horizontally around the vertical line x = cx."""
    axis = _r(2 * cx)
    out: list[_Shape] = []
    for s in shapes:
        if s.kind in ("polygon", "line"):
            xy = tuple(axis - v if i % 2 == 0 else v for i, v in enumerate(s.xy))
            out.append(_Shape(s.kind, xy, s.fill, s.width))
        else:
            x0, y0, x1, y1 = s.xy
            start, end = (180 - s.end, 180 - s.start) if s.kind == "pieslice" else (0.0, 0.0)
            out.append(_Shape(s.kind, (axis - x1, y0, axis - x0, y1), s.fill, s.width, start, end))
    return tuple(out)


def _extent(shapes: Sequence[_Shape]) -> Box:
    """Approximate (x0, y0, x1, y1) extent of shapes, used for layout only."""
    xs: list[float] = []
    ys: list[float] = []
    for s in shapes:
        pad = s.width / 2 if s.kind == "line" else 0
        xs += [v - pad for v in s.xy[0::2]] + [v + pad for v in s.xy[0::2]]
        ys += [v - pad for v in s.xy[1::2]] + [v + pad for v in s.xy[1::2]]
    return _r(min(xs)), _r(min(ys)), _r(max(xs)), _r(max(ys))


# ---------------------------------------------------------------------------
# Objects
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Part:
    """An annotated sub-object already painted as part of its owner (e.g. a dress)."""

    concept: str
    shapes: tuple[_Shape, ...]


@dataclass(frozen=True)
class _Item:
    """A drawable object with the words used to describe it."""

    concept: str
    colour: str
    phrase: str
    shapes: tuple[_Shape, ...]
    parts: tuple[_Part, ...] = ()
    depth: float = 0.0


Builder = Callable[[random.Random, float, float, float], _Item]


def _maybe_mirror(rng: random.Random, shapes: list[_Shape], cx: float) -> tuple[_Shape, ...]:
    """Randomly face an object left or right."""
    return _mirror(shapes, cx) if rng.random() < 0.5 else tuple(shapes)


def _face(x: float, y: float, r: float) -> list[_Shape]:
    """Two dot eyes and a small mouth inside a head of radius r."""
    eye = max(1.5, 0.09 * r)
    return [
        _ellipse(x - 0.35 * r, y - 0.05 * r, eye, eye, DARK),
        _ellipse(x + 0.35 * r, y - 0.05 * r, eye, eye, DARK),
        _line([(x - 0.22 * r, y + 0.45 * r), (x + 0.22 * r, y + 0.45 * r)], (150, 60, 60), max(1, 0.07 * r)),
    ]


def _woman(rng: random.Random, x: float, base: float, s: float) -> _Item:
    """A woman in a trapezoid dress, standing with her feet on ``base``."""
    h = 300 * s
    skin, hair = rng.choice(SKIN_TONES), rng.choice(HAIR_TONES)
    name, dress = _named(rng, ("red", "blue", "green", "yellow", "purple", "pink", "orange", "teal"))
    r = 0.09 * h
    head_y = base - h + r
    shoulder = head_y + r + 0.02 * h
    hem = base - 0.24 * h
    dress_shape = _poly(
        [(x - 0.1 * h, shoulder), (x + 0.1 * h, shoulder), (x + 0.23 * h, hem), (x - 0.23 * h, hem)], dress
    )
    shapes = [
        _ellipse(x, head_y + 0.55 * r, 1.3 * r, 1.65 * r, hair),
        _line([(x - 0.09 * h, shoulder + 0.03 * h), (x - 0.2 * h, shoulder + 0.3 * h)], skin, 0.035 * h),
        _line([(x + 0.09 * h, shoulder + 0.03 * h), (x + 0.2 * h, shoulder + 0.3 * h)], skin, 0.035 * h),
        _rect(x - 0.08 * h, hem, x - 0.04 * h, base - 0.02 * h, skin),
        _rect(x + 0.04 * h, hem, x + 0.08 * h, base - 0.02 * h, skin),
        _ellipse(x - 0.065 * h, base - 0.015 * h, 0.04 * h, 0.015 * h, DARK),
        _ellipse(x + 0.065 * h, base - 0.015 * h, 0.04 * h, 0.015 * h, DARK),
        dress_shape,
        _ellipse(x, head_y, r, r, skin),
        *_face(x, head_y, r),
    ]
    phrase = f"a woman in {_article(name)} {name} dress"
    return _Item("woman", name, phrase, tuple(shapes), (_Part("dress", (dress_shape,)),), base)


def _man(rng: random.Random, x: float, base: float, s: float) -> _Item:
    """A man in a shirt and trousers."""
    h = 310 * s
    skin, hair = rng.choice(SKIN_TONES), rng.choice(HAIR_TONES)
    trousers = _jitter(rng, rng.choice(TROUSER_TONES), 6)
    name, shirt = _named(rng, ("red", "blue", "green", "yellow", "orange", "white", "purple", "teal"))
    r = 0.085 * h
    head_y = base - h + r
    shoulder = head_y + r + 0.015 * h
    hip = base - 0.45 * h
    shapes = [
        _line([(x - 0.12 * h, shoulder + 0.02 * h), (x - 0.17 * h, hip + 0.02 * h)], shirt, 0.05 * h),
        _line([(x + 0.12 * h, shoulder + 0.02 * h), (x + 0.17 * h, hip + 0.02 * h)], shirt, 0.05 * h),
        _ellipse(x - 0.175 * h, hip + 0.04 * h, 0.028 * h, 0.028 * h, skin),
        _ellipse(x + 0.175 * h, hip + 0.04 * h, 0.028 * h, 0.028 * h, skin),
        _rect(x - 0.12 * h, hip - 0.01 * h, x + 0.12 * h, hip + 0.05 * h, trousers),
        _rect(x - 0.12 * h, hip, x - 0.015 * h, base - 0.02 * h, trousers),
        _rect(x + 0.015 * h, hip, x + 0.12 * h, base - 0.02 * h, trousers),
        _ellipse(x - 0.075 * h, base - 0.015 * h, 0.055 * h, 0.015 * h, DARK),
        _ellipse(x + 0.075 * h, base - 0.015 * h, 0.055 * h, 0.015 * h, DARK),
        _rrect(x - 0.13 * h, shoulder, x + 0.13 * h, hip, 0.04 * h, shirt),
        _ellipse(x, head_y - 0.3 * r, 1.05 * r, 0.8 * r, hair),
        _ellipse(x, head_y, r, r, skin),
        _ellipse(x, head_y - 0.55 * r, 0.95 * r, 0.5 * r, hair),
        *_face(x, head_y, r),
    ]
    return _Item("man", name, f"a man in {_article(name)} {name} shirt", tuple(shapes), (), base)


def _dog(rng: random.Random, x: float, base: float, s: float) -> _Item:
    """A four-legged dog in profile."""
    size = 150 * s
    name, fur = _named(rng, ("brown", "black", "white", "golden", "grey"))
    dark = _shade(fur, 0.7)
    shapes = [
        _line([(x - 0.28 * size, base - 0.5 * size), (x - 0.45 * size, base - 0.74 * size)], fur, 0.05 * size),
        *[
            _rect(lx - 0.035 * size, base - 0.42 * size, lx + 0.035 * size, base, dark if i % 2 else fur)
            for i, lx in enumerate((x - 0.24 * size, x - 0.13 * size, x + 0.1 * size, x + 0.21 * size))
        ],
        _ellipse(x, base - 0.45 * size, 0.32 * size, 0.15 * size, fur),
        _poly(
            [
                (x + 0.15 * size, base - 0.52 * size),
                (x + 0.3 * size, base - 0.76 * size),
                (x + 0.42 * size, base - 0.62 * size),
                (x + 0.28 * size, base - 0.4 * size),
            ],
            fur,
        ),
        _ellipse(x + 0.36 * size, base - 0.7 * size, 0.14 * size, 0.12 * size, fur),
        _ellipse(x + 0.49 * size, base - 0.65 * size, 0.09 * size, 0.06 * size, _shade(fur, 1.15)),
        _ellipse(x + 0.575 * size, base - 0.67 * size, 0.025 * size, 0.025 * size, DARK),
        _ellipse(x + 0.29 * size, base - 0.71 * size, 0.055 * size, 0.12 * size, dark),
        _ellipse(x + 0.4 * size, base - 0.74 * size, 0.02 * size, 0.02 * size, DARK),
    ]
    return _Item("dog", name, f"{_article(name)} {name} dog", _maybe_mirror(rng, shapes, x), (), base)


def _car(rng: random.Random, x: float, base: float, s: float) -> _Item:
    """A side view of a small car on its wheels."""
    length = 300 * s
    name, paint = _named(rng, ("red", "blue", "green", "yellow", "white", "black", "orange", "grey"))
    x0 = x - length / 2
    top = base - 0.36 * length
    roof = base - 0.55 * length
    glass = _jitter(rng, WINDOW_BLUE, 6)
    shapes = [
        _poly(
            [
                (x0 + 0.2 * length, top + 2),
                (x0 + 0.3 * length, roof),
                (x0 + 0.68 * length, roof),
                (x0 + 0.82 * length, top + 2),
            ],
            paint,
        ),
        _poly(
            [
                (x0 + 0.27 * length, top),
                (x0 + 0.33 * length, roof + 0.03 * length),
                (x0 + 0.48 * length, roof + 0.03 * length),
                (x0 + 0.48 * length, top),
            ],
            glass,
        ),
        _poly(
            [
                (x0 + 0.52 * length, top),
                (x0 + 0.52 * length, roof + 0.03 * length),
                (x0 + 0.66 * length, roof + 0.03 * length),
                (x0 + 0.76 * length, top),
            ],
            glass,
        ),
        _rrect(x0, top, x0 + length, base - 0.08 * length, 0.05 * length, paint),
        _ellipse(x0 + length - 0.03 * length, top + 0.06 * length, 0.025 * length, 0.02 * length, (250, 230, 120)),
        _ellipse(x0 + 0.025 * length, top + 0.06 * length, 0.02 * length, 0.02 * length, (200, 30, 30)),
    ]
    for wx in (x0 + 0.22 * length, x0 + 0.78 * length):
        shapes.append(_ellipse(wx, base - 0.1 * length, 0.1 * length, 0.1 * length, DARK))
        shapes.append(_ellipse(wx, base - 0.1 * length, 0.045 * length, 0.045 * length, (170, 170, 175)))
    return _Item("car", name, f"{_article(name)} {name} car", _maybe_mirror(rng, shapes, x), (), base)


def _tree(rng: random.Random, x: float, base: float, s: float) -> _Item:
    """A tree: brown trunk and a crown of overlapping circles."""
    h = 420 * s * rng.uniform(0.85, 1.15)
    autumn = rng.random() < 0.2
    name = "orange" if autumn else "green"
    leaf = _jitter(rng, (215, 120, 40) if autumn else (60, 140, 55), 12)
    trunk = _jitter(rng, (110, 72, 40), 8)
    shapes = [
        _rect(x - 0.05 * h, base - 0.5 * h, x + 0.05 * h, base, trunk),
        _ellipse(x - 0.17 * h, base - 0.58 * h, 0.16 * h, 0.16 * h, _shade(leaf, 0.85)),
        _ellipse(x + 0.17 * h, base - 0.6 * h, 0.17 * h, 0.17 * h, _shade(leaf, 0.9)),
        _ellipse(x, base - 0.73 * h, 0.25 * h, 0.25 * h, leaf),
    ]
    phrase = "a tree with orange leaves" if autumn else rng.choice(("a green tree", "a leafy green tree"))
    return _Item("tree", name, phrase, tuple(shapes), (), base)


def _house(rng: random.Random, x: float, base: float, s: float) -> _Item:
    """A house: walls, triangle roof, door and two windows."""
    w = 420 * s * rng.uniform(0.9, 1.1)
    name, wall = _named(rng, ("red", "yellow", "blue", "white", "pink", "orange", "green"))
    roof = _jitter(rng, rng.choice(((120, 60, 40), (150, 40, 40), (90, 90, 100), (70, 50, 40))), 8)
    frame = (250, 250, 250) if name != "white" else (120, 120, 130)
    door_x = x + rng.uniform(-0.06, 0.06) * w
    shapes = [
        _rect(x + 0.2 * w, base - 0.93 * w, x + 0.3 * w, base - 0.7 * w, _shade(roof, 0.8)),
        _rect(x - w / 2, base - 0.62 * w, x + w / 2, base, wall),
        _poly([(x - 0.56 * w, base - 0.62 * w), (x, base - w), (x + 0.56 * w, base - 0.62 * w)], roof),
        _rect(door_x - 0.08 * w, base - 0.32 * w, door_x + 0.08 * w, base, _shade(wall, 0.55)),
    ]
    for wx in (x - 0.34 * w, x + 0.18 * w):
        shapes.append(_rect(wx, base - 0.5 * w, wx + 0.16 * w, base - 0.34 * w, WINDOW_BLUE))
        shapes.append(_line([(wx + 0.08 * w, base - 0.5 * w), (wx + 0.08 * w, base - 0.34 * w)], frame, 0.012 * w))
        shapes.append(_line([(wx, base - 0.42 * w), (wx + 0.16 * w, base - 0.42 * w)], frame, 0.012 * w))
    return _Item("house", name, f"{_article(name)} {name} house", tuple(shapes), (), base)


def _boat(rng: random.Random, x: float, base: float, s: float) -> _Item:
    """A sailboat floating with its hull on ``base`` (the waterline)."""
    length = 220 * s
    name, hull = _named(rng, ("red", "blue", "white", "yellow", "green"))
    sail_name, sail = _named(rng, ("white", "white", "yellow", "orange"))
    shapes = [
        _line([(x, base - 0.16 * length), (x, base - 0.92 * length)], (110, 80, 50), 0.025 * length),
        _poly(
            [
                (x + 0.03 * length, base - 0.9 * length),
                (x + 0.03 * length, base - 0.24 * length),
                (x + 0.42 * length, base - 0.24 * length),
            ],
            sail,
        ),
        _poly(
            [
                (x - 0.03 * length, base - 0.78 * length),
                (x - 0.03 * length, base - 0.24 * length),
                (x - 0.3 * length, base - 0.24 * length),
            ],
            _shade(sail, 0.93),
        ),
        _poly(
            [
                (x - 0.5 * length, base - 0.18 * length),
                (x + 0.5 * length, base - 0.18 * length),
                (x + 0.38 * length, base),
                (x - 0.38 * length, base),
            ],
            hull,
        ),
        _line(
            [(x - 0.46 * length, base - 0.13 * length), (x + 0.46 * length, base - 0.13 * length)],
            _shade(hull, 0.7),
            0.02 * length,
        ),
    ]
    if name == sail_name:
        phrase = f"{_article(name)} {name} sailboat"
    else:
        phrase = f"{_article(name)} {name} boat with {_article(sail_name)} {sail_name} sail"
    return _Item("boat", name, phrase, _maybe_mirror(rng, shapes, x), (), base)


def _ball(rng: random.Random, x: float, base: float, s: float) -> _Item:
    """A ball resting on the ground: plain or a striped beach ball."""
    r = 30 * s * rng.uniform(0.85, 1.2)
    cy = base - r
    name, main = _named(rng, ("red", "blue", "yellow", "green", "orange", "pink"))
    if rng.random() < 0.5:
        offset = rng.uniform(0, 60)
        shapes = [
            _pieslice(x, cy, r, offset + i * 60, offset + (i + 1) * 60, main if i % 2 == 0 else COLOURS["white"])
            for i in range(6)
        ]
        shapes.append(_ellipse(x, cy, 0.15 * r, 0.15 * r, COLOURS["white"]))
        return _Item("ball", name, f"{_article(name)} {name} and white beach ball", tuple(shapes), (), base)
    shapes = [_ellipse(x, cy, r, r, main), _ellipse(x - 0.35 * r, cy - 0.35 * r, 0.22 * r, 0.18 * r, _shade(main, 1.5))]
    return _Item("ball", name, f"{_article(name)} {name} ball", tuple(shapes), (), base)


def _sun(rng: random.Random, x: float, y: float, s: float) -> _Item:
    """A sun disc with straight rays, centred on (x, y)."""
    r = rng.uniform(26, 40) * s
    name, colour = _named(rng, ("yellow", "yellow", "orange"))
    rays = rng.choice((8, 10, 12))
    turn = rng.uniform(0, math.pi / rays)
    shapes = []
    for i in range(rays):
        a = turn + 2 * math.pi * i / rays
        shapes.append(
            _line(
                [
                    (x + 1.3 * r * math.cos(a), y + 1.3 * r * math.sin(a)),
                    (x + 1.75 * r * math.cos(a), y + 1.75 * r * math.sin(a)),
                ],
                colour,
                max(3, 0.09 * r),
            )
        )
    shapes.append(_ellipse(x, y, r, r, colour))
    return _Item("sun", name, f"{_article(name)} {name} sun", tuple(shapes), (), y)


def _cloud(rng: random.Random, x: float, y: float, s: float) -> _Item:
    """A puffy cloud made of ellipses, centred on (x, y)."""
    w = rng.uniform(130, 210) * s
    grey = rng.random() < 0.25
    name = "grey" if grey else "white"
    colour = _jitter(rng, (200, 203, 212) if grey else (248, 248, 250), 4)
    shapes = [
        _ellipse(x, y, 0.5 * w, 0.17 * w, colour),
        _ellipse(x - 0.2 * w, y - 0.09 * w, 0.18 * w, 0.16 * w, colour),
        _ellipse(x + 0.05 * w, y - 0.15 * w, 0.22 * w, 0.2 * w, colour),
        _ellipse(x + 0.26 * w, y - 0.05 * w, 0.15 * w, 0.14 * w, colour),
    ]
    return _Item("cloud", name, f"{_article(name)} {name} cloud", tuple(shapes), (), y)


def _balloon(rng: random.Random, x: float, y: float, s: float) -> _Item:
    """A party balloon centred on (x, y) with a wavy string below it."""
    rx, ry = 26 * s, 33 * s
    name, colour = _named(rng, ("red", "blue", "yellow", "green", "pink", "purple", "orange"))
    knot = y + ry + 7 * s
    length = rng.uniform(60, 110) * s
    string = [(x + (0 if i == 0 else 5 * s if i % 2 else -5 * s), knot + length * i / 5) for i in range(6)]
    shapes = [
        _line(string, (90, 90, 95), 2),
        _poly([(x, y + ry - 2), (x - 5 * s, knot), (x + 5 * s, knot)], _shade(colour, 0.85)),
        _ellipse(x, y, rx, ry, colour),
        _ellipse(x - 0.4 * rx, y - 0.45 * ry, 0.18 * rx, 0.25 * ry, _shade(colour, 1.5)),
    ]
    return _Item("balloon", name, f"{_article(name)} {name} balloon", tuple(shapes), (), y)


BUILDERS: dict[str, Builder] = {
    "woman": _woman,
    "man": _man,
    "dog": _dog,
    "car": _car,
    "tree": _tree,
    "house": _house,
    "boat": _boat,
    "ball": _ball,
    "sun": _sun,
    "cloud": _cloud,
    "balloon": _balloon,
}

# ---------------------------------------------------------------------------
# Backgrounds ("stages") and themes
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Band:
    """Where a concept may be anchored: y range and the scale at each end."""

    y0: int
    y1: int
    s0: float
    s1: float

    def pick(self, rng: random.Random) -> tuple[float, float]:
        """Random anchor y and the matching perspective scale."""
        y = rng.uniform(self.y0, self.y1)
        t = (y - self.y0) / max(1, self.y1 - self.y0)
        return y, self.s0 + (self.s1 - self.s0) * t


Stage = dict[str, _Band]

SKIES: tuple[tuple[RGB, RGB], ...] = (
    ((90, 150, 230), (190, 220, 250)),
    ((60, 120, 210), (170, 210, 245)),
    ((110, 170, 235), (225, 238, 250)),
    ((80, 140, 200), (205, 225, 240)),
)


def _gradient(draw: ImageDraw.ImageDraw, top: RGB, bottom: RGB, y0: int, y1: int) -> None:
    """Fill rows y0..y1-1 with a vertical gradient."""
    span = max(1, y1 - y0 - 1)
    for y in range(y0, y1):
        draw.line([(0, y), (WIDTH - 1, y)], fill=_mix(top, bottom, (y - y0) / span))


def _sky(draw: ImageDraw.ImageDraw, rng: random.Random, horizon: int) -> None:
    """Paint a blue sky gradient above the horizon."""
    top, bottom = rng.choice(SKIES)
    _gradient(draw, _jitter(rng, top, 8), _jitter(rng, bottom, 8), 0, horizon)


def _sky_bands(horizon: int) -> Stage:
    """Anchor bands for the sun and clouds."""
    return {"sun": _Band(80, 135, 0.9, 1.15), "cloud": _Band(45, max(60, horizon - 70), 0.8, 1.1)}


def _stage_park(draw: ImageDraw.ImageDraw, rng: random.Random) -> Stage:
    """Sky, distant hills and a grassy meadow with flowers."""
    horizon = rng.randint(300, 350)
    _sky(draw, rng, horizon)
    hill = _jitter(rng, (95, 160, 85), 10)
    for _ in range(rng.randint(1, 2)):
        cx, rx = rng.uniform(0, WIDTH), rng.uniform(250, 420)
        draw.ellipse([cx - rx, horizon - rng.uniform(40, 90), cx + rx, horizon + 120], fill=hill)
    _gradient(draw, _jitter(rng, (110, 185, 80), 10), _jitter(rng, (60, 135, 50), 10), horizon, HEIGHT)
    for _ in range(rng.randint(15, 35)):
        fx, fy = rng.uniform(0, WIDTH), rng.uniform(horizon + 20, HEIGHT - 4)
        petal = COLOURS[rng.choice(("white", "yellow", "pink", "red"))]
        draw.ellipse([fx - 3, fy - 3, fx + 3, fy + 3], fill=petal)
    ground = _Band(horizon + 90, HEIGHT - 10, 0.62, 1.0)
    back = _Band(horizon + 5, horizon + 45, 0.5, 0.66)
    return {
        **_sky_bands(horizon),
        "tree": back,
        "house": back,
        "woman": ground,
        "man": ground,
        "dog": ground,
        "ball": ground,
    }


def _stage_beach(draw: ImageDraw.ImageDraw, rng: random.Random) -> Stage:
    """Sky, sea with waves and a sandy beach."""
    horizon = rng.randint(240, 290)
    shore = horizon + rng.randint(95, 130)
    _sky(draw, rng, horizon)
    _gradient(draw, _jitter(rng, (40, 110, 170), 10), _jitter(rng, (70, 160, 200), 10), horizon, shore)
    foam = (225, 240, 250)
    for _ in range(rng.randint(8, 16)):
        wx, wy = rng.uniform(0, WIDTH), rng.uniform(horizon + 8, shore - 6)
        draw.line([(wx, wy), (wx + rng.uniform(20, 50), wy)], fill=foam, width=2)
    sand = _jitter(rng, (235, 210, 160), 8)
    draw.rectangle([0, shore, WIDTH, shore + 10], fill=_shade(sand, 0.85))
    _gradient(draw, sand, _shade(sand, 0.92), shore + 10, HEIGHT)
    ground = _Band(shore + 110, HEIGHT - 10, 0.7, 1.0)
    return {
        **_sky_bands(horizon),
        "boat": _Band(horizon + 30, shore - 8, 0.55, 0.85),
        "woman": ground,
        "man": ground,
        "dog": ground,
        "ball": ground,
    }


def _stage_city(draw: ImageDraw.ImageDraw, rng: random.Random) -> Stage:
    """Sky, pavement, a road with dashed markings and a front sidewalk."""
    horizon = rng.randint(300, 335)
    road_top = horizon + rng.randint(70, 85)
    road_bottom = road_top + rng.randint(105, 120)
    _sky(draw, rng, horizon)
    draw.rectangle([0, horizon, WIDTH, road_top], fill=_jitter(rng, (190, 190, 185), 8))
    draw.rectangle([0, road_top, WIDTH, road_bottom], fill=_jitter(rng, (75, 78, 82), 6))
    mid = (road_top + road_bottom) // 2
    dash, phase = rng.randint(40, 60), rng.randint(0, 60)
    for x0 in range(-phase, WIDTH, dash * 2):
        draw.rectangle([x0, mid - 3, x0 + dash, mid + 3], fill=(235, 235, 225))
    draw.rectangle([0, road_bottom, WIDTH, road_bottom + 8], fill=(150, 150, 150))
    draw.rectangle([0, road_bottom + 8, WIDTH, HEIGHT], fill=_jitter(rng, (200, 198, 190), 8))
    back = _Band(horizon + 20, road_top - 8, 0.5, 0.6)
    front = _Band(road_bottom + 45, HEIGHT - 8, 0.85, 0.98)
    return {
        **_sky_bands(horizon),
        "house": back,
        "tree": back,
        "car": _Band(road_top + 75, road_bottom - 4, 0.72, 0.85),
        "woman": front,
        "man": front,
        "dog": front,
        "ball": front,
    }


PASTELS: tuple[RGB, ...] = ((250, 222, 200), (215, 232, 250), (238, 222, 245), (252, 243, 200), (218, 244, 224))


def _stage_party(draw: ImageDraw.ImageDraw, rng: random.Random) -> Stage:
    """An indoor room: striped wall, bunting garland and a wooden floor."""
    floor_y = rng.randint(380, 420)
    wall = _jitter(rng, rng.choice(PASTELS), 6)
    draw.rectangle([0, 0, WIDTH, floor_y], fill=wall)
    stripe, phase = rng.randint(35, 60), rng.randint(0, 60)
    for x0 in range(-phase, WIDTH, stripe * 2):
        draw.rectangle([x0, 0, x0 + stripe, floor_y], fill=_shade(wall, 0.95))
    sag, top = rng.uniform(20, 40), rng.uniform(18, 30)
    flags = rng.randint(9, 14)
    for i in range(flags):
        fx = (i + 0.5) * WIDTH / flags
        fy = top + sag * math.sin(math.pi * fx / WIDTH)
        colour = COLOURS[rng.choice(("red", "blue", "yellow", "green", "pink", "purple"))]
        draw.polygon([(fx - 18, fy), (fx + 18, fy), (fx, fy + 32)], fill=colour)
    garland = [(x, top + sag * math.sin(math.pi * x / WIDTH)) for x in range(0, WIDTH + 1, 20)]
    draw.line(garland, fill=(90, 90, 90), width=2)
    wood = _jitter(rng, (170, 120, 75), 10)
    draw.rectangle([0, floor_y, WIDTH, HEIGHT], fill=wood)
    draw.rectangle([0, floor_y, WIDTH, floor_y + 10], fill=(245, 245, 240))
    for py in range(floor_y + 35, HEIGHT, rng.randint(28, 40)):
        draw.line([(0, py), (WIDTH, py)], fill=_shade(wood, 0.85), width=2)
    ground = _Band(floor_y + 60, HEIGHT - 8, 0.72, 1.0)
    return {"balloon": _Band(95, 200, 0.9, 1.3), "woman": ground, "man": ground, "dog": ground, "ball": ground}


@dataclass(frozen=True)
class _Theme:
    """Background painter, vocabulary and wording for one kind of scene."""

    key: str
    stage: Callable[[ImageDraw.ImageDraw, random.Random], Stage]
    leads: tuple[str, ...]
    staples: tuple[str, ...]  # added right after the lead when the budget allows
    extras: tuple[tuple[str, int, int], ...]  # (concept, weight, max count)
    settings: tuple[str, ...]
    where: str
    filler: str


THEMES: tuple[_Theme, ...] = (
    _Theme(
        "park",
        _stage_park,
        ("woman", "man", "dog", "tree"),
        ("tree",),
        (
            ("woman", 3, 2),
            ("man", 3, 2),
            ("dog", 3, 1),
            ("ball", 2, 1),
            ("tree", 3, 2),
            ("house", 2, 1),
            ("sun", 3, 1),
            ("cloud", 3, 2),
        ),
        ("in a green park", "on a grassy meadow", "in the park"),
        "in the park",
        "cloud",
    ),
    _Theme(
        "beach",
        _stage_beach,
        ("woman", "man", "boat", "dog"),
        ("sun", "boat"),
        (("boat", 4, 2), ("sun", 5, 1), ("woman", 3, 2), ("man", 3, 2), ("dog", 2, 1), ("ball", 3, 1), ("cloud", 2, 2)),
        ("at the seaside", "by the sea", "on the beach"),
        "at the beach",
        "sun",
    ),
    _Theme(
        "city",
        _stage_city,
        ("car", "house", "woman", "man"),
        ("house",),
        (
            ("house", 5, 3),
            ("car", 4, 2),
            ("tree", 3, 2),
            ("woman", 2, 1),
            ("man", 2, 1),
            ("dog", 2, 1),
            ("sun", 1, 1),
            ("cloud", 2, 2),
        ),
        ("on a quiet city street", "in a small town", "on a street in town"),
        "in the city",
        "house",
    ),
    _Theme(
        "party",
        _stage_party,
        ("woman", "man"),
        ("balloon",),
        (("balloon", 6, 3), ("woman", 3, 2), ("man", 3, 2), ("ball", 2, 1), ("dog", 2, 1)),
        ("at a birthday party", "in a room decorated for a party", "at an indoor party"),
        "at the party",
        "balloon",
    ),
)
THEMES_BY_KEY: dict[str, _Theme] = {t.key: t for t in THEMES}

# ---------------------------------------------------------------------------
# Composition
# ---------------------------------------------------------------------------

MAX_OBJECTS = 6
SKY_CONCEPTS = frozenset({"sun", "cloud", "balloon"})


def _cost(concept: str) -> int:
    """Number of annotated objects a concept adds (a woman also adds her dress)."""
    return 2 if concept == "woman" else 1


def _choose_concepts(rng: random.Random, theme: _Theme) -> list[str]:
    """Pick the lead concept plus extras, 2..6 annotated objects in total."""
    target = rng.randint(2, MAX_OBJECTS)
    chosen = [rng.choice(theme.leads)]
    budget = target - _cost(chosen[0])
    limits = {c: most for c, _, most in theme.extras}
    for concept in theme.staples:
        if chosen.count(concept) < limits[concept] and _cost(concept) <= budget:
            chosen.append(concept)
            budget -= _cost(concept)
    while budget > 0:
        options = [(c, w) for c, w, most in theme.extras if chosen.count(c) < limits[c] and _cost(c) <= budget]
        if not options:
            break
        concept = rng.choices([c for c, _ in options], weights=[w for _, w in options])[0]
        chosen.append(concept)
        budget -= _cost(concept)
    return chosen


def _overlap(a: Box, b: Box) -> float:
    """Intersection area divided by the smaller box's area."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / max(1, smaller)


def _fits(item: _Item, ext: Box, placed: Sequence[tuple[_Item, Box]]) -> bool:
    """True if ``item`` hides little of the others (more is fine at other depths)."""
    for other, other_ext in placed:
        sky = item.concept in SKY_CONCEPTS or other.concept in SKY_CONCEPTS
        limit = 0.1 if sky else 0.15 if abs(item.depth - other.depth) < 40 else 0.4
        if _overlap(ext, other_ext) >= limit:
            return False
    return True


def _place(rng: random.Random, concept: str, band: _Band, placed: list[tuple[_Item, Box]], tries: int) -> _Item | None:
    """Build an object at a random spot fully inside the image, not hiding others much."""
    for _ in range(tries):
        y, scale = band.pick(rng)
        item = BUILDERS[concept](rng, rng.uniform(40, WIDTH - 40), y, scale)
        ext = _extent(item.shapes)
        inside = ext[0] >= 2 and ext[1] >= 2 and ext[2] <= WIDTH - 3 and ext[3] <= HEIGHT - 3
        if inside and _fits(item, ext, placed):
            placed.append((item, ext))
            return item
    return None


def _compose(rng: random.Random, theme: _Theme, stage: Stage) -> list[_Item]:
    """Choose and place the scene's objects (lead first)."""
    items: list[_Item] = []
    placed: list[tuple[_Item, Box]] = []
    for index, concept in enumerate(_choose_concepts(rng, theme)):
        item = _place(rng, concept, stage[concept], placed, 200 if index == 0 else 25)
        if item is not None:
            items.append(item)
    while sum(_cost(i.concept) for i in items) < 2:
        item = _place(rng, theme.filler, stage[theme.filler], placed, 200)
        if item is None:  # pragma: no cover - the filler always fits on an emptyish stage
            break
        items.append(item)
    return items


def _draw_order(items: Sequence[_Item]) -> list[_Item]:
    """Sky things first, then ground things from far (small y) to near."""
    return sorted(items, key=lambda i: (i.concept not in SKY_CONCEPTS, i.depth))


def _mask_box(shapes: Sequence[_Shape]) -> tuple[int, int, int, int] | None:
    """Exact (x, y, w, h) of the pixels covered by shapes, clipped to the image."""
    mask = Image.new("L", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(mask)
    for shape in shapes:
        _paint(draw, shape, 255)
    bbox = mask.getbbox()
    if bbox is None:
        return None
    x0, y0, x1, y1 = bbox
    return x0, y0, x1 - x0, y1 - y0


def _annotate(items: Sequence[_Item]) -> tuple[DrawnObject, ...]:
    """DrawnObjects for items and their annotated parts, in item order."""
    objects: list[DrawnObject] = []
    for item in items:
        for concept, shapes in ((item.concept, item.shapes), *((p.concept, p.shapes) for p in item.parts)):
            box = _mask_box(shapes)
            if box is not None:
                objects.append(DrawnObject(concept, box))
    return tuple(objects)


def _stamp(image: Image.Image, code: int) -> None:
    """Encode ``code`` as a faint 32-block strip so distinct scenes never share pixels."""
    y0 = HEIGHT - 8
    for bit in range(32):
        if not (code >> bit) & 1:
            continue
        x0 = WIDTH - 8 * (bit + 1)
        box = (x0, y0, x0 + 8, HEIGHT)
        block = image.crop(box).point(lambda v: v + 6 if v < 128 else v - 6)
        image.paste(block, box)


def _encode(image: Image.Image) -> bytes:
    """JPEG-encode with fixed parameters and no metadata."""
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=JPEG_QUALITY, subsampling="4:2:0", optimize=True, progressive=False)
    return buffer.getvalue()


# ---------------------------------------------------------------------------
# Captions
# ---------------------------------------------------------------------------

NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
PEOPLE = frozenset({"woman", "man"})
VERBS_WITH: dict[str, tuple[str, ...]] = {
    "woman": ("stands next to", "walks past", "smiles beside", "waves near"),
    "man": ("stands next to", "walks past", "smiles beside", "waves near"),
    "dog": ("runs past", "plays near", "sits beside"),
    "car": ("is parked next to", "drives past"),
    "house": ("stands behind", "stands near"),
    "tree": ("grows near", "stands behind"),
    "boat": ("sails past", "floats not far from"),
}
DEFAULT_WITH = ("is next to",)
DEFAULT_ALONE = ("can be seen",)
VERBS_ALONE: dict[str, tuple[str, ...]] = {
    "woman": ("stands alone", "is enjoying the day", "takes a walk"),
    "man": ("stands alone", "is enjoying the day", "takes a walk"),
    "dog": ("runs around", "plays happily"),
    "car": ("is parked", "waits by the curb"),
    "house": ("stands quietly",),
    "tree": ("grows tall",),
    "boat": ("floats on the calm water", "sails slowly"),
}


def _join(words: Sequence[str]) -> str:
    """Join phrases as "a, b and c"."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _group_phrases(items: Sequence[_Item]) -> list[str]:
    """Describe items, merging repeated non-person concepts ("two red balloons")."""
    phrases: list[str] = []
    seen: set[str] = set()
    for item in items:
        if item.concept in PEOPLE:
            phrases.append(item.phrase)
            continue
        if item.concept in seen:
            continue
        seen.add(item.concept)
        same = [i for i in items if i.concept == item.concept]
        if len(same) == 1:
            phrases.append(item.phrase)
            continue
        colours = list(dict.fromkeys(i.colour for i in same))
        count, plural = NUMBER_WORDS[len(same)], item.concept + ("es" if item.concept.endswith("s") else "s")
        if len(colours) == 1:
            phrases.append(f"{count} {colours[0]} {plural}")
        else:
            phrases.append(f"{count} {plural} in {_join(colours)}")
    return phrases


def _sky_phrase(rng: random.Random, sky: Sequence[_Item]) -> str:
    """Trailing phrase like 'under a yellow sun and two white clouds' ('' if no sky items)."""
    if not sky:
        return ""
    preposition = rng.choice(("under", "beneath")) if any(i.concept == "sun" for i in sky) else "beneath"
    return f" {preposition} {_join(_group_phrases(sky))}"


def _capital(text: str) -> str:
    """Uppercase only the first character."""
    return text[:1].upper() + text[1:]


def _caption(rng: random.Random, theme: _Theme, items: Sequence[_Item]) -> str:
    """One varied English sentence naming the main objects and their colours."""
    lead = next((i for i in items if i.concept not in SKY_CONCEPTS), items[0])
    rest = [i for i in items if i is not lead]
    sky = [i for i in rest if i.concept in ("sun", "cloud")]
    others = [i for i in rest if i.concept not in ("sun", "cloud")]
    setting = rng.choice(theme.settings)
    sky_text = _sky_phrase(rng, sky)
    everything = _group_phrases([lead, *others])
    template = rng.randrange(4)
    if template == 0 and others:
        verb = rng.choice(VERBS_WITH.get(lead.concept, DEFAULT_WITH))
        body = f"{lead.phrase} {verb} {_join(_group_phrases(others))} {setting}"
    elif template == 0:
        body = f"{lead.phrase} {rng.choice(VERBS_ALONE.get(lead.concept, DEFAULT_ALONE))} {setting}"
    elif template == 1 and lead.concept in PEOPLE:
        company = f" {rng.choice(('with', 'together with'))} {_join(_group_phrases(others))}" if others else " happily"
        body = f"{setting}, {lead.phrase} {rng.choice(('poses', 'spends time', 'stands'))}{company}"
    elif template == 1:
        verb = "there are" if len(everything) > 1 or everything[0].split()[0] in NUMBER_WORDS.values() else "there is"
        body = f"{setting}, {verb} {_join(everything)}"
    elif template == 2:
        body = f"{rng.choice(('this picture shows', 'the photo shows', 'here we see'))} {_join(everything)} {setting}"
    else:
        body = f"{_join(everything)} can be seen {setting}"
    sentence = body + sky_text
    if len(sentence.split()) < 8:
        sentence += " on a bright day" if theme.key != "party" else " during a cheerful celebration"
    return _capital(sentence) + "."


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------

SCENE_KIND = 0
ALBUM_KIND = 1
ALBUM_SEED_BASE = 100_000


def _render(seed: int, theme: _Theme, name: str, kind: int) -> tuple[Scene, list[_Item]]:
    """Render one scene for a theme; also return the items for titles/tags."""
    rng = random.Random(seed)
    image = Image.new("RGB", (WIDTH, HEIGHT), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    stage = theme.stage(draw, rng)
    items = _compose(rng, theme, stage)
    for item in _draw_order(items):
        for shape in item.shapes:
            _paint(draw, shape)
    _stamp(image, (seed * 2 + kind) & 0xFFFFFFFF)
    scene = Scene(name=name, jpeg=_encode(image), objects=_annotate(items), caption=_caption(rng, theme, items))
    return scene, items


def render_scene(seed: int) -> Scene:
    """Render the demo scene for ``seed`` (theme cycles park/beach/city/party)."""
    scene, _ = _render(seed, THEMES[seed % len(THEMES)], f"scene-{seed:03d}.jpg", SCENE_KIND)
    return scene


def demo_scenes(count: int, start: int = 0) -> list[Scene]:
    """Scenes for seeds start .. start + count - 1."""
    return [render_scene(seed) for seed in range(start, start + count)]


@dataclass(frozen=True)
class SceneObject:
    """One thing a demo scene shows, as a person sees it: its concept and the colour words that describe it (a
    woman's are her dress's; a beach ball may have two)."""

    concept: str
    colours: tuple[str, ...]


def scene_contents(seed: int) -> tuple[SceneObject, ...]:
    """What the demo scene for ``seed`` shows, object by object (a woman's dress listed after her): the truth
    that the demo's simulated judges compare a caption with."""
    _, items = _render(seed, THEMES[seed % len(THEMES)], f"scene-{seed:03d}.jpg", SCENE_KIND)
    shown: list[SceneObject] = []
    for item in items:
        colours = tuple(word for word in item.phrase.split() if word in COLOURS)
        shown.append(SceneObject(item.concept, colours))
        shown.extend(SceneObject(part.concept, colours) for part in item.parts)
    return tuple(shown)


# ---------------------------------------------------------------------------
# Albums
# ---------------------------------------------------------------------------

PHOTOS_PER_ALBUM = 12
ALBUM_BASE_TIME = datetime(2025, 6, 14, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class _AlbumTheme:
    """Title, event label, scene theme and extra tags of an album."""

    title: str
    event_label: str
    theme: str
    tags: tuple[str, ...]


ALBUM_THEMES: tuple[_AlbumTheme, ...] = (
    _AlbumTheme("A day at the beach", "beach", "beach", ("sea", "summer")),
    _AlbumTheme("Mia's birthday party", "birthday party", "party", ("party", "celebration")),
    _AlbumTheme("Weekend city trip", "city trip", "city", ("city", "travel")),
    _AlbumTheme("Picnic in the park", "picnic", "park", ("park", "outdoors")),
)


def _photo_times(rng: random.Random, day: int) -> list[datetime]:
    """Twelve strictly increasing UTC times: ~35 minute steps from about 09:00."""
    current = ALBUM_BASE_TIME + timedelta(days=day, seconds=rng.randint(0, 600))
    times = [current]
    for _ in range(PHOTOS_PER_ALBUM - 1):
        current += timedelta(minutes=35, seconds=rng.randint(-420, 420))
        times.append(current)
    return times


def _photo_title(items: Sequence[_Item], where: str) -> str:
    """Short title such as "Woman and dog at the beach"."""
    names = [i.concept for i in items if i.concept not in ("sun", "cloud")]
    names = list(dict.fromkeys(names))[:2] or ["view"]
    return _capital(" and ".join(names)) + f" {where}"


def _photo_tags(spec: _AlbumTheme, scene: Scene) -> tuple[str, ...]:
    """Event tags followed by the concepts visible in the photo."""
    return tuple(dict.fromkeys((spec.event_label, *spec.tags, *(o.concept for o in scene.objects))))


def _album(index: int) -> AlbumSpec:
    """Build album number ``index + 1``."""
    spec = ALBUM_THEMES[index % len(ALBUM_THEMES)]
    theme = THEMES_BY_KEY[spec.theme]
    album_id = f"demo-album-{index + 1}"
    cycle = index // len(ALBUM_THEMES)
    title = spec.title if cycle == 0 else f"{spec.title} ({cycle + 1})"
    times = _photo_times(random.Random(ALBUM_SEED_BASE - index - 1), index)
    photos: list[AlbumPhoto] = []
    for number, taken in enumerate(times, start=1):
        photo_id = f"{album_id}-photo-{number:02d}"
        seed = ALBUM_SEED_BASE + (index + 1) * 100 + number
        scene, items = _render(seed, theme, f"{photo_id}.jpg", ALBUM_KIND)
        photos.append(AlbumPhoto(photo_id, taken, _photo_title(items, theme.where), _photo_tags(spec, scene), scene))
    return AlbumSpec(album_id, title, spec.event_label, tuple(photos))


def demo_albums(count: int = 3) -> list[AlbumSpec]:
    """``count`` themed albums (beach, birthday party, city trip, picnic, ...)."""
    return [_album(index) for index in range(count)]
