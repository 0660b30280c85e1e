"""Serializer fields shared by the API's endpoints."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rest_framework import serializers
from rest_framework.relations import MANY_RELATION_KWARGS
from rest_framework.response import Response


class IdListField(serializers.ManyRelatedField):
    """A list of primary keys; anything but a list (an object, a string, a number) is refused."""

    def to_internal_value(self, data: Any) -> Sequence[Any]:
        if not isinstance(data, list):
            self.fail("not_a_list", input_type=type(data).__name__)
        return super().to_internal_value(data)


class ListedPrimaryKeyField(serializers.PrimaryKeyRelatedField):
    """With `many=True`: an IdListField."""

    @classmethod
    def many_init(cls, *args: Any, **kwargs: Any) -> IdListField:
        listed = {key: value for key, value in kwargs.items() if key in MANY_RELATION_KWARGS}
        return IdListField(child_relation=cls(*args, **kwargs), **listed)


def id_list(queryset: Any, **kwargs: Any) -> IdListField:
    """A list of ids of `queryset`'s objects (`many=True` of a PrimaryKeyRelatedField that refuses non-lists)."""
    return ListedPrimaryKeyField.many_init(queryset=queryset, **kwargs)  # what `many=True` calls


def set_choices(fields: Mapping[str, serializers.Field], name: str, choices: Iterable[Any]) -> None:
    """Give the choice field `name` its choices (known only once the registries are loaded)."""
    field = fields[name]
    if not isinstance(field, serializers.ChoiceField):
        raise TypeError(f"field {name!r} is a {type(field).__name__}, not a ChoiceField")
    field.choices = choices


def upload_too_large(upload: Any, limit: int, what: str) -> Response | None:
    """A 400 naming the limit when an uploaded file is larger than `limit` bytes, else None (read nothing)."""
    if upload.size is not None and upload.size > limit:
        return Response({"detail": f"the {what} is larger than {limit} bytes"}, status=400)
    return None
