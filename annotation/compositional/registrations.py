"""Registers compositional generalization with the crowd core at app start (AnnotationConfig.ready): the
compositional splits export format, the background tasks, and the evaluation images of its evaluations as test
sets of human evaluation with their Recall@K as an automatic metric."""
from __future__ import annotations

from evaluation.registry import register_automatic_score_provider, register_test_set_source
from mturk.datasets.formats import ExportFormat, register_format

from . import tasks  # noqa: F401  (the Celery tasks register when their module is imported)
from .export import OPTIONS, check_compositional_options, export_compositional
from .human_eval_source import COMPOSITIONAL, RECALL

register_test_set_source(COMPOSITIONAL)
register_automatic_score_provider(RECALL)

register_format(ExportFormat(
    name="compositional",
    description="Compositional splits (Nikolaus et al.): concept pairs held out from D_train, D_val and D_eval the "
                "images whose captions contain them (dataset_splits.json in the authors' format, the split files "
                "with captions, the pair occurrence table and the pair definitions).",
    write=export_compositional, documentation="docs/formats/compositional.md", kinds=("describe_image",),
    options=OPTIONS, check_options=check_compositional_options,
))
