"""Tests of the prolific provider (against `responses` and the local fake Prolific server)."""
