"""What MTurk refuses but botocore does not check, and the XML documents MTurk exchanges."""
from __future__ import annotations

from decimal import Decimal

import pytest

from mturk.providers.mturk import limits
from mturk.providers.mturk.documents import external_question, parse_answers
from mturk.providers.mturk.limits import LimitError, usd

# ---- money -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("amount", "expected"), [
    (Decimal("0.125"), "0.13"),  # half-up, not banker's rounding
    (Decimal("2.675"), "2.68"),  # a float would give 2.67
    (Decimal("0.005"), "0.01"),
    (Decimal("0.004"), "0.00"),
    ("1", "1.00"),
    ("0.5", "0.50"),
    (3, "3.00"),
    (0, "0.00"),
    ("1e3", "1000.00"),
])
def test_usd_rounds_half_up_to_the_cent_with_decimal(amount, expected):
    assert usd(amount) == expected


def test_usd_refuses_floats():
    with pytest.raises(LimitError, match="not float"):
        usd(0.1)


@pytest.mark.parametrize("amount", [Decimal("-0.01"), "-1", "-0.005"])
def test_usd_refuses_negative_amounts(amount):
    with pytest.raises(LimitError, match="not a positive USD amount"):
        usd(amount)


@pytest.mark.parametrize("amount", ["abc", "", "Infinity", "NaN", Decimal("NaN")])
def test_usd_refuses_what_is_not_money(amount):
    with pytest.raises(LimitError):
        usd(amount)


# ---- lengths ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("field", "maximum"), [
    ("title", limits.TITLE_MAX), ("description", limits.DESCRIPTION_MAX), ("keywords", limits.KEYWORDS_MAX),
    ("RequesterAnnotation", limits.ANNOTATION_MAX),
])
def test_lengths_up_to_the_limit_pass_and_one_more_is_refused(field, maximum):
    limits.check_length(field, "x" * maximum, maximum)
    with pytest.raises(LimitError) as raised:
        limits.check_length(field, "x" * (maximum + 1), maximum)
    assert str(raised.value) == f"{field} is {maximum + 1} characters; MTurk allows at most {maximum}"


def test_the_mturk_length_limits():
    assert (limits.TITLE_MAX, limits.DESCRIPTION_MAX, limits.KEYWORDS_MAX, limits.ANNOTATION_MAX) == (
        128, 2000, 1000, 255)


def test_title_of_129_characters_is_refused():
    with pytest.raises(LimitError, match="title is 129 characters; MTurk allows at most 128"):
        limits.check_length("title", "T" * 129, limits.TITLE_MAX, required=True)


@pytest.mark.parametrize("value", ["", "   ", "\n\t"])
def test_a_required_text_cannot_be_blank(value):
    with pytest.raises(LimitError, match="description is required by MTurk"):
        limits.check_length("description", value, limits.DESCRIPTION_MAX, required=True)
    limits.check_length("keywords", value, limits.KEYWORDS_MAX)  # optional: blank is fine


# ---- durations -------------------------------------------------------------------------------

def test_durations_from_30_seconds_to_365_days():
    limits.check_duration("lifetime", 30)
    limits.check_duration("lifetime", 365 * 24 * 3600)
    with pytest.raises(LimitError, match="lifetime is 29 s; MTurk allows 30 s to 31536000 s"):
        limits.check_duration("lifetime", 29)
    with pytest.raises(LimitError, match="lifetime is 31536001 s"):
        limits.check_duration("lifetime", 365 * 24 * 3600 + 1)


def test_auto_approval_delay_from_0_to_30_days():
    limits.check_duration("auto-approval delay", 0, 0, limits.AUTO_APPROVAL_MAX)
    limits.check_duration("auto-approval delay", 30 * 24 * 3600, 0, limits.AUTO_APPROVAL_MAX)
    with pytest.raises(LimitError, match="auto-approval delay is 2592001 s; MTurk allows 0 s to 2592000 s"):
        limits.check_duration("auto-approval delay", 30 * 24 * 3600 + 1, 0, limits.AUTO_APPROVAL_MAX)


# ---- requirements, question, token -----------------------------------------------------------

def test_at_most_ten_qualification_requirements():
    requirement = {"QualificationTypeId": "Q", "Comparator": "Exists"}
    limits.check_requirements([requirement] * 10)
    with pytest.raises(LimitError, match="11 qualification requirements; MTurk allows at most 10"):
        limits.check_requirements([requirement] * 11)


def test_question_size_is_counted_in_utf8_bytes():
    limits.check_question("x" * 65_535)
    with pytest.raises(LimitError, match="the question is 65536 bytes; MTurk allows at most 65535"):
        limits.check_question("x" * 65_536)
    # 32,768 two-byte characters: fewer characters than the limit, more bytes
    with pytest.raises(LimitError, match="65536 bytes"):
        limits.check_question("é" * 32_768)


def test_request_token_is_1_to_64_characters():
    limits.check_token("t" * 64)
    limits.check_token("t")
    for bad in ("", "t" * 65):
        with pytest.raises(LimitError, match="must be 1 to 64 characters"):
            limits.check_token(bad)


# ---- ExternalQuestion ------------------------------------------------------------------------

NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"


def test_external_question_escapes_ampersands_exactly_once():
    xml = external_question("https://example.org/work/abc?x=1&y=2")
    assert xml == (
        f'<ExternalQuestion xmlns="{NS}">'
        "<ExternalURL>https://example.org/work/abc?x=1&amp;y=2</ExternalURL>"
        "<FrameHeight>0</FrameHeight>"
        "</ExternalQuestion>"
    )
    assert "&amp;amp;" not in xml


def test_external_question_escapes_markup_and_keeps_the_frame_height():
    xml = external_question("https://example.org/a?b=<c>&d=1", frame_height=640)
    assert "<ExternalURL>https://example.org/a?b=&lt;c&gt;&amp;d=1</ExternalURL>" in xml
    assert "<FrameHeight>640</FrameHeight>" in xml


@pytest.mark.parametrize("url", ["http://example.org/work", "//example.org/work", "example.org/work", ""])
def test_external_question_needs_https(url):
    with pytest.raises(LimitError, match="MTurk needs an HTTPS task URL.*PUBLIC_BASE_URL"):
        external_question(url)


# ---- QuestionFormAnswers ---------------------------------------------------------------------

ANSWERS = """<?xml version="1.0" encoding="ASCII"?>
<QuestionFormAnswers xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd">
  <Answer>
    <QuestionIdentifier>text</QuestionIdentifier>
    <FreeText>A woman walks her brown dog &amp; a cat along the beach.</FreeText>
  </Answer>
  <Answer>
    <QuestionIdentifier>assignment_token</QuestionIdentifier>
    <FreeText>abc:123</FreeText>
  </Answer>
</QuestionFormAnswers>"""


def test_parse_answers_of_a_question_form_answers_document():
    assert parse_answers(ANSWERS) == {
        "text": "A woman walks her brown dog & a cat along the beach.",
        "assignment_token": "abc:123",
    }


def test_parse_answers_of_an_answer_without_free_text_is_empty():
    xml = ANSWERS.replace("<FreeText>abc:123</FreeText>", "")
    assert parse_answers(xml)["assignment_token"] == ""


def test_parse_answers_of_nothing_is_empty():
    assert parse_answers("") == {}


@pytest.mark.parametrize("xml", ["<QuestionFormAnswers><Answer>", "not xml at all", ANSWERS[:-10]])
def test_malformed_answers_raise_value_error(xml):
    with pytest.raises(ValueError, match="malformed QuestionFormAnswers"):
        parse_answers(xml)
