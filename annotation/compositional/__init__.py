"""Compositional generalization (seed 003, Nikolaus et al.): caption parses and the parse job, lexical concepts and
concept pairs, their occurrences in the corpus, held-out splits and their export, evaluations of generated captions.

Its models are registered by annotation.models; its export format by annotation.compositional.export_format at
app start (AnnotationConfig.ready)."""
