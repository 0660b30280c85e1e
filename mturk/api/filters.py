"""Query-parameter filters of the API's list endpoints: validated (a 400 names the parameter) and in the schema."""
from __future__ import annotations

from rest_framework import serializers
from rest_framework.request import Request

from ..states import AssignmentStatus

MAX_ID = 2**63 - 1  # a 64-bit primary key


class HITFilterSerializer(serializers.Serializer):
    campaign = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID,
                                        help_text="Only the HITs of this campaign (id).")


class AssignmentFilterSerializer(serializers.Serializer):
    campaign = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID,
                                        help_text="Only the assignments of this campaign (id).")
    status = serializers.ChoiceField(
        choices=AssignmentStatus.choices, required=False, help_text="Only the assignments in this status.",
        error_messages={"invalid_choice": f"'{{input}}' is not a status ({', '.join(AssignmentStatus.values)})."},
    )


def list_filters(serializer_class: type[serializers.Serializer], request: Request) -> dict:
    """The filters given in the query string (empty values count as absent); a ValidationError (400) otherwise."""
    names = serializer_class().fields.keys()
    given = {name: request.query_params[name] for name in names if request.query_params.get(name, "") != ""}
    serializer = serializer_class(data=given)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
