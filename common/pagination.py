"""The API's list pagination: `limit` and `offset` validated, `limit` capped."""
from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

MAX_OFFSET = 2**62  # beyond any row count, and within a database's 64-bit integers


class CappedLimitOffsetPagination(LimitOffsetPagination):
    """`limit` is a whole number from 1 (above 1000 counts as 1000); `offset` a whole number (above 2**62 counts
    as 2**62). Anything else is a 400 naming the parameter."""

    max_limit = 1000

    def _parameter(self, request: Request, name: str, maximum: int) -> int | None:
        raw = request.query_params.get(name)
        if raw is None or raw == "":
            return None
        if not raw.isascii() or not raw.isdigit() or len(raw) > 19:
            raise ValidationError({name: f"'{raw[:40]}' is not a whole number between 0 and {maximum}."})
        return min(int(raw), maximum)

    def get_limit(self, request: Request) -> int | None:
        limit = self._parameter(request, self.limit_query_param, self.max_limit)
        if limit == 0:
            raise ValidationError({self.limit_query_param: "must be at least 1."})
        return self.default_limit if limit is None else limit

    def get_offset(self, request: Request) -> int:
        offset = self._parameter(request, self.offset_query_param, MAX_OFFSET)
        return offset or 0
