import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.urls import reverse
from rest_framework.authtoken.models import Token

from mturk.demo_parts import demo_parts
from mturk.models import Campaign
from mturk.providers.registry import get_provider
from mturk.services.campaigns import create_campaign, publish_campaign

from ...demo.grounded import seed_grounded_demo
from ...demo.seed import BOXED_IMAGE_COUNT, seed_concepts, seed_images

DEMO_CAMPAIGN = "Demo: describe images"


class Command(BaseCommand):
    help = ("Load the demo data (images, concepts with boxes, albums, a running campaign, a completed simulated "
            "grounded-descriptions campaign, a completed simulated story workflow, completed simulated human "
            "evaluations, a researcher). Idempotent.")

    def handle(self, *args, **options):
        concepts = seed_concepts()
        demo = seed_images(concepts)
        described, linked = seed_grounded_demo(demo.images[:BOXED_IMAGE_COUNT])
        parts = [part.seed() for part in demo_parts()]  # what the other apps seed (storyboard: albums, stories)
        campaign = Campaign.objects.filter(name=DEMO_CAMPAIGN).first()
        if campaign is None:
            campaign = create_campaign(
                name=DEMO_CAMPAIGN, task_kind="describe_image", assignments_per_hit=3,
                items=[{"image": image.pk} for image in demo.images[:12]],
            )
        if campaign.status == "draft":
            publish_campaign(campaign)
            campaign.refresh_from_db()
        username = os.environ.get("DEMO_USERNAME", "researcher")
        password = os.environ.get("DEMO_PASSWORD", "researcher-demo")
        user_model = get_user_model()
        user = user_model.objects.filter(username=username).first()
        if user is None:
            user = user_model.objects.create_superuser(username, f"{username}@example.org", password)
            password_note = password
        else:
            password_note = "(unchanged; DEMO_PASSWORD sets it for a new account)"
        token, _ = Token.objects.get_or_create(user=user)
        base = settings.PUBLIC_BASE_URL
        self.stdout.write(
            f"Demo data: {len(demo.images)} images, {len(concepts)} concepts, "
            + "".join(f"{part.summary}, " for part in parts) +
            f"campaign '{campaign.name}' ({campaign.hits.count()} HITs)"
        )
        self.stdout.write(
            f"Completed simulated campaigns '{described.name}' and '{linked.name}': try "
            f"`python manage.py export_dataset --format imageclef --out grounded.zip`"
        )
        for part in parts:
            for note in part.notes:
                self.stdout.write(note)
        self.stdout.write(f"Researcher login: {username} / {password_note}")
        self.stdout.write(f"Dashboard: {base}{reverse('dashboard')}")
        self.stdout.write(f"API token: {token.key}  (OpenAPI: {base}/api/docs/)")
        self.stdout.write(f"Worker link: {get_provider(campaign.provider).worker_link(campaign)}")
