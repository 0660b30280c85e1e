"""The XML documents MTurk exchanges: the ExternalQuestion we send, the QuestionFormAnswers we get."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

from .limits import LimitError

EXTERNAL_QUESTION_NS = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
)
ANSWERS_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"


def external_question(url: str, frame_height: int = 0) -> str:
    """An ExternalQuestion for an HTTPS task URL. `&` and the other XML specials are escaped once."""
    if not url.startswith("https://"):
        raise LimitError(f"MTurk needs an HTTPS task URL, got '{url}' (set PUBLIC_BASE_URL to an https:// address)")
    return (
        f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION_NS}">'
        f"<ExternalURL>{escape(url)}</ExternalURL>"
        f"<FrameHeight>{frame_height}</FrameHeight>"
        "</ExternalQuestion>"
    )


def parse_answers(xml: str) -> dict[str, str]:
    """QuestionFormAnswers XML -> {QuestionIdentifier: FreeText}. Raises ValueError on malformed XML."""
    if not xml:
        return {}
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise ValueError(f"malformed QuestionFormAnswers: {exc}") from None
    answers: dict[str, str] = {}
    for answer in root.iter(f"{{{ANSWERS_NS}}}Answer"):
        identifier = answer.findtext(f"{{{ANSWERS_NS}}}QuestionIdentifier")
        if identifier is None:
            continue
        answers[identifier] = answer.findtext(f"{{{ANSWERS_NS}}}FreeText") or ""
    return answers
