"""Compositional generalization in image captioning (Nikolaus et al.), plain Python: concept and pair definitions
(the seed's synonym sets ship as data), the caption parser interface, the matcher of concept pairs in a dependency
parse, the held-out splits, and Recall@K of held-out pairs in generated captions with its HTML report."""
