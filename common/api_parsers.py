"""The API's JSON parser: every JSON body goes through the platform's one JSON reader and its limits."""
from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from .json_input import JsonInputError, limits, parse_json


class LimitedJSONParser(JSONParser):
    """JSON bodies within JSON_MAX_BYTES, JSON_MAX_DEPTH and JSON_MAX_NUMBER_DIGITS, with storable text."""

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        json_limits = limits()
        data = stream.read(json_limits.max_bytes + 1) if stream is not None else b""
        try:
            return parse_json(data, json_limits)
        except JsonInputError as error:
            raise ParseError(f"JSON parse error - {error}") from None
