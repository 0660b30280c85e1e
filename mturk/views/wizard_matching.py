"""The wizard's selector of items (a source with `filters`, e.g. images by collection, tag, name and state): the
filter fields, the posted parameters, and the endpoint that answers one page of what matches, how many match and
how many HITs that makes (keyset paging: the page never holds more than one page of ids)."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from ..item_sources import ChoicePage, ItemSource, UnknownItemSource, get_source
from .access import researcher_required


def field_name(source: ItemSource, name: str) -> str:
    return f"filter-{source.name}-{name}"


def filter_params(data: QueryDict, source: ItemSource) -> dict[str, Any]:
    """The source's selector parameters from the form (`filter-<source>-<name>` fields); blanks left out."""
    params: dict[str, Any] = {}
    for spec in source.filters:
        key = field_name(source, spec.name)
        if spec.kind == "check":
            if data.get(key) == "on":
                params[spec.name] = True
        elif spec.multiple:
            values = [value.strip() for value in data.getlist(key) if value.strip()]
            if values:
                params[spec.name] = values
        elif value := (data.get(key) or "").strip():
            params[spec.name] = value
    return params


def filter_fields(data: QueryDict, source: ItemSource) -> list[dict[str, Any]]:
    """The filters as form fields with their posted values."""
    fields = []
    for spec in source.filters:
        key = field_name(source, spec.name)
        value: Any = data.get(key) == "on" if spec.kind == "check" else (
            data.getlist(key) if spec.multiple else data.get(key, ""))
        fields.append({"spec": spec, "name": key, "id": f"f-{key}", "value": value,
                       "choices": spec.choices() if spec.choices else None})
    return fields


def _query(source: ItemSource, params: dict[str, Any], after: int) -> str:
    pairs: list[tuple[str, str]] = []
    for name, value in params.items():
        for one in value if isinstance(value, list) else [value]:
            pairs.append((field_name(source, name), "on" if one is True else str(one)))
    pairs.append(("after", str(after)))
    return f"{reverse('campaign-wizard-matching', args=[source.name])}?{urlencode(pairs)}"


def matching_row(source: ItemSource, data: QueryDict, after: int = 0) -> dict[str, Any]:
    """What the matching fragment shows: a page of the matches, their count (the HITs), "select all" and more."""
    params = filter_params(data, source)
    error = ""
    try:
        page = source.matching(params, after)
    except ValueError as exc:
        page, error = ChoicePage([], 0, None), str(exc)
    ticked = set(data.getlist(f"item-{source.name}"))
    return {"source": source, "page": page, "error": error, "ticked": ticked, "append": after > 0,
            "all": data.get(f"all-{source.name}") == "on",
            "more_url": _query(source, params, page.next_after) if page.next_after else "",
            "filters": filter_fields(data, source)}


@require_GET
@researcher_required
def matching(request: HttpRequest, source: str) -> HttpResponse:
    """The items matching the filters (`filter-<source>-<name>`): count, HITs, "select all", one page (after id
    `after`); with `after` only the next page's choices (the form's "Show more" appends them)."""
    try:
        item_source = get_source(source)
    except UnknownItemSource:
        raise Http404("unknown item source") from None
    if not item_source.filters:
        raise Http404("this item source takes no selector")
    after = request.GET.get("after", "0")
    row = matching_row(item_source, request.GET, int(after) if after.isdigit() else 0)
    return render(request, "mturk/wizard/matching.html", {"row": row})
