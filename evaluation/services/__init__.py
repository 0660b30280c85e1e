"""Writes of human evaluation: evaluations made from a test set, systems' outputs uploaded and scored, HITs planned
and launched as a crowd campaign, and the judgements analysed."""
