"""The task kinds of human evaluation: rate_output (design rating) and compare_outputs (design pairwise)."""
