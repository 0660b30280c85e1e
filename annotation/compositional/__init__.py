"""Compositional generalization (seed 003, Nikolaus et al.): caption parses and the parse job, lexical concepts and
concept pairs, their occurrences in the corpus, held-out splits and their export, evaluations of generated captions.

Its models load with the app's (annotation.models); its export format and Celery tasks register at app start
(registrations.py, imported by AnnotationConfig.ready)."""
