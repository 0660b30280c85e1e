"""Quality of the boxes task kind (to be written)."""
