"""Quality of the judgements task kind (to be written)."""
