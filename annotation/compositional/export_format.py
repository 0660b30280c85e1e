"""Registers the compositional splits export format (imported at app start by AnnotationConfig.ready)."""
from __future__ import annotations

from mturk.exports import ExportFormat, register_format

from .export import OPTIONS, check_compositional_options, export_compositional

register_format(ExportFormat(
    name="compositional",
    description="Compositional splits (Nikolaus et al.): concept pairs held out from D_train, D_val and D_eval the "
                "images whose captions contain them (dataset_splits.json in the authors' format, the split files "
                "with captions, the pair occurrence table and the pair definitions).",
    write=export_compositional, documentation="docs/formats/compositional.md", kinds=("describe_image",),
    options=OPTIONS, check_options=check_compositional_options,
))
