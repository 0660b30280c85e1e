"""Compositional generalization's writes: caption parses, concept pairs, evaluations."""
