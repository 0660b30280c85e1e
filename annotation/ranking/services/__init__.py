"""Writes of ranking evaluation: test pools, submissions, pooled judging, judgement imports, judging HIT items."""
