"""The demo's human evaluation (`manage.py seed_demo`): a finished, simulated evaluation a researcher can open in the
console, with its leaderboard and report.

The test set is the collection "Demo: human evaluation": the demo scenes that have human descriptions (the
simulated crowd's descriptions of the grounded demo, seeded before the parts), which are the references. Three
captioners of visibly different quality are uploaded, each built from the demo scenes:
- "accurate captioner": the scene's own caption (it names every thing drawn, with its colours);
- "confused captioner": the caption of the next scene of the same kind (a park for a park, a party for a party):
  fluent and on topic, but with things the picture lacks and wrong colours, as a captioner that mixes up
  similar pictures;
- "generic captioner": one sentence for every picture, as a collapsed captioner writes.
The evaluation (design rating, the default question, 3 judges per output, attention checks) is launched on the
local provider, judged by simulated judges (demo_judges.py) through the crowd core's services, approved, closed
(its work is done) and analysed. A pairwise evaluation of the three captioners (the reference is not compared:
half the tasks) is run the same way.

Idempotent: an analysed evaluation is left as it is; one left half-way (an interrupted seeding) is taken up where
it stopped (missing uploads, the launch, the remaining tasks, the approvals, the analysis)."""
from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.urls import reverse

from annotation.demo.scenes import THEMES, SceneObject, demo_scenes, render_scene, scene_contents
from annotation.demo.seed import DEMO_IMAGE_COUNT
from annotation.image_sets.services import SetSpec, file_images
from annotation.models import Image
from mturk.demo_parts import DemoSeeded, register_demo_part
from mturk.models import Campaign
from mturk.providers.registry import own_crowd
from mturk.services.review import approve_submitted
from mturk.work.services.simulated import close_simulated

from .demo_judges import judge_campaign
from .models import HumanEvaluation
from .services.analysis import analyse_evaluation
from .services.automatic import shared_meteor
from .services.evaluations import create_evaluation
from .services.launch import launch_evaluation
from .services.uploads import upload_outputs

COLLECTION = "Demo: human evaluation"
RATING = "Demo: captions (rating)"
PAIRWISE = "Demo: captions (pairwise)"
JUDGES = 3  # judgements of each output (rating) or pair (pairwise)
CROWD = 5  # simulated judges taking the tasks
SEED = "demo"
GENERIC = "A picture of a nice day."
ACCURATE, CONFUSED, GENERIC_NAME = "accurate captioner", "confused captioner", "generic captioner"


class DemoNotReady(RuntimeError):
    """The demo images or their descriptions are not seeded yet."""


def described_scenes() -> dict[int, int]:
    """Image pk -> scene seed of the demo scenes with human descriptions."""
    seeds = {hashlib.sha256(scene.jpeg).hexdigest(): seed for seed, scene in enumerate(demo_scenes(DEMO_IMAGE_COUNT))}
    found = (Image.objects.filter(sha256__in=seeds, descriptions__isnull=False).distinct()
             .values_list("pk", "sha256"))
    return {pk: seeds[digest] for pk, digest in found if digest is not None}


def _captions(seeds: list[int]) -> dict[str, dict[int, str]]:
    """Each captioner's caption of each scene (by seed)."""
    own = {seed: render_scene(seed).caption for seed in seeds}

    def same_kind(seed: int) -> int:  # the next scene of the same kind in the test set, round the end
        kind = [other for other in seeds if other % len(THEMES) == seed % len(THEMES)]
        return kind[(kind.index(seed) + 1) % len(kind)]

    return {ACCURATE: own, CONFUSED: {seed: own[same_kind(seed)] for seed in seeds},
            GENERIC_NAME: dict.fromkeys(seeds, GENERIC)}


def seed_evaluation(name: str, design: str, scenes: dict[int, int], *, include_reference: bool) -> HumanEvaluation:
    """The evaluation, created, uploaded, launched, judged, approved and analysed (what is missing of it)."""
    evaluation = HumanEvaluation.objects.filter(name=name).first()
    if evaluation is not None and evaluation.analysed_at is not None:
        if evaluation.campaign is not None:
            close_simulated([evaluation.campaign])  # seeded before it was closed once done
        return evaluation
    if evaluation is None:
        collection = file_images(SetSpec(COLLECTION, ("demo",), "demo", is_demo=True), sorted(scenes))
        evaluation = create_evaluation(name=name, test_set=f"image_set:{collection.pk}", design=design,
                                       judges=JUDGES, include_reference=include_reference, attention_rate=0.1,
                                       seed=SEED)
    items = list(evaluation.items.order_by("position").values_list("name", "images"))
    captions = _captions(sorted({scenes[images[0]] for _, images in items}))
    uploaded = set(evaluation.systems.values_list("name", flat=True))
    for system, caption in captions.items():
        if system not in uploaded:
            run = [{"image_id": item, "caption": caption[scenes[images[0]]]} for item, images in items]
            upload_outputs(evaluation, system=system, content=json.dumps(run).encode(), file_name=f"{system}.json")
    if evaluation.status == HumanEvaluation.Status.DRAFT:
        launch_evaluation(evaluation, provider=own_crowd().name, publish=True)
        evaluation.refresh_from_db()
    campaign = evaluation.campaign
    if campaign is None:
        raise DemoNotReady(f"human evaluation '{name}' is launched but has no campaign")
    Campaign.objects.filter(pk=campaign.pk).update(is_simulated=True)
    shown: dict[str, tuple[SceneObject, ...]] = {
        image.display_url: scene_contents(scenes[image.pk]) for image in Image.objects.filter(pk__in=scenes)}
    judge_campaign(campaign, shown.__getitem__, judges=CROWD, seed=f"{SEED}:{name}")
    approve_submitted(campaign)
    close_simulated([campaign])
    analyse_evaluation(evaluation)
    return evaluation


@register_demo_part("human evaluation")
def seed_human_eval_part() -> DemoSeeded:
    """A completed, simulated human evaluation of three captioners (for `manage.py seed_demo`)."""
    scenes = described_scenes()
    if len(scenes) < 2:
        raise DemoNotReady("the demo's human evaluation needs the grounded demo's descriptions (seed_demo seeds "
                           "them first)")
    with shared_meteor():  # one JVM for the automatic scores of every upload (its start takes seconds)
        rating = seed_evaluation(RATING, "rating", scenes, include_reference=True)
        # the captioners only (3 pairs an item, not 6 with the reference): half the tasks, a quicker seed_demo
        pairwise = seed_evaluation(PAIRWISE, "pairwise", scenes, include_reference=False)
    base = settings.PUBLIC_BASE_URL
    return DemoSeeded(f"2 human evaluations of 3 captioners on {rating.items.count()} pictures", [
        f"Completed simulated human evaluation '{evaluation.name}' (leaderboard and report): "
        f"{base}{reverse('human-evaluation-page', args=[evaluation.pk])}" for evaluation in (rating, pairwise)
    ])
