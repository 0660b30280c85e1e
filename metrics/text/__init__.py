"""Plain-Python text tools the apps and metrics share: the correspondence markup, VIST text normalization."""
