"""The local crowd: self-hosted campaign links, the default provider (see provider.py)."""
