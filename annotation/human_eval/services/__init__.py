"""Writes of human evaluation: creating an evaluation, uploading outputs, launching, analysing."""
