"""Metrics and reports shared by the dataset apps; plain Python, no Django."""
