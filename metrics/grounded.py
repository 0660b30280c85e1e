"""The grounded-descriptions data the content-selection metric works on (plain records)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class BoxRecord:
    number: int  # box id within the image, as in the markup `[woman]^2`
    concept: str
    x: float
    y: float
    width: float
    height: float

    @property
    def area(self) -> float:
        return self.width * self.height

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2


@dataclass(frozen=True)
class DescriptionRecord:
    id: int | str
    tokens: list[str]
    links: dict[int, int] = field(default_factory=dict)  # token index -> box number

    @property
    def boxes(self) -> frozenset[int]:
        """G_m: the unique boxes this description references."""
        return frozenset(self.links.values())

    @property
    def box_sequence(self) -> list[int]:
        """Referenced boxes in token order, a box repeated in consecutive tokens counted once."""
        sequence: list[int] = []
        for index in sorted(self.links):
            box = self.links[index]
            if not sequence or sequence[-1] != box:
                sequence.append(box)
        return sequence


@dataclass(frozen=True)
class ImageRecord:
    key: str
    width: int
    height: int
    boxes: list[BoxRecord]
    descriptions: list[DescriptionRecord]  # gold descriptions that have a correspondence

    def concept_of(self, number: int) -> str:
        for box in self.boxes:
            if box.number == number:
                return box.concept
        raise KeyError(number)
