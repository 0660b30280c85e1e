import json
from decimal import Decimal, InvalidOperation

from django.core.management.base import BaseCommand, CommandError

from ...item_sources import get_source
from ...providers.base import ProviderError
from ...providers.registry import UnknownProvider, default_provider_name, get_provider, provider_names
from ...services.campaigns import CampaignError, create_campaign
from ...task_kinds import UnknownTaskKind, task_kind_names
from ._common import find_campaign


def decimal_arg(value: str) -> Decimal:
    try:
        return Decimal(value)
    except InvalidOperation:
        raise CommandError(f"'{value}' is not a number") from None


def json_arg(flag: str, value: str | None):
    if not value:
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{flag} is not valid JSON: {exc}") from None


class Command(BaseCommand):
    help = ("Create a draft campaign. HITs come from --all-images, from the image selector (--image-set, --tag, "
            "--search, --state, --not-in), or later from import_images --campaign. A selection that matches nothing "
            "is refused (no campaign is created).")

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--kind", required=True, help=f"task kind ({', '.join(task_kind_names())})")
        parser.add_argument("--provider", default=default_provider_name(), help=f"({', '.join(provider_names())})")
        parser.add_argument("--reward", type=decimal_arg, help="USD per assignment (default: the task kind's)")
        parser.add_argument("--assignments", type=int, help="assignments per HIT")
        parser.add_argument("--time-limit", type=int, help="seconds a worker has for one assignment")
        parser.add_argument("--budget", type=decimal_arg, help="budget cap in USD, fees included")
        parser.add_argument("--max-per-worker", type=int, help="most assignments one worker may do")
        parser.add_argument("--title", help="shown to workers (marketplaces: at most 128 characters)")
        parser.add_argument("--description", help="shown to workers in marketplace search results")
        parser.add_argument("--instructions")
        parser.add_argument("--options", help='task-kind options as JSON, e.g. \'{"min_words": 10}\'')
        parser.add_argument("--all-images", action="store_true", help="one HIT per imported image")
        selector = parser.add_argument_group(
            "select images (the wizard's selector, through the item source 'images'; one HIT per matching image)")
        selector.add_argument("--image-set", action="append", default=[], metavar="NAME",
                              help="a collection (repeatable: images in any of them); without it the demo "
                                   "collection is left out")
        selector.add_argument("--tag", action="append", default=[], help="a collection tag (repeatable: all of them)")
        selector.add_argument("--search", help="part of the image's key or file name")
        selector.add_argument("--state", choices=["no-boxes", "fewer-captions"],
                              help="no-boxes: no box yet; fewer-captions: fewer than --captions descriptions")
        selector.add_argument("--captions", type=int, help="N for --state fewer-captions (default 1)")
        selector.add_argument("--not-in", metavar="CAMPAIGN", help="leave out the images of this campaign (name or id)")
        selector.add_argument("--include-demo", action="store_true", help="keep the demo collection's images")
        parser.add_argument("--all-descriptions", action="store_true",
                            help="one HIT per description not linked yet whose image has boxes (link_words)")
        parser.add_argument("--after", metavar="CAMPAIGN",
                            help="source stage: each result approved there adds this campaign's HITs")
        parser.add_argument("--keywords", default="", help="comma-separated search keywords (marketplaces)")
        parser.add_argument("--lifetime", type=int, help="seconds a HIT stays on offer (default: 7 days)")
        parser.add_argument("--auto-approval-delay", type=int,
                            help="seconds after which the marketplace approves submitted work by itself")
        parser.add_argument("--qualifications",
                            help='worker requirements as JSON, e.g. \'{"approval_rate_min": 95, "locales": ["US"]}\' '
                                 "(keys: approval_rate_min, approved_min, locales, masters, adult); Prolific: "
                                 '\'{"devices": ["desktop"], "filters": [...], "estimated_minutes": 5}\'')
        parser.add_argument("--tasks-per-submission", type=int,
                            help="Prolific: tasks one participant does in one submission before being sent back "
                                 "(default 1)")
        parser.add_argument("--gold-rate", type=float, default=0.0,
                            help="share of the HITs that are gold items (0 to 0.5), mixed in among the real ones; "
                                 "needs active gold items of the kind (import_gold)")
        parser.add_argument("--onboarding-items", type=int, default=0,
                            help="onboarding gold items every worker does first (local and prolific)")
        parser.add_argument("--onboarding-pass", type=float,
                            help="mean onboarding score (0 to 1) a worker needs to go on (default 0.8)")
        parser.add_argument("--pilot-items", type=int, default=0, metavar="N",
                            help="pilot: the first N items each go to several workers, handed out first, so "
                                 "agreement can be measured after a few answers (e.g. 10)")
        parser.add_argument("--pilot-workers", type=int, metavar="K",
                            help="workers per pilot item (2 to 20, default 3)")
        parser.add_argument("--auto-approve-passing", action="store_true",
                            help="each sync approves submitted work that passes the task kind's checks")

    def handle(self, *args, **o):
        options = json_arg("--options", o["options"])
        qualifications = json_arg("--qualifications", o["qualifications"])
        items = None
        # the item sources the dataset apps register (annotation.item_sources); a source matching nothing refuses
        for flag, source, hint in (("all_images", "all_images", "; --include-demo alone takes every image, the "
                                    "demo's included"), ("all_descriptions", "descriptions", "")):
            if o[flag]:
                try:
                    items = get_source(source).items(o["kind"], [])
                except ValueError as exc:
                    raise CommandError(f"--{flag.replace('_', '-')}: {exc}{hint}") from None
        selection = {key: value for key, value in (
            ("set", o["image_set"]), ("tag", o["tag"]), ("search", o["search"]), ("state", o["state"]),
            ("captions", o["captions"]), ("not_in_campaign", o["not_in"]), ("include_demo", o["include_demo"]),
        ) if value}
        if selection:
            if items is not None:
                raise CommandError("select images either with --all-images/--all-descriptions or with the selector")
            try:  # the item source the dataset app registers (annotation: images by collection, tag, name, state)
                items = get_source("images").select(o["kind"], selection)
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        source_stage = find_campaign(o["after"]) if o["after"] else None
        try:
            campaign = create_campaign(
                name=o["name"], task_kind=o["kind"], provider=o["provider"], reward=o["reward"],
                assignments_per_hit=o["assignments"], time_limit_seconds=o["time_limit"],
                budget_cap=o["budget"], max_assignments_per_worker=o["max_per_worker"], title=o["title"],
                description=o["description"],
                instructions=o["instructions"], options=options, items=items, source_stage=source_stage,
                keywords=o["keywords"], lifetime_seconds=o["lifetime"],
                auto_approval_delay_seconds=o["auto_approval_delay"], qualifications=qualifications,
                auto_approve_passing=o["auto_approve_passing"], tasks_per_submission=o["tasks_per_submission"],
                gold_rate=o["gold_rate"], onboarding_items=o["onboarding_items"],
                onboarding_pass=o["onboarding_pass"], pilot_items=o["pilot_items"],
                pilot_assignments=o["pilot_workers"],
            )
        except (CampaignError, UnknownTaskKind, UnknownProvider) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Created campaign {campaign.pk} '{campaign.name}' ({campaign.hits.count()} HITs)")
        try:
            get_provider(campaign.provider).check_campaign(campaign)
        except ProviderError as exc:  # stored as a draft; publishing it will be refused until fixed
            self.stdout.write(f"Warning: {campaign.provider} would refuse to publish it: {exc}")
