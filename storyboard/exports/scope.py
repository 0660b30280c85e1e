"""Which rows a SIND export takes: the story workflow campaigns it was asked for (or all of them)."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from mturk.models import Campaign

from ..models import SequenceDescription, Story, StoryRating

STORY_KINDS = ("tell_story", "retell_story", "describe_image", "describe_sequence", "rate_story")


@dataclass(frozen=True)
class StoryScope:
    """Campaign ids per role; None means every campaign of that role."""

    stories: list[int] | None
    dii: list[int]
    dis: list[int] | None
    ratings: list[int] | None

    @classmethod
    def of(cls, campaigns: list[Campaign]) -> StoryScope:
        # DII are the describe_image campaigns fed by a re-telling stage (not grounded-description work).
        dii = Campaign.objects.filter(task_kind="describe_image", source_stage__task_kind="retell_story")
        if not campaigns:
            return cls(None, list(dii.values_list("pk", flat=True)), None, None)

        def ids(*kinds: str) -> list[int]:
            return [c.pk for c in campaigns if c.task_kind in kinds]

        return cls(
            ids("tell_story", "retell_story"), ids("describe_image"), ids("describe_sequence"), ids("rate_story")
        )

    def campaigns(self) -> list[Campaign]:
        """The campaigns the export draws from."""
        roles = (self.stories, self.dis, self.ratings)
        role_kinds = ("tell_story", "describe_sequence", "rate_story")
        kinds = [k for k, ids in zip(role_kinds, roles, strict=True) if ids is None]
        if self.stories is None:
            kinds.append("retell_story")
        chosen = {pk for ids in (*roles, self.dii) if ids for pk in ids}
        found = Campaign.objects.filter(task_kind__in=kinds) | Campaign.objects.filter(pk__in=chosen)
        return list(found.order_by("name"))

    def story_rows(self) -> QuerySet[Story]:
        stories = Story.objects.all()
        if self.stories is not None:
            stories = stories.filter(assignment__hit__campaign_id__in=self.stories)
        return stories

    def dis_rows(self) -> QuerySet[SequenceDescription]:
        rows = SequenceDescription.objects.all()
        if self.dis is not None:
            rows = rows.filter(assignment__hit__campaign_id__in=self.dis)
        return rows

    def rating_rows(self) -> QuerySet[StoryRating]:
        rows = StoryRating.objects.all()
        if self.ratings is not None:
            rows = rows.filter(assignment__hit__campaign_id__in=self.ratings)
        return rows
