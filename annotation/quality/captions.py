"""Quality of the captions task kind (to be written)."""
