"""Quality of the story task kinds (to be written)."""
