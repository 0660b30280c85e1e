"""Quality of the links task kind (to be written)."""
