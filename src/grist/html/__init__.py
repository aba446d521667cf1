"""Turning input bytes into a Document: decoding, loading with limits, parsing."""
