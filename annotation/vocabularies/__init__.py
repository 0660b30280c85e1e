"""Vocabularies a researcher owns: the labels workers give boxes (create, list, read, choose in the wizard)."""
